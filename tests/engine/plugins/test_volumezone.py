"""VolumeZone (upstream volumezone/volume_zone_test.go cases)."""

from __future__ import annotations

import pytest

from scheduler_engine import build_cluster, default_config, simulate
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import volumezone as vz
from tests.engine.builders import make_node, make_pod

from .storage_objects import (
    BETA_REGION,
    BETA_ZONE,
    REGION,
    ZONE,
    FakeHandle,
    pv,
    pvc,
    storage_class,
)

SKIP = Status(Code.SKIP)
CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, vz.ERR_REASON_CONFLICT)


def _uau(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)


OBJECTS = [
    storage_class("Class_0", mode="Immediate"),
    storage_class("Class_Wait", mode="WaitForFirstConsumer"),
    pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", labels={BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", labels={BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", labels={REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Multi", labels={BETA_ZONE: "us-west1-a__us-west1-b"}),
    pv("Vol_Broken", labels={ZONE: "us-west1-a__"}),
    pvc("PVC_1", volume="Vol_1"),
    pvc("PVC_2", volume="Vol_2"),
    pvc("PVC_3", volume="Vol_3"),
    pvc("PVC_4", volume="Vol_not_exist"),
    pvc("PVC_Stable_1", volume="Vol_Stable_1"),
    pvc("PVC_Stable_2", volume="Vol_Stable_2"),
    pvc("PVC_Multi", volume="Vol_Multi"),
    pvc("PVC_Broken", volume="Vol_Broken"),
    pvc("PVC_NoSC", sc=None),
    pvc("PVC_EmptySC", sc="Class_0"),
    pvc("PVC_WaitSC", sc="Class_Wait"),
    pvc("PVC_MissingSC", sc="Class_Missing"),
]

# (id, claims, node labels, pre_filter status, filter status)
CASES = [
    ("pod_without_volume", [], {"a": "b"}, SKIP, None),
    ("node_without_labels", ["PVC_1"], {}, None, None),
    (
        "beta_zone_label_matched",
        ["PVC_1"],
        {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "beta_region_label_matched",
        ["PVC_2"],
        {BETA_REGION: "us-west1", "uselessLabel": "none"},
        None,
        None,
    ),
    (
        "beta_region_label_doesnt_match",
        ["PVC_2"],
        {BETA_REGION: "no_us-west1", "uselessLabel": "none"},
        None,
        CONFLICT,
    ),
    (
        "beta_zone_label_doesnt_match",
        ["PVC_1"],
        {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"},
        None,
        CONFLICT,
    ),
    (
        "zone_label_matched",
        ["PVC_Stable_1"],
        {ZONE: "us-west1-a", "uselessLabel": "none"},
        None,
        None,
    ),
    ("region_label_matched", ["PVC_Stable_2"], {REGION: "us-west1"}, None, None),
    ("region_label_doesnt_match", ["PVC_Stable_2"], {REGION: "no_us-west1"}, None, CONFLICT),
    ("zone_label_doesnt_match", ["PVC_Stable_1"], {ZONE: "no_us-west1-a"}, None, CONFLICT),
    ("pv_beta_label_matches_node_ga_label", ["PVC_1"], {ZONE: "us-west1-a"}, None, None),
    ("pv_beta_label_against_other_node_ga_label", ["PVC_1"], {ZONE: "us-west1-b"}, None, CONFLICT),
    (
        "two_pvs_both_must_match",
        ["PVC_1", "PVC_3"],
        {BETA_ZONE: "us-west1-a", BETA_REGION: "us-west1"},
        None,
        None,
    ),
    (
        "two_pvs_one_misses",
        ["PVC_1", "PVC_3"],
        {BETA_ZONE: "us-west1-a", BETA_REGION: "us-east1"},
        None,
        CONFLICT,
    ),
    ("multi_zone_label", ["PVC_Multi"], {BETA_ZONE: "us-west1-b"}, None, None),
    ("malformed_label_ignored", ["PVC_Broken"], {ZONE: "elsewhere"}, SKIP, None),
    (
        "pvc_not_found",
        ["PVC_NotExist"],
        {ZONE: "a"},
        _uau('persistentvolumeclaim "PVC_NotExist" not found'),
        None,
    ),
    (
        "pv_not_found",
        ["PVC_4"],
        {ZONE: "a"},
        _uau('persistentvolume "Vol_not_exist" not found'),
        None,
    ),
    (
        "unbound_claim_without_class",
        ["PVC_NoSC"],
        {ZONE: "a"},
        _uau("PersistentVolumeClaim had no pv name and storageClass name"),
        None,
    ),
    (
        "unbound_claim_of_missing_class",
        ["PVC_MissingSC"],
        {ZONE: "a"},
        _uau('storageclass.storage.k8s.io "Class_Missing" not found'),
        None,
    ),
    (
        "unbound_immediate_claim",
        ["PVC_EmptySC"],
        {ZONE: "a"},
        _uau("PersistentVolume had no name"),
        None,
    ),
    ("unbound_wait_for_first_consumer_claim_skipped", ["PVC_WaitSC"], {ZONE: "a"}, SKIP, None),
]


@pytest.mark.parametrize(
    ("claims", "labels", "want_pre", "want_filter"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_volume_zone(claims, labels, want_pre, want_filter):
    h = FakeHandle([*OBJECTS, make_node("host1").labels(labels).obj()])
    pl = vz.new({}, h)
    b = make_pod("p")
    for c in claims:
        b.pvc(c)
    p = b.pod()
    state = CycleState()
    _, st = pl.pre_filter(state, p, h.snapshot().node_info_list)
    assert st == want_pre
    if st is None:
        assert pl.filter(state, p, h.snapshot().get("host1")) == want_filter


def test_e2e_no_available_volume_zone():
    objs = [
        *[make_node(f"n-{z}").cap(cpu="4", memory="8Gi", pods=110).zone(z).obj() for z in "abc"],
        pv("disk", labels={ZONE: "b"}),
        pvc("data", volume="disk"),
        make_pod("web").pvc("data").obj(),
        make_pod("pinned").pvc("data").node_selector({ZONE: "a"}).obj(),
    ]
    out = simulate(build_cluster(objs), default_config(), seed=1).to_dict()["results"]
    assert out[0]["node"] == "n-b"
    assert out[1]["message"] == (
        "0/3 nodes are available: 1 node(s) had no available volume zone, "
        "2 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
