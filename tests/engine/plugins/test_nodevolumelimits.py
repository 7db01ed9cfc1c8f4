"""NodeVolumeLimits (upstream nodevolumelimits/csi_test.go cases)."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine import build_cluster, default_config, simulate
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import nodevolumelimits as nvl
from tests.engine.builders import make_node, make_pod

from .storage_objects import FakeHandle, csinode, pv, pvc, storage_class

SKIP = Status(Code.SKIP)
EXCEEDED = Status(Code.UNSCHEDULABLE, nvl.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"

STORAGE = [
    storage_class("csi-sc", provisioner=EBS),
    storage_class("csi-sc-2", provisioner=GCE),
    storage_class("intree-sc", provisioner="kubernetes.io/aws-ebs"),
    *[pv(f"csi-ebs-{i}", "csi-sc", csi=(EBS, f"vol-{i}"), phase="Bound") for i in range(4)],
    pv("csi-gce-0", "csi-sc-2", csi=(GCE, "gce-0"), phase="Bound"),
    pv("intree-ebs-0", "", source={"awsElasticBlockStore": {"volumeID": "aws://us-east-1a/vol-9"}}),
    *[pvc(f"ebs-{i}", "csi-sc", volume=f"csi-ebs-{i}") for i in range(4)],
    pvc("ebs-dup", "csi-sc", volume="csi-ebs-0"),
    pvc("gce-0", "csi-sc-2", volume="csi-gce-0"),
    pvc("unbound-0", "csi-sc"),
    pvc("unbound-1", "csi-sc"),
    pvc("intree-0", "", volume="intree-ebs-0"),
    pvc("intree-unbound", "intree-sc"),
    pvc("missing-pv", "csi-sc", volume="no-such-pv"),
]


def _pod(
    name: str, *claims: str, node: str | None = None, inline: list[dict[str, Any]] | None = None
):
    b = make_pod(name)
    for c in claims:
        b.pvc(c)
    if inline:
        b.set("spec.volumes", [*(b.obj()["spec"].get("volumes") or []), *inline])
    return b.node(node) if node else b


# (id, new pod claims, existing pods' claims, CSINode limits (None: no CSINode), status)
CASES = [
    ("fits_under_limit", ["ebs-0"], [["ebs-1"]], {EBS: 2}, None),
    ("exceeds_limit", ["ebs-0", "ebs-1"], [["ebs-2"]], {EBS: 2}, EXCEEDED),
    ("same_volume_already_attached_counts_once", ["ebs-0"], [["ebs-0"], ["ebs-1"]], {EBS: 2}, None),
    ("two_claims_same_pv_count_once", ["ebs-dup"], [["ebs-0"], ["ebs-1"]], {EBS: 2}, None),
    ("other_driver_not_limited", ["gce-0"], [["ebs-0"], ["ebs-1"]], {EBS: 2}, None),
    ("limit_per_driver", ["gce-0"], [["ebs-0"]], {EBS: 1, GCE: 0}, EXCEEDED),
    ("no_csinode_no_limit", ["ebs-0", "ebs-1", "ebs-2"], [], None, None),
    ("driver_without_allocatable_count", ["ebs-0", "ebs-1"], [], {EBS: None}, None),
    (
        "unbound_claims_count_for_provisioner",
        ["unbound-0", "unbound-1"],
        [["ebs-0"]],
        {EBS: 2},
        EXCEEDED,
    ),
    ("unbound_claim_under_limit", ["unbound-0"], [["ebs-0"]], {EBS: 2}, None),
    ("claim_of_missing_pv_counts_by_class", ["missing-pv"], [["ebs-0"]], {EBS: 1}, EXCEEDED),
    ("migrated_intree_pv_counts_for_csi_driver", ["intree-0"], [["ebs-0"]], {EBS: 1}, EXCEEDED),
    ("migrated_intree_provisioner", ["intree-unbound"], [["ebs-0"]], {EBS: 1}, EXCEEDED),
    ("existing_pod_missing_claim_ignored", ["ebs-0"], [["gone"]], {EBS: 1}, None),
]


@pytest.mark.parametrize(
    ("claims", "existing", "limits", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_csi_limits(claims, existing, limits, want):
    objs = [*STORAGE, make_node("n").obj()]
    if limits is not None:
        objs.append(csinode("n", limits))
    objs += [_pod(f"old-{i}", *c, node="n").obj() for i, c in enumerate(existing)]
    h = FakeHandle(objs)
    pl = nvl.new({}, h)
    p = _pod("p", *claims).pod()
    state = CycleState()
    assert pl.pre_filter(state, p, h.snapshot().node_info_list) == (None, None)
    assert pl.filter(state, p, h.snapshot().get("n")) == want


def test_pod_without_claims_skips():
    h = FakeHandle([make_node("n").obj()])
    p = _pod("p", inline=[{"name": "e", "emptyDir": {}}]).pod()
    assert nvl.new({}, h).pre_filter(CycleState(), p, []) == (None, SKIP)


def test_inline_intree_volume_counts_on_node_with_csinode():
    h = FakeHandle(
        [
            *STORAGE,
            make_node("n").obj(),
            csinode("n", {EBS: 1}),
            _pod("old", "ebs-0", node="n").obj(),
        ]
    )
    pl = nvl.new({}, h)
    p = _pod("p", inline=[{"name": "x", "awsElasticBlockStore": {"volumeID": "vol-77"}}]).pod()
    state = CycleState()
    assert pl.pre_filter(state, p, []) == (None, None)
    assert pl.filter(state, p, h.snapshot().get("n")) == EXCEEDED


def test_missing_claim_of_new_pod_is_unresolvable():
    h = FakeHandle([*STORAGE, make_node("n").obj(), csinode("n", {EBS: 1})])
    pl = nvl.new({}, h)
    p = _pod("p", "nope").pod()
    assert pl.filter(CycleState(), p, h.snapshot().get("n")) == Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        'looking up PVC default/nope: persistentvolumeclaim "nope" not found',
    )


def test_volume_attachments_count():
    va = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "VolumeAttachment",
        "metadata": {"name": "va-1"},
        "spec": {"attacher": EBS, "nodeName": "n", "source": {"persistentVolumeName": "csi-ebs-3"}},
    }
    h = FakeHandle([*STORAGE, make_node("n").obj(), csinode("n", {EBS: 1}), va])
    pl = nvl.new({}, h)
    p = _pod("p", "ebs-0").pod()
    assert pl.filter(CycleState(), p, h.snapshot().get("n")) == EXCEEDED


def test_e2e_max_volume_count_and_preemption_frees_slot():
    objs = [
        *STORAGE,
        make_node("n0").cap(cpu="4", memory="8Gi", pods=110).obj(),
        csinode("n0", {EBS: 1}),
        _pod("old", "ebs-0", node="n0").priority(1).obj(),
        _pod("same", "ebs-1").priority(1).obj(),
    ]
    out = simulate(build_cluster(objs), default_config(), seed=1).to_dict()["results"]
    assert out[0]["message"] == (
        "0/1 nodes are available: 1 node(s) exceed max volume count. no new claims to "
        "deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found "
        "for incoming pod."
    )
    objs[-1] = _pod("important", "ebs-1").priority(100).obj()
    out = simulate(build_cluster(objs), default_config(), seed=1).to_dict()["results"]
    # bound after preempting: the nomination is cleared at binding, as in v1.36
    assert (out[0]["status"], out[0]["node"], out[0]["nominatedNode"]) == ("Scheduled", "n0", None)
    assert out[0]["victims"] == ["default/old"]
