"""NodeResourceTopology objects load from snapshots, read as scheduler-plugins reads them."""

from __future__ import annotations

import pytest

from scheduler_engine import build_cluster
from scheduler_engine.errors import InputError
from scheduler_engine.objects.noderesourcetopology import parse_node_resource_topology


def nrt(name="n1", *, policies=None, attributes=None, zones=None):
    obj = {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": name},
        "zones": zones
        if zones is not None
        else [
            {
                "name": "node-0",
                "type": "Node",
                "costs": [{"name": "node-0", "value": 10}, {"name": "node-1", "value": 21}],
                "resources": [
                    {"name": "cpu", "capacity": "20", "allocatable": "18", "available": "1500m"},
                    {"name": "memory", "capacity": "8Gi", "allocatable": "8Gi", "available": "1Gi"},
                ],
            },
            {"name": "node-1", "type": "Node", "resources": []},
            {"name": "socket-0", "type": "Socket", "resources": []},
        ],
    }
    if policies is not None:
        obj["topologyPolicies"] = policies
    if attributes is not None:
        obj["attributes"] = [{"name": k, "value": v} for k, v in attributes.items()]
    return obj


def test_zones_resources_in_engine_units():
    t = parse_node_resource_topology(nrt())
    assert [z.name for z in t.numa_zones] == ["node-0", "node-1"]
    cpu = t.zones[0].resource("cpu")
    assert (cpu.capacity, cpu.allocatable, cpu.available) == (20000, 18000, 1500)
    assert t.zones[0].resource("memory").available == 2**30
    assert t.zones[0].numa_id == 0 and t.zones[2].numa_id is None
    assert t.zones[0].costs == {"node-0": 10, "node-1": 21}


@pytest.mark.parametrize(
    ("policies", "attributes", "expected"),
    [
        (None, None, ("none", "container", 8)),
        (["SingleNUMANodeContainerLevel"], None, ("single-numa-node", "container", 8)),
        (["SingleNUMANodePodLevel"], None, ("single-numa-node", "pod", 8)),
        (["RestrictedPodLevel", "BestEffortPodLevel"], None, ("restricted", "pod", 8)),
        (["BestEffortContainerLevel"], None, ("best-effort", "container", 8)),
        (["Bogus"], None, ("none", "container", 8)),
        # attributes win over the deprecated field
        (
            ["SingleNUMANodePodLevel"],
            {"topologyManagerPolicy": "restricted", "topologyManagerScope": "container"},
            ("restricted", "container", 8),
        ),
        # invalid attribute values are ignored
        (
            ["SingleNUMANodePodLevel"],
            {"topologyManagerPolicy": "strict", "topologyManagerScope": "node"},
            ("single-numa-node", "pod", 8),
        ),
        (None, {"topologyManagerMaxNUMANodes": "16"}, ("none", "container", 16)),
        (None, {"topologyManagerMaxNUMANodes": "1"}, ("none", "container", 8)),
        (None, {"topologyManagerMaxNUMANodes": "x"}, ("none", "container", 8)),
        (None, {"topologyManagerMaxNUMANodes": "5000"}, ("none", "container", 1024)),
    ],
)
def test_topology_manager_settings(policies, attributes, expected):
    m = parse_node_resource_topology(nrt(policies=policies, attributes=attributes)).manager
    assert (m.policy, m.scope, m.max_numa_nodes) == expected


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda o: o["metadata"].pop("name"), "metadata.name"),
        (lambda o: o.__setitem__("zones", {}), "zones"),
        (lambda o: o["zones"][0].pop("name"), "zones[0].name"),
        (
            lambda o: o["zones"][0]["resources"][1].pop("available"),
            "zones[0].resources[1].available",
        ),
        (
            lambda o: o["zones"][0]["resources"][0].__setitem__("capacity", "lots"),
            "zones[0].resources[0].capacity",
        ),
        (lambda o: o["zones"][0]["costs"][0].__setitem__("value", "x"), "zones[0].costs[0].value"),
        (lambda o: o.__setitem__("topologyPolicies", "SingleNUMANodePodLevel"), "topologyPolicies"),
        (lambda o: o.__setitem__("attributes", [{"value": "x"}]), "attributes[0].name"),
    ],
)
def test_bad_objects_name_the_field(mutate, field):
    obj = nrt()
    mutate(obj)
    with pytest.raises(InputError) as exc:
        build_cluster([obj], source="snap.yaml")
    assert exc.value.field == field
    assert exc.value.one_line().startswith("snap.yaml: NodeResourceTopology")


def test_snapshot_indexes_topologies_by_node_and_refuses_duplicates():
    cluster = build_cluster([nrt("a"), nrt("b")])
    assert sorted(cluster.node_topologies) == ["a", "b"]
    assert len(cluster.of_kind("NodeResourceTopology")) == 2
    with pytest.raises(InputError, match="duplicate object"):
        build_cluster([nrt("a"), nrt("a")])
