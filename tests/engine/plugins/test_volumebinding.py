"""VolumeBinding (upstream volumebinding/volume_binding_test.go and binder_test.go cases)."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine import build_cluster, default_config, simulate
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import volumebinding as vb
from scheduler_engine.storage import (
    BETA_STORAGE_CLASS_ANNOTATION,
    ClaimInfo,
    VolumeInfo,
    storage_for,
)
from tests.engine.builders import make_node, make_pod

from .storage_objects import HOSTNAME, ZONE, FakeHandle, pv, pvc, storage_class

WAIT = storage_class("wait-sc")
IMMEDIATE = storage_class("immediate-sc", mode="Immediate")
PROVISION = storage_class("provision-sc", provisioner="driver-a")
TOPOLOGY = storage_class("topo-sc", provisioner="driver-a", topologies=[{ZONE: ["a"]}])
CAPACITY = storage_class("cap-sc", provisioner="driver-cap")
CAP_DRIVER = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "CSIDriver",
    "metadata": {"name": "driver-cap"},
    "spec": {"storageCapacity": True},
}
CLASSES = [WAIT, IMMEDIATE, PROVISION, TOPOLOGY, CAPACITY, CAP_DRIVER]

SKIP = Status(Code.SKIP)
BIND = vb.ERR_REASON_BIND_CONFLICT
NODE = vb.ERR_REASON_NODE_CONFLICT
SPACE = vb.ERR_REASON_NOT_ENOUGH_SPACE
NOPV = vb.ERR_REASON_PV_NOT_EXIST


def _uau(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)


def _host(n: str) -> dict[str, list[str]]:
    return {HOSTNAME: [n]}


def _nodes(*names: str, **labels: str) -> list[dict[str, Any]]:
    return [make_node(n).labels({HOSTNAME: n, **labels}).obj() for n in names]


def _capacity(cls: str, size: str, zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSIStorageCapacity",
        "metadata": {"name": f"cap-{zone}", "namespace": "kube-system"},
        "storageClassName": cls,
        "capacity": size,
        "nodeTopology": {"matchLabels": {ZONE: zone}},
    }


# (id, pod, objects, pre_filter status, filter statuses per node)
CASES = [
    ("pod_without_pvcs_skips", make_pod("p"), _nodes("node-a"), SKIP, None),
    (
        "all_bound",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc", volume="pv-a"), pv("pv-a", "wait-sc")],
        None,
        [None],
    ),
    (
        "pvc_does_not_exist",
        make_pod("p").pvc("pvc-a"),
        _nodes("node-a"),
        _uau('persistentvolumeclaim "pvc-a" not found'),
        None,
    ),
    (
        "part_of_pvcs_do_not_exist",
        make_pod("p").pvc("pvc-a").pvc("pvc-b"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc", volume="pv-a")],
        _uau('persistentvolumeclaim "pvc-b" not found'),
        None,
    ),
    (
        "immediate_claims_not_bound",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "immediate-sc")],
        _uau("pod has unbound immediate PersistentVolumeClaims"),
        None,
    ),
    (
        "claim_of_missing_class_is_immediate",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "no-such-class")],
        _uau("pod has unbound immediate PersistentVolumeClaims"),
        None,
    ),
    (
        "prebound_claim_not_fully_bound_is_immediate",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc", volume="pv-a", bound=False)],
        _uau("pod has unbound immediate PersistentVolumeClaims"),
        None,
    ),
    (
        "unbound_claims_no_matches",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc")],
        None,
        [_uau(BIND)],
    ),
    (
        "bound_and_unbound_unsatisfied",
        make_pod("p").pvc("pvc-a").pvc("pvc-b"),
        [
            make_node("node-a").labels(foo="barbar").obj(),
            pvc("pvc-a", "wait-sc", volume="pv-a"),
            pvc("pvc-b", "wait-sc"),
            pv("pv-a", "wait-sc", affinity={"foo": ["bar"]}, claim=("default", "pvc-a")),
        ],
        None,
        [_uau(NODE, BIND)],
    ),
    (
        "pv_not_found",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc", volume="pv-a")],
        None,
        [_uau(NOPV)],
    ),
    (
        "pv_not_found_claim_lost",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc", volume="pv-a", phase="Lost")],
        _uau('persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'),
        None,
    ),
    (
        "claim_being_deleted",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "wait-sc", deleting=True)],
        _uau('persistentvolumeclaim "pvc-a" is being deleted'),
        None,
    ),
    (
        "ephemeral_claim_not_created_yet",
        make_pod("p").set("spec.volumes", [{"name": "scratch", "ephemeral": {}}]),
        _nodes("node-a"),
        _uau(
            "waiting for ephemeral volume controller to create the "
            'persistentvolumeclaim "p-scratch"'
        ),
        None,
    ),
    (
        "ephemeral_claim_of_another_pod",
        make_pod("p").set("spec.volumes", [{"name": "scratch", "ephemeral": {}}]),
        [*_nodes("node-a"), pvc("p-scratch", "wait-sc", owner_uid="someone-else")],
        _uau("PVC default/p-scratch was not created for pod default/p (pod is not owner)"),
        None,
    ),
    (
        "bound_pv_node_affinity_per_node",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a", "node-b"),
            pvc("pvc-a", "wait-sc", volume="pv-a"),
            pv("pv-a", "wait-sc", affinity=_host("node-b"), claim=("default", "pvc-a")),
        ],
        None,
        [_uau(NODE), None],
    ),
    (
        "unbound_pvc_pv_on_same_node_only",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a", "node-b"),
            pvc("pvc-a", "wait-sc", request="1G"),
            pv("pv-a", "wait-sc", capacity="1G", affinity=_host("node-a")),
        ],
        None,
        [None, _uau(BIND)],
    ),
    (
        "pv_too_small",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a"),
            pvc("pvc-a", "wait-sc", request="5G"),
            pv("pv-a", "wait-sc", capacity="1G"),
        ],
        None,
        [_uau(BIND)],
    ),
    (
        "pv_access_modes_do_not_cover_claim",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a"),
            pvc("pvc-a", "wait-sc", request="1G", modes=("ReadWriteMany",)),
            pv("pv-a", "wait-sc", capacity="1G"),
        ],
        None,
        [_uau(BIND)],
    ),
    (
        "pv_of_another_class",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a"),
            pvc("pvc-a", "wait-sc", request="1G"),
            pv("pv-a", "other-sc", capacity="1G"),
        ],
        None,
        [_uau(BIND)],
    ),
    (
        "pv_already_claimed_by_another_claim",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a"),
            pvc("pvc-a", "wait-sc", request="1G"),
            pv("pv-a", "wait-sc", capacity="1G", claim=("default", "other"), phase="Bound"),
        ],
        None,
        [_uau(BIND)],
    ),
    (
        "selected_node_is_another_node",
        make_pod("p").pvc("pvc-a"),
        [
            *_nodes("node-a", "node-b"),
            pvc(
                "pvc-a",
                "provision-sc",
                annotations={"volume.kubernetes.io/selected-node": "node-b"},
            ),
        ],
        None,
        [_uau(BIND), None],
    ),
    (
        "dynamic_provisioning",
        make_pod("p").pvc("pvc-a"),
        [*_nodes("node-a"), pvc("pvc-a", "provision-sc", request="1G")],
        None,
        [None],
    ),
    (
        "provisioning_against_allowed_topologies",
        make_pod("p").pvc("pvc-a"),
        [
            make_node("node-a").zone("a").obj(),
            make_node("node-b").zone("b").obj(),
            pvc("pvc-a", "topo-sc", request="1G"),
        ],
        None,
        [None, _uau(BIND)],
    ),
    (
        "storage_capacity_tracking",
        make_pod("p").pvc("pvc-a"),
        [
            make_node("node-a").zone("a").obj(),
            make_node("node-b").zone("b").obj(),
            make_node("node-c").zone("c").obj(),
            pvc("pvc-a", "cap-sc", request="10Gi"),
            _capacity("cap-sc", "100Gi", "a"),
            _capacity("cap-sc", "1Gi", "b"),
        ],
        None,
        [None, _uau(SPACE), _uau(SPACE)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "objects", "want_pre", "want_filter"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_volume_binding(pod, objects, want_pre, want_filter):
    h = FakeHandle([*CLASSES, *objects])
    pl = vb.new({}, h)
    p = pod.pod()
    state = CycleState()
    nodes = h.snapshot().node_info_list
    _, st = pl.pre_filter(state, p, nodes)
    assert st == want_pre
    if want_filter is None:
        return
    got = [
        pl.filter(state, p, h.snapshot().get(n.name)) for n in sorted(nodes, key=lambda n: n.name)
    ]
    assert got == want_filter
    # StorageCapacityScoring is off in v1.36: nothing is scored
    assert pl.pre_score(state, p, nodes) == SKIP


def test_smallest_fitting_pv_is_chosen_and_claims_sorted_by_size():
    h = FakeHandle(
        [
            *CLASSES,
            *_nodes("node-a"),
            pvc("small", "wait-sc", request="1G"),
            pvc("big", "wait-sc", request="5G"),
            pv("pv-10", "wait-sc", capacity="10G"),
            pv("pv-5", "wait-sc", capacity="5G"),
            pv("pv-2", "wait-sc", capacity="2G"),
        ]
    )
    pl = vb.new({}, h)
    p = make_pod("p").pvc("big").pvc("small").pod()
    state = CycleState()
    pl.pre_filter(state, p, h.snapshot().node_info_list)
    assert pl.filter(state, p, h.snapshot().get("node-a")) is None
    found = state.read(vb.STATE_KEY).pod_volumes_by_node["node-a"]
    assert [(v.name, c.name) for v, c in found.static_bindings] == [
        ("pv-2", "small"),
        ("pv-5", "big"),
    ]


def test_reserve_assumes_pv_for_the_next_pod_and_unreserve_reverts():
    h = FakeHandle(
        [
            *CLASSES,
            *_nodes("node-a"),
            pvc("c1", "wait-sc", request="1G"),
            pvc("c2", "wait-sc", request="1G"),
            pv("pv-1", "wait-sc", capacity="1G"),
        ]
    )
    pl = vb.new({}, h)
    node = h.snapshot().get("node-a")
    p1, p2 = make_pod("p1").pvc("c1").pod(), make_pod("p2").pvc("c2").pod()
    s1 = CycleState()
    pl.pre_filter(s1, p1, [node])
    assert pl.filter(s1, p1, node) is None
    assert pl.reserve(s1, p1, "node-a") is None
    s2 = CycleState()
    pl.pre_filter(s2, p2, [node])
    assert pl.filter(s2, p2, node) == _uau(BIND)
    pl.unreserve(s1, p1, "node-a")
    s3 = CycleState()
    pl.pre_filter(s3, p2, [node])
    assert pl.filter(s3, p2, node) is None


def test_pre_bind_binds_claims_as_the_pv_controller_would():
    h = FakeHandle(
        [
            *CLASSES,
            *_nodes("node-a"),
            pvc("c1", "wait-sc", request="1G"),
            pvc("c2", "provision-sc", request="3G"),
            pv("pv-1", "wait-sc", capacity="1G"),
        ]
    )
    pl = vb.new({}, h)
    p = make_pod("p").pvc("c1").pvc("c2").pod()
    s = CycleState()
    pl.pre_filter(s, p, h.snapshot().node_info_list)
    assert pl.filter(s, p, h.snapshot().get("node-a")) is None
    assert pl.reserve(s, p, "node-a") is None
    assert pl.pre_bind(s, p, "node-a") is None
    idx = storage_for(h)
    assert idx.pvc("default", "c1").volume_name == "pv-1"
    assert idx.pvc("default", "c1").fully_bound
    assert idx.pv("pv-1").claim_ref == ("default", "c1", "uid-c1")
    provisioned = idx.pvc("default", "c2").volume_name
    assert provisioned == "pvc-uid-c2"
    assert idx.pv(provisioned).csi_driver == "driver-a"
    assert not idx.assumed_pvs and not idx.assumed_pvcs
    # a second pod with the same claims now finds them bound
    s2 = CycleState()
    _, st = pl.pre_filter(s2, make_pod("q").pvc("c1").pod(), h.snapshot().node_info_list)
    assert st is None and s2.read(vb.STATE_KEY).bound_claims[0].name == "c1"


def test_reserve_of_all_bound_pod_skips_pre_bind():
    h = FakeHandle(
        [*CLASSES, *_nodes("node-a"), pvc("c", "wait-sc", volume="pv"), pv("pv", "wait-sc")]
    )
    pl = vb.new({}, h)
    p = make_pod("p").pvc("c").pod()
    s = CycleState()
    pl.pre_filter(s, p, h.snapshot().node_info_list)
    pl.filter(s, p, h.snapshot().get("node-a"))
    assert pl.reserve(s, p, "node-a") is None
    assert s.read(vb.STATE_KEY).all_bound
    assert pl.pre_bind(s, p, "node-a") is None


# -- end to end: FailedScheduling messages (UPSTREAM-FACTS, storage) ------------------


def _run(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    res = simulate(build_cluster(objects), default_config(), seed=1)
    return res.to_dict()["results"]


def _zonal_nodes(n: int) -> list[dict[str, Any]]:
    zones = "abc"
    return [
        make_node(f"node-{i}")
        .cap(cpu="4", memory="8Gi", pods=110)
        .zone(zones[i % 3])
        .labels({HOSTNAME: f"node-{i}"})
        .obj()
        for i in range(n)
    ]


def test_e2e_missing_claim_ends_with_not_found():
    out = _run([*_zonal_nodes(6), make_pod("web").pvc("data-0").obj()])
    assert out[0]["status"] == "Unschedulable"
    assert out[0]["message"] == (
        '0/6 nodes are available: persistentvolumeclaim "data-0" not found. not found'
    )


def test_e2e_claim_bound_to_missing_pv():
    out = _run(
        [
            *_zonal_nodes(3),
            *CLASSES,
            pvc("data", "wait-sc", volume="gone"),
            make_pod("web").pvc("data").obj(),
        ]
    )
    assert out[0]["message"] == (
        '0/3 nodes are available: persistentvolume "gone" not found. not found'
    )


def test_e2e_unbound_immediate_claim():
    out = _run(
        [*_zonal_nodes(3), *CLASSES, pvc("data", "immediate-sc"), make_pod("web").pvc("data").obj()]
    )
    assert out[0]["message"] == (
        "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"
    )


def test_e2e_wait_for_first_consumer_binds_then_next_pod_finds_none():
    zone_b = {ZONE: ["b"]}
    out = _run(
        [
            *_zonal_nodes(3),
            *CLASSES,
            pv("local-1", "wait-sc", capacity="10Gi", affinity=zone_b),
            pvc("d0", "wait-sc", request="5Gi"),
            pvc("d1", "wait-sc", request="5Gi"),
            make_pod("a").req(cpu="1").pvc("d0").obj(),
            make_pod("b").req(cpu="1").pvc("d1").obj(),
        ]
    )
    assert out[0]["status"] == "Scheduled" and out[0]["node"] == "node-1"
    assert out[1]["message"] == (
        "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )


def test_e2e_bound_pv_node_affinity():
    out = _run(
        [
            *_zonal_nodes(3),
            *CLASSES,
            pv("pv-z", "wait-sc", affinity={ZONE: ["c"]}, claim=("default", "data")),
            pvc("data", "wait-sc", volume="pv-z"),
            make_pod("web").pvc("data").obj(),
            make_pod("other").pvc("data").node_selector({ZONE: "a"}).obj(),
        ]
    )
    assert out[0]["node"] == "node-2"
    assert out[1]["message"] == (
        "0/3 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, "
        "2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_the_beta_storage_class_annotation_wins_over_the_spec_field():
    beta = {BETA_STORAGE_CLASS_ANNOTATION: "old-sc"}
    claim = pvc("c", "new-sc", annotations=beta)
    volume = pv("v", "new-sc")
    volume["metadata"]["annotations"] = dict(beta)
    assert ClaimInfo(claim).storage_class == "old-sc"
    assert VolumeInfo(volume).storage_class == "old-sc"
    assert ClaimInfo(pvc("c", "new-sc")).storage_class == "new-sc"
    assert VolumeInfo(pv("v", "new-sc")).storage_class == "new-sc"
    assert ClaimInfo(pvc("c", None)).storage_class == ""
