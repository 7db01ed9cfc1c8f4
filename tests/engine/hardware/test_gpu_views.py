"""Per-node GPU views, device topology and the inconsistencies between the views."""

from __future__ import annotations

from pathlib import Path

import pytest

import scheduler_engine
from scheduler_engine import build_cluster, load_cluster
from scheduler_engine.hardware_view import DEVICE_SOURCES, DEVICE_TYPES, gpu_views, node_gpu_view

DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"
DRIVER = "gpu.nvidia.com"


def node(name, *, gpus=None, gfd=None, clique=None):
    labels = {"kubernetes.io/hostname": name}
    if gfd is not None:
        labels["nvidia.com/gpu.count"] = str(gfd)
        labels["nvidia.com/gpu.memory"] = "81920"
    if clique:
        labels["nvidia.com/gpu.clique"] = clique
    alloc = {"cpu": "64", "memory": "256Gi", "pods": "110"}
    if gpus is not None:
        alloc["nvidia.com/gpu"] = str(gpus)
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": alloc, "capacity": alloc},
    }


def pod(name, node_name, gpus, ns="default", minute=0):
    return {
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": f"uid-{name}",
            "creationTimestamp": f"2026-01-01T00:{minute:02d}:00Z",
        },
        "spec": {
            "nodeName": node_name,
            "containers": [
                {
                    "name": "c",
                    "resources": {
                        "requests": {"nvidia.com/gpu": str(gpus)},
                        "limits": {"nvidia.com/gpu": str(gpus)},
                    },
                }
            ],
        },
        "status": {"phase": "Running"},
    }


def gpu(i, **attrs):
    a = {"type": {"string": "gpu"}, "uuid": {"string": f"GPU-{i}"}, "index": {"int": i}}
    a.update({k: {"string": v} if isinstance(v, str) else {"int": v} for k, v in attrs.items()})
    return {"name": f"gpu-{i}", "attributes": a, "capacity": {"memory": {"value": "80Gi"}}}


def mig(parent, start):
    return {
        "name": f"gpu-{parent}-mig-9-{start}-1",
        "attributes": {
            "type": {"string": "mig"},
            "uuid": {"string": f"MIG-{parent}-{start}"},
            "parentUUID": {"string": f"GPU-{parent}"},
            "profile": {"string": "1g.10gb"},
        },
        "capacity": {"memory": {"value": "9856Mi"}},
    }


def slice_(node_name, devices):
    return {
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-slice"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def claim(name, node_name, devices, reserved_for, ns="default"):
    return {
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": DRIVER, "pool": node_name, "device": d}
                        for d in devices
                    ]
                }
            },
            "reservedFor": [
                {"resource": "pods", "name": p, "uid": f"uid-{p}"} for p in reserved_for
            ],
        },
    }


def kinds(view):
    return [i.kind for i in view.inconsistencies]


@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        ([node("n", gpus=8, gfd=8)], []),
        ([node("n", gpus=7, gfd=8)], ["allocatable-vs-gfd"]),
        ([node("n", gpus=8, gfd=4)], ["allocatable-vs-gfd"]),
        (
            [node("n", gpus=8), slice_("n", [gpu(i) for i in range(6)])],
            ["allocatable-vs-devices"],
        ),
        ([node("n", gfd=8), slice_("n", [gpu(i) for i in range(7)])], ["gfd-vs-devices"]),
        ([node("n", gfd=2), slice_("n", [gpu(0), mig(1, 0), mig(1, 1)])], []),
        ([node("n", gpus=4, gfd=4), pod("p", "n", 6)], ["requests-above-allocatable"]),
        ([node("n", gfd=8), pod("p", "n", 1)], ["requests-above-allocatable"]),
        (
            [node("n", gfd=2), slice_("n", [gpu(0), gpu(1)]), claim("c", "n", ["gpu-1"], ["gone"])],
            ["claim-of-missing-pod"],
        ),
        (
            [
                node("n", gfd=2),
                slice_("n", [gpu(0), gpu(1)]),
                claim("c", "n", ["gpu-1"], ["p"]),
                pod("p", "n", 0),
            ],
            [],
        ),
    ],
    ids=[
        "consistent",
        "plugin-below-gfd",
        "plugin-above-gfd",
        "plugin-vs-devices",
        "gfd-vs-devices",
        "mig-parent-counts-once",
        "requests-above-allocatable",
        "requests-without-allocatable",
        "claim-of-missing-pod",
        "claim-of-live-pod",
    ],
)
def test_each_inconsistency_kind(objects, expected):
    view = node_gpu_view(build_cluster(objects), "n")
    assert kinds(view) == expected


