"""The GPU endpoints: each inconsistency kind on a snapshot, the fleet, one node's devices."""

from __future__ import annotations

import pytest

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.explain import live
from scheduler_engine.hardware_view import DEVICE_SOURCES, DEVICE_TYPES, INCONSISTENCY_KINDS
from tests.support import gpus, objects


def _cluster(name: str, objs: list[dict]):
    live.forget()
    cluster = ensure_snapshot_cluster(name, "test")
    result = import_objects(cluster, objs)
    assert not result.skipped, result.skipped
    return cluster


def _gpu_pod(name: str, node: str, n: int) -> dict:
    return objects.pod(name, node=node, gpus=n)


def _without_gfd(node: dict) -> dict:
    labels = node["metadata"]["labels"]
    for key in [k for k in labels if k.startswith("nvidia.com/")]:
        del labels[key]
    return node


# kind → (objects, the node flagged, the kinds expected there)
CASES = {
    "consistent": (
        [
            gpus.gpu_node("n1"),
            gpus.gpu_slice("n1"),
            gpus.allocated_claim("c1", "n1", ["gpu-0"], pod="p1"),
            gpus.claim_pod("p1", "n1", "c1"),
            _gpu_pod("p2", "n1", 2),
        ],
        "n1",
        set(),
    ),
    "allocatable-vs-gfd": (
        [gpus.gpu_node("n1", gpus=7, gfd_count=8)],
        "n1",
        {"allocatable-vs-gfd"},
    ),
    "a missing device": (
        [gpus.gpu_node("n1"), gpus.gpu_slice("n1", skip=(7,))],
        "n1",
        {"allocatable-vs-devices", "gfd-vs-devices"},
    ),
    "allocatable-vs-devices": (
        [_without_gfd(gpus.gpu_node("n1", gpus=3)), gpus.gpu_slice("n1", 2)],
        "n1",
        {"allocatable-vs-devices"},
    ),
    "requests-above-allocatable": (
        [gpus.gpu_node("n1", gpus=4), _gpu_pod("p1", "n1", 3), _gpu_pod("p2", "n1", 3)],
        "n1",
        {"requests-above-allocatable"},
    ),
    "claim-of-missing-pod": (
        [
            gpus.gpu_node("n1", gpus=0, gfd_count=8),
            gpus.gpu_slice("n1"),
            gpus.allocated_claim("orphan", "n1", ["gpu-2", "gpu-3"], pod="gone"),
        ],
        "n1",
        {"claim-of-missing-pod"},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_inconsistency_kind_is_flagged_on_its_node(case, viewer, db):
    objs, node, kinds = CASES[case]
    cluster = _cluster(f"inc-{len(case)}-{abs(hash(case)) % 10000}", objs)
    listed = viewer.get(f"/api/v1/clusters/{cluster.pk}/gpu-inconsistencies/").json()
    assert {(i["node"], i["kind"]) for i in listed} == {(node, k) for k in kinds}
    for i in listed:
        assert i["message"] and isinstance(i["details"], dict)
    detail = viewer.get(f"/api/v1/clusters/{cluster.pk}/gpus/{node}/").json()
    assert {i["kind"] for i in detail["inconsistencies"]} == kinds


def test_the_schema_offers_every_kind_the_cases_flag(viewer, db):
    # the kind's enum in the API schema is the engine's table; the cases above cover it all
    flagged = set().union(*(kinds for _, _, kinds in CASES.values()))
    assert set(INCONSISTENCY_KINDS) == flagged
    schema = viewer.get("/api/v1/schema/?format=json").json()
    kind = schema["components"]["schemas"]["Inconsistency"]["properties"]["kind"]
    enum = schema["components"]["schemas"][kind["$ref"].rsplit("/", 1)[1]]["enum"]
    assert enum == list(INCONSISTENCY_KINDS)


def test_the_schema_offers_the_engines_device_sources_and_types(viewer, db):
    schemas = viewer.get("/api/v1/schema/?format=json").json()["components"]["schemas"]
    device = schemas["GpuDevice"]["properties"]
    for field, table in (("source", DEVICE_SOURCES), ("type", DEVICE_TYPES)):
        assert schemas[device[field]["$ref"].rsplit("/", 1)[1]]["enum"] == list(table)


def test_the_wording_names_the_figures(viewer, db):
    objs, _, _ = CASES["claim-of-missing-pod"]
    cluster = _cluster("inc-words", objs + [gpus.gpu_node("n2", gpus=7, gfd_count=8)])
    by_kind = {
        i["kind"]: i
        for i in viewer.get(f"/api/v1/clusters/{cluster.pk}/gpu-inconsistencies/").json()
    }
    assert by_kind["claim-of-missing-pod"]["details"] == {
        "claim": "default/orphan",
        "pods": ["default/gone"],
        "devices": ["gpu-2", "gpu-3"],
    }
    assert by_kind["claim-of-missing-pod"]["message"] == (
        "claim default/orphan holds gpu-2, gpu-3 for default/gone, which no longer exists"
    )
    assert by_kind["allocatable-vs-gfd"]["message"] == (
        "nvidia.com/gpu allocatable is 7 but GPU Feature Discovery counts 8 GPUs"
    )


def _fleet_objects() -> list[dict]:
    cordoned = gpus.gpu_node("n4", clique="dom-c")
    cordoned["spec"]["unschedulable"] = True
    return [
        gpus.gpu_node("n1", clique="dom-a"),
        gpus.gpu_slice("n1", clique="dom-a"),
        gpus.gpu_node("n2", clique="dom-a"),
        gpus.gpu_slice("n2", clique="dom-a"),
        gpus.allocated_claim("c2", "n2", ["gpu-5"], pod="p2"),
        gpus.claim_pod("p2", "n2", "c2"),
        gpus.gpu_node("n3", clique="dom-b"),  # device plugin only, all free
        cordoned,
        gpus.gpu_node("n5", gpus=4),  # too small to be a whole 8-GPU node
        _gpu_pod("p5", "n5", 1),
        objects.node("cpu-only"),
    ]


def test_the_fleet_shows_whole_free_nodes_and_nvlink_domains(viewer, db):
    cluster = _cluster("fleet", _fleet_objects())
    fleet = viewer.get(f"/api/v1/clusters/{cluster.pk}/gpus/").json()
    assert fleet["gpuNodes"] == 5
    assert (fleet["gpus"], fleet["free"]) == (36, 34)
    assert fleet["wholeFreeNodes"] == ["n1", "n3"]
    assert fleet["wholeFreeDomains"] == ["dom-b", "dom-c"]
    domains = {d["name"]: d for d in fleet["domains"]}
    assert domains["dom-a"] == {"name": "dom-a", "nodes": ["n1", "n2"], "gpus": 16, "free": 15}
    nodes = {n["node"]: n for n in fleet["nodes"]}
    assert (nodes["n2"]["used"], nodes["n2"]["countOnly"]) == (1, False)
    assert (nodes["n5"]["used"], nodes["n5"]["free"], nodes["n5"]["countOnly"]) == (1, 3, True)
    assert nodes["n4"]["unschedulable"] is True and "cpu-only" not in nodes


def test_a_node_lists_its_devices_with_holders_and_mig_partitions(viewer, db):
    devices = [gpus.gpu_device("n1", i, numa=i // 2) for i in range(3)]
    devices += [gpus.mig_device("n1", 3, 0, numa=1), gpus.mig_device("n1", 3, 4, numa=1)]
    objs = [
        gpus.gpu_node("n1", gpus=0, gfd_count=4),
        gpus.gpu_slice("n1", devices=devices),
        gpus.allocated_claim("c1", "n1", ["gpu-3-mig-9-4-4"], pod="p1"),
        gpus.claim_pod("p1", "n1", "c1"),
        gpus.nrt("n1", [(2, 2), (2, 1)]),
    ]
    cluster = _cluster("one-node", objs)
    view = viewer.get(f"/api/v1/clusters/{cluster.pk}/gpus/n1/").json()
    assert (view["devices"], view["gfdCount"], view["countOnly"]) == (4, 4, False)
    by_name = {g["name"]: g for g in view["gpus"]}
    assert by_name["gpu-3"]["partitions"] == ["gpu-3-mig-9-0-4", "gpu-3-mig-9-4-4"]
    held = by_name["gpu-3-mig-9-4-4"]
    assert (held["migParent"], held["claim"], held["pods"]) == (
        "gpu-3",
        "default/c1",
        ["default/p1"],
    )
    assert [by_name[f"gpu-{i}"]["numaNode"] for i in range(3)] == [0, 0, 1]
    assert view["topologyPolicy"] == "single-numa-node"
    assert [z["resources"]["nvidia.com/gpu"]["available"] for z in view["zones"]] == [2, 1]


def test_unknown_and_gpu_less_nodes_are_404(viewer, db):
    cluster = _cluster("no-gpu", _fleet_objects())
    for node in ("cpu-only", "nope"):
        r = viewer.get(f"/api/v1/clusters/{cluster.pk}/gpus/{node}/")
        assert r.status_code == 404 and node in r.json()["detail"]


def test_the_gpu_endpoints_need_a_token(client, db):
    cluster = _cluster("anon", _fleet_objects())
    for path in ("gpus/", "gpus/n1/", "gpu-inconsistencies/"):
        assert client.get(f"/api/v1/clusters/{cluster.pk}/{path}").status_code in (401, 403)
