"""NodeResourceTopologyMatch Filter, with the cases of scheduler-plugins' filter_test.go."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.status import Code

from .nrt_helpers import (
    CPU,
    EXTENDED,
    HUGEPAGES_2MI,
    MEMORY,
    NIC,
    NIC_NO_NUMA,
    NOT_EXISTING_NIC,
    Harness,
    guaranteed,
    node_for,
    nrt,
    pod,
    req_and_limit,
    requests_only,
    res,
    with_init,
    zone,
)

CONTAINER = "SingleNUMANodeContainerLevel"
POD = "SingleNUMANodePodLevel"

TOPOLOGIES = [
    nrt(
        "node1",
        CONTAINER,
        zone(0, res(CPU, "20", "4"), res(MEMORY, "8Gi", "8Gi"), res(NIC, "30", "10")),
        zone(1, res(CPU, "30", "8"), res(MEMORY, "8Gi", "8Gi"), res(NIC, "30", "10")),
    ),
    nrt(
        "node2",
        CONTAINER,
        zone(
            0,
            res(CPU, "20", "2"),
            res(MEMORY, "8Gi", "4Gi"),
            res(HUGEPAGES_2MI, "128Mi", "128Mi"),
            res(NIC, "30", "5"),
        ),
        zone(
            1,
            res(CPU, "30", "4"),
            res(MEMORY, "8Gi", "4Gi"),
            res(HUGEPAGES_2MI, "128Mi", "128Mi"),
            res(NIC, "30", "2"),
        ),
    ),
    nrt(
        "node3",
        POD,
        zone(0, res(CPU, "20", "2"), res(MEMORY, "8Gi", "4Gi"), res(NIC, "30", "5")),
        zone(1, res(CPU, "30", "4"), res(MEMORY, "8Gi", "4Gi"), res(NIC, "30", "2")),
    ),
    nrt(
        "badly-formed-node",
        POD,
        zone(0, res(CPU, "20", "2"), res(MEMORY, "8Gi", "4Gi"), res(NIC, "30", "5")),
        {
            "name": "node-75",
            "type": "Node",
            "resources": [res(CPU, "30", "4"), res(MEMORY, "8Gi", "4Gi"), res(NIC, "30", "2")],
        },
    ),
    nrt(
        "extended",
        CONTAINER,
        zone(0, res(CPU, "20", "4"), res(MEMORY, "8Gi", "8Gi"), res(NIC, "30", "10")),
        zone(1, res(CPU, "30", "8"), res(MEMORY, "8Gi", "8Gi"), res(NIC, "30", "10")),
    ),
]
NODES = [
    node_for(TOPOLOGIES[0]),
    node_for(TOPOLOGIES[1], {NIC_NO_NUMA: "4"}),
    node_for(TOPOLOGIES[2]),
    node_for(TOPOLOGIES[3]),
    node_for(TOPOLOGIES[4], {EXTENDED: "1"}),
]
N = [n["metadata"]["name"] for n in NODES]


def many(r: dict, count: int) -> dict:
    """``makePodByResourceListWithManyContainers``."""
    return guaranteed(*([r] * count))


CASES = [
    # (name, pod, node index, expected message or None)
    (
        "Guaranteed QoS, pod with extended resource fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", EXTENDED: "1", NIC: "3"}),
        4,
        None,
    ),
    (
        "Guaranteed QoS, pod with extended resource no devices; pod fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", EXTENDED: "1"}),
        4,
        None,
    ),
    ("Best effort QoS, pod fit", pod(), 0, None),
    (
        "Best effort QoS requesting devices, Pod Scope Topology policy; pod fit",
        guaranteed({NIC: "5"}),
        2,
        None,
    ),
    (
        "Best effort QoS requesting devices, Pod Scope Topology policy; pod doesn't fit",
        guaranteed({NIC: "20"}),
        2,
        "cannot align pod",
    ),
    (
        "Best effort QoS requesting devices, Container Scope Topology policy; pod fit",
        guaranteed({NIC: "5"}),
        1,
        None,
    ),
    (
        "Best effort QoS requesting devices, Container Scope Topology policy; pod doesn't fit",
        guaranteed({NIC: "20"}),
        0,
        "cannot align container",
    ),
    (
        "Best effort QoS requesting devices and extended resources, Container Scope Topology policy",
        guaranteed({EXTENDED: "1", NIC: "10"}),
        4,
        None,
    ),
    (
        "Best effort QoS, requesting CPU, memory (enough on NUMA) and devices (not enough), Container Scope",
        req_and_limit({CPU: "3", MEMORY: "3Gi", NIC: "11"}, {CPU: "4", MEMORY: "4Gi", NIC: "11"}),
        1,
        "cannot align container",
    ),
    (
        "Best effort QoS, requesting CPU, memory (enough on NUMA) and devices (not enough), Pod Scope",
        req_and_limit({CPU: "1", MEMORY: "1Gi", NIC: "6"}, {CPU: "2", MEMORY: "2Gi", NIC: "6"}),
        2,
        "cannot align pod",
    ),
    (
        "Best effort QoS requesting CPU, memory (enough on NUMA) and devices, Pod Scope; pod fit",
        req_and_limit({CPU: "1", MEMORY: "1Gi", NIC: "5"}, {CPU: "2", MEMORY: "2Gi", NIC: "5"}),
        2,
        None,
    ),
    (
        "Best effort QoS requesting CPU, memory (not enough on NUMA) and devices, Pod Scope; pod fit",
        req_and_limit({CPU: "19", MEMORY: "5Gi", NIC: "5"}, {CPU: "20", MEMORY: "6Gi", NIC: "5"}),
        2,
        None,
    ),
    (
        "Best effort QoS requesting CPU, memory (enough on NUMA) and devices, Container Scope; pod fit",
        req_and_limit({CPU: "3", MEMORY: "3Gi", NIC: "5"}, {CPU: "4", MEMORY: "4Gi", NIC: "5"}),
        1,
        None,
    ),
    (
        "Best effort QoS requesting CPU, memory (not enough on NUMA) and devices, Container Scope; fit",
        req_and_limit({CPU: "5", MEMORY: "5Gi", NIC: "5"}, {CPU: "6", MEMORY: "6Gi", NIC: "5"}),
        1,
        None,
    ),
    ("Guaranteed QoS, minimal, pod fit", guaranteed({CPU: "2", MEMORY: "2Gi"}), 0, None),
    (
        "Guaranteed QoS, minimal, saturating zone, pod fit",
        guaranteed({CPU: "8", MEMORY: "8Gi"}),
        0,
        None,
    ),
    (
        "Guaranteed QoS, zero quantity of unavailable resource, pod fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", HUGEPAGES_2MI: "0", NIC: "3"}),
        0,
        None,
    ),
    ("Guaranteed QoS, pod fit", guaranteed({CPU: "2", MEMORY: "2Gi", NIC: "3"}), 1, None),
    (
        "Guaranteed QoS, hugepages, pod fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", HUGEPAGES_2MI: "64Mi", NIC: "3"}),
        1,
        None,
    ),
    ("Burstable QoS, pod fit", guaranteed({CPU: "4", NIC: "3"}), 1, None),
    (
        "Burstable QoS, requesting CPU and devices (not enough), Container Scope; pod doesn't fit",
        guaranteed({CPU: "4", NIC: "11"}),
        1,
        "cannot align container",
    ),
    (
        "Burstable QoS, requesting CPU and devices (not enough), Pod Scope; pod doesn't fit",
        guaranteed({CPU: "2", NIC: "6"}),
        2,
        "cannot align pod",
    ),
    (
        "Burstable QoS requesting CPU (enough on NUMA) and devices, Pod Scope; pod fit",
        guaranteed({CPU: "2", NIC: "5"}),
        2,
        None,
    ),
    (
        "BurstableQoS requesting CPU (not enough on NUMA) and devices, Pod Scope; pod fit",
        guaranteed({CPU: "20", NIC: "5"}),
        2,
        None,
    ),
    (
        "Burstable QoS requesting CPU (enough on NUMA) and devices, Container Scope; pod fit",
        guaranteed({CPU: "2", NIC: "5"}),
        1,
        None,
    ),
    (
        "Burstable QoS requesting CPU (not enough on NUMA) and devices, Container Scope; pod fit",
        guaranteed({CPU: "4", NIC: "5"}),
        1,
        None,
    ),
    (
        "Burstable QoS, requesting memory (enough on NUMA) and devices (not enough), Container Scope",
        guaranteed({MEMORY: "2Gi", NIC: "11"}),
        1,
        "cannot align container",
    ),
    (
        "Burstable QoS, requesting memory (enough on NUMA) and devices (not enough), Pod Scope",
        guaranteed({MEMORY: "2Gi", NIC: "6"}),
        2,
        "cannot align pod",
    ),
    (
        "Burstable QoS requesting memory (enough on NUMA) and devices, Pod Scope; pod fit",
        guaranteed({MEMORY: "2Gi", NIC: "5"}),
        2,
        None,
    ),
    (
        "Burstable QoS requesting memory (not enough on NUMA) and devices, Pod Scope; pod fit",
        guaranteed({MEMORY: "5Gi", NIC: "5"}),
        2,
        None,
    ),
    (
        "Burstable QoS requesting memory (enough on NUMA) and devices, Container Scope; pod fit",
        guaranteed({MEMORY: "4Gi", NIC: "5"}),
        1,
        None,
    ),
    (
        "Burstable QoS requesting memory (not enough on NUMA) and devices, Container Scope; pod fit",
        guaranteed({MEMORY: "5Gi", NIC: "5"}),
        1,
        None,
    ),
    (
        "Burstable QoS, requesting CPU, memory (enough on NUMA) and devices (not enough), Container",
        requests_only({CPU: "4", MEMORY: "4Gi", NIC: "11"}),
        1,
        "cannot align container",
    ),
    (
        "Burstable QoS, requesting CPU, memory (enough on NUMA) and devices (not enough), Pod Scope",
        requests_only({CPU: "2", MEMORY: "2Gi", NIC: "6"}),
        2,
        "cannot align pod",
    ),
    (
        "Burstable QoS requesting CPU, memory (enough on NUMA) and devices, Pod Scope; pod fit",
        requests_only({CPU: "2", MEMORY: "2Gi", NIC: "5"}),
        2,
        None,
    ),
    (
        "Burstable QoS requesting CPU, memory (not enough on NUMA) and devices, Pod Scope; pod fit",
        requests_only({CPU: "20", MEMORY: "5Gi", NIC: "5"}),
        2,
        None,
    ),
    (
        "Burstable QoS requesting CPU, memory (enough on NUMA) and devices, Container Scope; pod fit",
        requests_only({CPU: "4", MEMORY: "4Gi", NIC: "5"}),
        1,
        None,
    ),
    (
        "Burstable QoS requesting CPU, memory (not enough on NUMA) and devices, Container; pod fit",
        requests_only({CPU: "5", MEMORY: "5Gi", NIC: "5"}),
        1,
        None,
    ),
    (
        "Burstable QoS with extended resources, pod fit",
        guaranteed({EXTENDED: "1", CPU: "4", NIC: "3"}),
        4,
        None,
    ),
    (
        "Guaranteed QoS, hugepages, pod doesn't fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", HUGEPAGES_2MI: "256Mi", NIC: "3"}),
        1,
        "cannot align container",
    ),
    (
        "Guaranteed QoS, pod doesn't fit",
        guaranteed({CPU: "9", MEMORY: "1Gi", NIC: "3"}),
        0,
        "cannot align container",
    ),
    (
        "Guaranteed QoS, pod fit (zero request of a resource the node lacks)",
        guaranteed({CPU: "2", MEMORY: "1Gi", NOT_EXISTING_NIC: "0"}),
        0,
        None,
    ),
    (
        "Guaranteed QoS Topology Scope, pod doesn't fit",
        many({CPU: "3", MEMORY: "1Gi", NOT_EXISTING_NIC: "0"}, 3),
        2,
        "cannot align pod",
    ),
    (
        "Guaranteed QoS Topology Scope, minimal, pod fit",
        guaranteed({CPU: "1", MEMORY: "1Gi"}),
        2,
        None,
    ),
    (
        "Guaranteed QoS TopologyScope, minimal, saturating zone, pod fit",
        guaranteed({CPU: "2", MEMORY: "4Gi"}),
        3,
        None,
    ),
    (
        "Guaranteed QoS Topology Scope, pod fit",
        many({CPU: "1", MEMORY: "1Gi", NOT_EXISTING_NIC: "0"}, 3),
        2,
        None,
    ),
    (
        "Guaranteed QoS Topology Scope, invalid node",
        many({CPU: "1", MEMORY: "1Gi", NOT_EXISTING_NIC: "0"}, 3),
        3,
        "cannot align pod",
    ),
    (
        "Guaranteed QoS, hugepages, non-NUMA affine NIC, pod fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", HUGEPAGES_2MI: "64Mi", NIC_NO_NUMA: "3"}),
        1,
        None,
    ),
    (
        "Guaranteed QoS, ephemeral-storage (non-NUMA), pod fit",
        guaranteed({CPU: "2", MEMORY: "2Gi", "ephemeral-storage": "100Mi"}),
        1,
        None,
    ),
]


@pytest.fixture(scope="module")
def harness():
    return Harness(TOPOLOGIES, nodes=NODES)


@pytest.mark.parametrize(("name", "pod_obj", "node", "want"), CASES, ids=[c[0] for c in CASES])
def test_node_resource_topology(harness, name, pod_obj, node, want):
    status = harness.filter(pod_obj, N[node])
    if want is None:
        assert status is None or status.is_success(), status
    else:
        assert status.code == Code.UNSCHEDULABLE
        assert status.message().startswith(want)


HOST0 = [
    zone(
        0,
        res(CPU, "32", "30"),
        res(MEMORY, "64Gi", "60Gi"),
        res(HUGEPAGES_2MI, "384Mi", "384Mi"),
        res(NIC, "16", "16"),
    ),
    zone(
        1,
        res(CPU, "32", "32"),
        res(MEMORY, "64Gi", "64Gi"),
        res(HUGEPAGES_2MI, "512Mi", "512Mi"),
        res(NIC, "32", "32"),
    ),
]


def _c(cpu, mem, hp=None, nic=None):
    r = {CPU: cpu, MEMORY: mem}
    if hp:
        r[HUGEPAGES_2MI] = hp
    if nic:
        r[NIC] = nic
    return r


POD_SCOPE = [
    (
        "gu pod fits only on a numa node",
        [_c("2", "2Gi"), _c("4", "8Gi"), _c("26", "32Gi", "512Mi", "26")],
        None,
    ),
    (
        "gu pod does not fit - not enough CPUs available on any NUMA node",
        [_c("2", "2Gi"), _c("8", "8Gi"), _c("26", "26Gi", "52Mi", "26")],
        "cannot align pod",
    ),
    (
        "gu pod does not fit - not enough memory available on any NUMA node",
        [_c("2", "4Gi"), _c("4", "16Gi"), _c("26", "52Gi", "52Mi", "26")],
        "cannot align pod",
    ),
    (
        "gu pod does not fit - not enough Hugepages available on any NUMA node",
        [_c("2", "2Gi"), _c("4", "8Gi"), _c("26", "32Gi", "3328Mi", "26")],
        "cannot align pod",
    ),
    (
        "gu pod does not fit - not enough devices available on any NUMA node",
        [_c("2", "2Gi"), _c("4", "8Gi"), _c("26", "26Gi", "52Mi", "52")],
        "cannot align pod",
    ),
]


@pytest.mark.parametrize(("name", "containers", "want"), POD_SCOPE, ids=[c[0] for c in POD_SCOPE])
def test_multi_container_pod_scope(name, containers, want):
    h = Harness([nrt("host0", POD, *HOST0)])
    status = h.filter(guaranteed(*containers), "host0")
    assert (None if status is None or status.is_success() else status.message()) == want


CONTAINER_SCOPE = [
    (
        "[1][tier3] single container with good allocation - fit",
        [],
        [{CPU: "2", MEMORY: "4G"}],
        None,
    ),
    (
        "[2][tier3] single container with cpu over allocation",
        [],
        [{CPU: "40", MEMORY: "4G"}],
        "cannot align container",
    ),
    (
        "[2][tier3] single container with memory over allocation",
        [],
        [{CPU: "2", MEMORY: "100G"}],
        "cannot align container",
    ),
    (
        "[2][tier3] single container with cpu and memory over allocation",
        [],
        [{CPU: "40", MEMORY: "100G"}],
        "cannot align container",
    ),
    (
        "[4][tier2] multi-containers with good allocation, spread across NUMAs - fit",
        [],
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}],
        None,
    ),
    (
        "[4][tier1] multi containers with good devices and hugepages allocation - fit",
        [],
        [
            {CPU: "2", MEMORY: "6G", HUGEPAGES_2MI: "500Mi", NIC: "16"},
            {CPU: "2", MEMORY: "6G", HUGEPAGES_2MI: "50Mi", NIC: "8"},
        ],
        None,
    ),
    (
        "[7][tier1] init container with cpu over allocation - not fit",
        [{CPU: "40", MEMORY: "40G"}],
        [{CPU: "1", MEMORY: "4G"}, {CPU: "1", MEMORY: "4G"}],
        "cannot align init container",
    ),
    (
        "[7][tier1] init container with memory over allocation - not fit",
        [{CPU: "4", MEMORY: "70G"}],
        [{CPU: "1", MEMORY: "4G"}, {CPU: "1", MEMORY: "4G"}],
        "cannot align init container",
    ),
    (
        "[11][tier1] init container with good allocation, multi-containers spread - fit",
        [{CPU: "4", MEMORY: "10G"}],
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}],
        None,
    ),
    (
        "[17][tier1] multi init containers with good allocation, multi-containers spread - fit",
        [{CPU: "4", MEMORY: "10G"}] * 3,
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}, {CPU: "6", MEMORY: "10G"}],
        None,
    ),
    (
        "[24][tier1] multi init containers, multi-containers with over cpu allocation - not fit",
        [{CPU: "30", MEMORY: "10G"}] * 2,
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "6G"}],
        "cannot align container",
    ),
    (
        "[27][tier1] multi init containers, container with cpu over allocation - not fit",
        [{CPU: "30", MEMORY: "10G"}] * 2,
        [{CPU: "35", MEMORY: "40G"}],
        "cannot align container",
    ),
    (
        "[28][tier1] multi init containers, multi-containers with good allocation - fit",
        [{CPU: "30", MEMORY: "10G"}] * 2,
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}],
        None,
    ),
    (
        "[29][tier1] init containers whose cpus together are over allocatable - fit",
        [{CPU: "30", MEMORY: "10G"}] * 3,
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}, {CPU: "2", MEMORY: "6G"}],
        None,
    ),
    (
        "[29][tier1] init containers whose memory together is over allocatable - fit",
        [{CPU: "3", MEMORY: "50G"}] * 3,
        [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}, {CPU: "2", MEMORY: "6G"}],
        None,
    ),
    (
        "[32][tier1] multi init containers with over cpu allocation - not fit",
        [{CPU: "40", MEMORY: "50G"}, {CPU: "3", MEMORY: "50G"}, {CPU: "3", MEMORY: "50G"}],
        [{CPU: "20", MEMORY: "40G"}, {CPU: "2", MEMORY: "6G"}],
        "cannot align init container",
    ),
    (
        "[32][tier1] multi init containers with over memory allocation - not fit",
        [{CPU: "20", MEMORY: "50G"}, {CPU: "40", MEMORY: "50G"}, {CPU: "3", MEMORY: "50G"}],
        [{CPU: "20", MEMORY: "40G"}, {CPU: "2", MEMORY: "6G"}],
        "cannot align init container",
    ),
]


@pytest.mark.parametrize(
    ("name", "init", "app", "want"), CONTAINER_SCOPE, ids=[c[0] for c in CONTAINER_SCOPE]
)
def test_multi_container_container_scope(name, init, app, want):
    h = Harness([nrt("host0", CONTAINER, *HOST0)])
    status = h.filter(with_init(init, app), "host0")
    assert (None if status is None or status.is_success() else status.message()) == want


def test_explanations_say_which_numa_zone_could_not_hold_what():
    h = Harness([nrt("host0", CONTAINER, *HOST0)])
    s = h.filter(
        with_init(
            [], [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "6G"}]
        ),
        "host0",
    )
    assert s.message() == "cannot align container"
    assert s.detail == (
        "container cnt-3: no NUMA node has 20 cpu available (node-0 has 10, node-1 has 12)"
        " (after cnt-1 on node-0, cnt-2 on node-1)"
    )


def test_nodes_without_topology_or_other_policies_pass():
    h = Harness(
        [nrt("be", "BestEffortContainerLevel", *HOST0)],
        nodes=[node_for(nrt("be", None, *HOST0)), node_for(nrt("none", None, *HOST0))],
    )
    big = guaranteed({CPU: "60", MEMORY: "1Gi"})
    assert h.filter(big, "be") is None
    assert h.filter(big, "none") is None


def test_a_profile_with_the_plugin_explains_numa_rejections():
    from scheduler_engine import build_cluster, load_config, simulate
    from scheduler_engine.framework.registry import default_registry

    topo = nrt("host0", CONTAINER, *HOST0)
    other = nrt("host1", CONTAINER, *HOST0)
    nodes = [node_for(topo, {"pods": "110"}), node_for(other, {"pods": "110"})]
    nodes[1]["metadata"]["name"] = "host1"
    big = guaranteed({CPU: "33", MEMORY: "1Gi"})
    cluster = build_cluster([*nodes, topo, other, big])
    config = load_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "plugins": {"multiPoint": {"enabled": [{"name": "NodeResourceTopologyMatch"}]}},
                }
            ],
        },
        **default_registry().config_kwargs(),
    )
    [r] = simulate(cluster, config, explain=True).to_dict()["results"]
    assert r["status"] == "Unschedulable"
    assert r["message"].startswith("0/2 nodes are available: 2 cannot align container.")
    failure = r["filterFailures"]["host0"]
    assert failure["plugin"] == "NodeResourceTopologyMatch"
    assert failure["detail"] == (
        "container cnt-1: no NUMA node has 33 cpu available (node-0 has 30, node-1 has 32)"
    )


def test_a_fit_says_where_the_kubelet_would_align_it():
    h = Harness([nrt("host0", CONTAINER, *HOST0)])
    s = h.filter(with_init([], [{CPU: "20", MEMORY: "40G"}, {CPU: "20", MEMORY: "40G"}]), "host0")
    assert s.is_success() and s.detail == "containers aligned: cnt-1 on node-0, cnt-2 on node-1"
    h = Harness([nrt("host0", POD, *HOST0)])
    s = h.filter(guaranteed({CPU: "31", MEMORY: "1Gi"}), "host0")
    assert s.is_success() and s.detail == "pod aligned on node-1"