def test_nodes_without_gpus_have_no_view():
    cluster = build_cluster([node("cpu"), node("g", gpus=2)])
    assert list(gpu_views(cluster)) == ["g"]
    assert node_gpu_view(cluster, "cpu") is None and node_gpu_view(cluster, "nope") is None


def test_dra_devices_carry_topology_holders_and_mig_partitions():
    cluster = build_cluster(
        [
            node("n", gfd=3, clique="cl.1"),
            slice_(
                "n",
                [
                    gpu(0, numa=0, **{"resource.kubernetes.io/pcieRoot": "pci0000:10"}),
                    gpu(1, numa=1),
                    mig(2, 0),
                    mig(2, 1),
                ],
            ),
            claim("c", "n", ["gpu-0"], ["p"]),
            pod("p", "n", 0),
        ]
    )
    view = node_gpu_view(cluster, "n")
    by_name = {g.name: g for g in view.gpus}
    g0 = by_name["gpu-0"]
    assert (g0.numa_node, g0.pcie_root, g0.nvlink_domain) == (0, "pci0000:10", "cl.1")
    assert (g0.claim, g0.pods, g0.memory_bytes) == ("default/c", ("default/p",), 80 * 2**30)
    assert by_name["gpu-1"].numa_node == 1 and not by_name["gpu-1"].in_use
    # the MIG-enabled parent is not published; it stands in with its partitions
    assert by_name["gpu-2"].partitions == ("gpu-2-mig-9-0-1", "gpu-2-mig-9-1-1")
    assert by_name["gpu-2-mig-9-0-1"].mig_parent == "gpu-2"
    assert view.devices == 3 and not view.count_only


def test_count_only_nodes_get_cells_on_numa_zones_with_inferred_holders():
    zone = lambda i, cap, avail: {  # noqa: E731
        "name": f"node-{i}",
        "type": "Node",
        "resources": [
            {"name": "nvidia.com/gpu", "capacity": cap, "allocatable": cap, "available": avail}
        ],
    }
    cluster = build_cluster(
        [
            node("n", gpus=4, gfd=4),
            pod("a", "n", 1, minute=1),
            {
                "kind": "NodeResourceTopology",
                "metadata": {"name": "n"},
                "attributes": [{"name": "topologyManagerPolicy", "value": "single-numa-node"}],
                "zones": [zone(0, "2", "2"), zone(1, "2", "1")],
            },
        ]
    )
    view = node_gpu_view(cluster, "n")
    assert view.count_only and view.topology_policy == "single-numa-node"
    assert [g.numa_node for g in view.gpus] == [0, 0, 1, 1]
    # NRT says zone 1 has one GPU in use: the running pod is shown there
    assert [g.pods for g in view.gpus] == [(), (), ("default/a",), ()]
    assert all(g.holder_inferred for g in view.gpus)
    assert view.to_dict()["zones"][1]["resources"]["nvidia.com/gpu"]["available"] == 1


@pytest.fixture(scope="module")
def demo_views():
    return gpu_views(load_cluster(DEMO))


def test_the_demo_shows_every_kind(demo_views):
    flagged = {n: kinds(v) for n, v in demo_views.items() if v.inconsistencies}
    assert flagged == {
        "a100-c-1": ["allocatable-vs-gfd"],
        "a100-c-2": ["allocatable-vs-gfd"],
        "h100-b-1": ["allocatable-vs-gfd", "requests-above-allocatable"],
        "dra-gpu-2": ["gfd-vs-devices", "claim-of-missing-pod"],
    }
    assert sum(v.allocatable or 0 for v in demo_views.values()) == 67


def test_the_demo_devices_are_of_every_declared_source_and_type(demo_views):
    devices = [g for v in demo_views.values() for g in v.gpus]
    assert {g.source for g in devices} == set(DEVICE_SOURCES)
    assert {g.type for g in devices} == set(DEVICE_TYPES)


def test_the_demo_dra_nodes_publish_devices(demo_views):
    l40s = demo_views["dra-gpu-1"]
    assert l40s.devices == 8 and {g.pcie_root for g in l40s.gpus} == {
        "pci0000:10",
        "pci0000:30",
        "pci0000:50",
        "pci0000:70",
    }
    held = [g.name for g in l40s.gpus if g.claim == "ml-inference/viz-stream-gpus"]
    assert held == [f"gpu-{i}" for i in range(6)]
    a30 = demo_views["dra-gpu-2"]
    assert [g.name for g in a30.gpus if g.partitions] == ["gpu-6"]
    assert demo_views["h100-a-1"].nvlink_domain == demo_views["h100-a-2"].nvlink_domain
