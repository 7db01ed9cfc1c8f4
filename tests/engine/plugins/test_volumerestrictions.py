"""VolumeRestrictions (upstream volumerestrictions/volume_restrictions_test.go cases)."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine import build_cluster, default_config, simulate
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import volumerestrictions as vr
from tests.engine.builders import make_node, make_pod

from .storage_objects import FakeHandle, pvc

SKIP = Status(Code.SKIP)
DISK = Status(Code.UNSCHEDULABLE, vr.ERR_REASON_DISK_CONFLICT)
RWOP = Status(Code.UNSCHEDULABLE, vr.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)


def _vol(kind: str, **src: Any) -> dict[str, Any]:
    return {"name": f"v-{kind}", kind: src}


def _pod(name: str, *vols: dict[str, Any], node: str | None = None):
    b = make_pod(name).set("spec.volumes", list(vols))
    return b.node(node) if node else b


GCE = _vol("gcePersistentDisk", pdName="foo")
GCE_RO = _vol("gcePersistentDisk", pdName="foo", readOnly=True)
GCE_OTHER = _vol("gcePersistentDisk", pdName="bar")
EBS = _vol("awsElasticBlockStore", volumeID="foo")
EBS_RO = _vol("awsElasticBlockStore", volumeID="foo", readOnly=True)
EBS_OTHER = _vol("awsElasticBlockStore", volumeID="bar")
RBD = _vol("rbd", monitors=["a", "b"], pool="foo", image="bar")
RBD_RO = _vol("rbd", monitors=["a", "b"], pool="foo", image="bar", readOnly=True)
RBD_OTHER_MONS = _vol("rbd", monitors=["c", "d"], pool="foo", image="bar")
RBD_OTHER_IMAGE = _vol("rbd", monitors=["a", "b"], pool="foo", image="baz")
ISCSI = _vol(
    "iscsi", targetPortal="127.0.0.1:3260", iqn="iqn.2016-12.server:storage.target01", lun=0
)
ISCSI_RO = {**ISCSI, "iscsi": {**ISCSI["iscsi"], "readOnly": True}}
ISCSI_OTHER = _vol(
    "iscsi", targetPortal="127.0.0.1:3260", iqn="iqn.2017-12.server:storage.target01", lun=0
)

# (id, new pod volume, existing pod volume on the node, filter status)
DISK_CASES = [
    ("gce_nothing", GCE, None, None),
    ("gce_other_disk", GCE, GCE_OTHER, None),
    ("gce_same_disk", GCE, GCE, DISK),
    ("gce_same_disk_both_read_only", GCE_RO, GCE_RO, None),
    ("gce_same_disk_one_read_only", GCE_RO, GCE, DISK),
    ("ebs_other_disk", EBS, EBS_OTHER, None),
    ("ebs_same_disk", EBS, EBS, DISK),
    ("ebs_same_disk_read_only_still_conflicts", EBS_RO, EBS_RO, DISK),
    ("rbd_same_image", RBD, RBD, DISK),
    ("rbd_no_common_monitor", RBD, RBD_OTHER_MONS, None),
    ("rbd_other_image", RBD, RBD_OTHER_IMAGE, None),
    ("rbd_both_read_only", RBD_RO, RBD_RO, None),
    ("iscsi_same_iqn", ISCSI, ISCSI, DISK),
    ("iscsi_other_iqn", ISCSI, ISCSI_OTHER, None),
    ("iscsi_both_read_only", ISCSI_RO, ISCSI_RO, None),
]


@pytest.mark.parametrize(
    ("vol", "existing", "want"), [c[1:] for c in DISK_CASES], ids=[c[0] for c in DISK_CASES]
)
def test_conflicting_disks(vol, existing, want):
    objs = [make_node("n").obj()]
    if existing is not None:
        objs.append(_pod("old", existing, node="n").obj())
    h = FakeHandle(objs)
    pl = vr.new({}, h)
    p = _pod("p", vol).pod()
    state = CycleState()
    _, st = pl.pre_filter(state, p, h.snapshot().node_info_list)
    assert st is None
    assert pl.filter(state, p, h.snapshot().get("n")) == want


def test_pod_without_restricted_volumes_or_claims_skips():
    h = FakeHandle([make_node("n").obj()])
    pl = vr.new({}, h)
    p = _pod("p", {"name": "e", "emptyDir": {}}).pod()
    assert pl.pre_filter(CycleState(), p, h.snapshot().node_info_list) == (None, SKIP)


RWOP_CLAIM = pvc("claim", "sc", volume="pv", modes=("ReadWriteOncePod",))
RWO_CLAIM = pvc("shared", "sc", volume="pv2")

# (id, objects, pod, pre_filter status, filter status)
RWOP_CASES = [
    (
        "missing_claim",
        [make_node("n").obj()],
        make_pod("p").pvc("nope"),
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolumeclaim "nope" not found'),
        None,
    ),
    (
        "rwop_claim_unused_skips",
        [make_node("n").obj(), RWOP_CLAIM],
        make_pod("p").pvc("claim"),
        SKIP,
        None,
    ),
    (
        "rwop_claim_in_use_on_another_node",
        [
            make_node("n").obj(),
            make_node("m").obj(),
            RWOP_CLAIM,
            make_pod("old").pvc("claim").node("m").obj(),
        ],
        make_pod("p").pvc("claim"),
        None,
        RWOP,
    ),
    (
        "rwo_claim_in_use_is_fine",
        [make_node("n").obj(), RWO_CLAIM, make_pod("old").pvc("shared").node("n").obj()],
        make_pod("p").pvc("shared"),
        SKIP,
        None,
    ),
    (
        "rwop_claim_of_same_name_in_another_namespace",
        [
            make_node("n").obj(),
            RWOP_CLAIM,
            make_pod("old").ns("other").pvc("claim").node("n").obj(),
        ],
        make_pod("p").pvc("claim"),
        SKIP,
        None,
    ),
]


@pytest.mark.parametrize(
    ("objects", "pod", "want_pre", "want_filter"),
    [c[1:] for c in RWOP_CASES],
    ids=[c[0] for c in RWOP_CASES],
)
def test_read_write_once_pod(objects, pod, want_pre, want_filter):
    h = FakeHandle(objects)
    pl = vr.new({}, h)
    p = pod.pod()
    state = CycleState()
    _, st = pl.pre_filter(state, p, h.snapshot().node_info_list)
    assert st == want_pre
    if st is None:
        assert pl.filter(state, p, h.snapshot().get("n")) == want_filter


def test_removing_the_user_frees_the_rwop_claim_for_preemption():
    old = make_pod("old").pvc("claim").node("n").obj()
    h = FakeHandle([make_node("n").obj(), RWOP_CLAIM, old])
    pl = vr.new({}, h)
    p = make_pod("p").pvc("claim").pod()
    state = CycleState()
    pl.pre_filter(state, p, h.snapshot().node_info_list)
    ni = h.snapshot().get("n")
    copy = state.clone()
    victim = ni.pods[0]
    assert pl.pre_filter_extensions().remove_pod(copy, p, victim, ni) is None
    assert pl.filter(copy, p, ni) is None
    assert pl.filter(state, p, ni) == RWOP
    assert pl.pre_filter_extensions().add_pod(copy, p, victim, ni) is None
    assert pl.filter(copy, p, ni) == RWOP


def test_e2e_rwop_conflict_message():
    objs = [
        make_node("n0").cap(cpu="4", memory="8Gi", pods=110).obj(),
        make_node("n1").cap(cpu="4", memory="8Gi", pods=110).obj(),
        RWOP_CLAIM,
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv"},
            "spec": {"storageClassName": "sc"},
        },
        make_pod("old").pvc("claim").node("n0").priority(10).obj(),
        make_pod("new").pvc("claim").priority(10).obj(),
    ]
    out = simulate(build_cluster(objs), default_config(), seed=1).to_dict()["results"]
    assert out[0]["message"] == (
        "0/2 nodes are available: 2 node(s) unavailable due to PersistentVolumeClaim with "
        "ReadWriteOncePod access mode already in-use by another pod. no new claims to deallocate, "
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
    )


def test_e2e_preemption_frees_rwop_claim():
    objs = [
        make_node("n0").cap(cpu="4", memory="8Gi", pods=110).obj(),
        RWOP_CLAIM,
        {
            "kind": "PersistentVolume",
            "metadata": {"name": "pv"},
            "spec": {"storageClassName": "sc"},
        },
        make_pod("old").pvc("claim").node("n0").priority(1).obj(),
        make_pod("new").pvc("claim").priority(100).obj(),
    ]
    out = simulate(build_cluster(objs), default_config(), seed=1).to_dict()["results"]
    # bound after preempting: the nomination is cleared at binding, as in v1.36
    assert (out[0]["status"], out[0]["node"], out[0]["nominatedNode"]) == ("Scheduled", "n0", None)
    assert out[0]["victims"] == ["default/old"]
