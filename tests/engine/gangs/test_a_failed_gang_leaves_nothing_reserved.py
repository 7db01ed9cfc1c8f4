"""A gang that fails gives back all it held: resources, DRA devices and volumes, in both APIs.

Two nodes, each with one GPU (a DRA device) and one local volume
(WaitForFirstConsumer). A gang of three, each member needing a device and a
volume, gets two members assumed, then the third fits nowhere: the group is
rejected. Ordinary pods queued after it then need every device and every
volume, which they get only if the gang's members were unreserved in full.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate
from tests.engine.builders import HOSTNAME_LABEL, make_node, make_pod
from tests.engine.gangs.helpers import GANG_GATES, native_pod_group
from tests.engine.gangs.test_coscheduling import CONFIG, LABEL, REGISTRY, config, pod_group
from tests.engine.plugins.storage_objects import pv, pvc, storage_class
from tests.engine.plugins.test_dynamicresources import GPU, dclass, gpus, rclaim, req

LATER = "2026-01-01T00:01:00Z"


def cluster() -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [
        dclass(GPU, f'device.driver == "{GPU}"'),
        storage_class("local"),
    ]
    for n in ("n0", "n1"):
        objs += [
            make_node(n).cap(cpu="8", memory="32Gi").obj(),
            gpus(n, 1),
            pv(f"pv-{n}", "local", capacity="10Gi", affinity={HOSTNAME_LABEL: [n]}),
        ]
    return objs


def needs(name: str, *, device: bool, volume: bool) -> dict[str, Any]:
    """A pod with its own claim on one GPU and/or its own local volume (and their objects)."""
    p = make_pod(name).req(cpu="1").created("2026-01-01T00:00:01Z")
    if volume:
        p = p.pvc(f"{name}-data")
    obj = p.obj()
    if device:
        obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]
    return obj


def claims(name: str, *, device: bool, volume: bool) -> list[dict[str, Any]]:
    out = []
    if device:
        out.append(rclaim(f"{name}-gpu", req(cls=GPU)))
    if volume:
        out.append(pvc(f"{name}-data", "local", request="1Gi"))
    return out


def gang_member(api: str, name: str) -> dict[str, Any]:
    obj = needs(name, device=True, volume=True)
    if api == "coscheduling":
        obj["metadata"].setdefault("labels", {})[LABEL] = "train"
    else:
        obj["spec"]["schedulingGroup"] = {"podGroupName": "train"}
    return obj


def ordinary(name: str, **what: bool) -> dict[str, Any]:
    obj = needs(name, **what)
    obj["metadata"]["creationTimestamp"] = LATER
    obj["spec"]["priority"] = -10  # queued after the gang in either API's sort
    return obj


def run(api: str, cfg: Any = CONFIG, **group: Any) -> dict[str, dict[str, Any]]:
    objs = cluster()
    for i in range(3):
        objs += [gang_member(api, f"train-{i}"), *claims(f"train-{i}", device=True, volume=True)]
    for i in range(2):
        objs += [ordinary(f"gpu-user-{i}", device=True, volume=False)]
        objs += claims(f"gpu-user-{i}", device=True, volume=False)
        objs += [ordinary(f"vol-user-{i}", device=False, volume=True)]
        objs += claims(f"vol-user-{i}", device=False, volume=True)
    if api == "coscheduling":
        objs.append(pod_group("train", 3, **group))
        res = simulate(build_cluster(objs), cfg, registry=REGISTRY)
    else:
        objs.append(native_pod_group("train", 3))
        res = simulate(build_cluster(objs), feature_gates=GANG_GATES)
    return {r["pod"]: r for r in res.to_dict()["results"]}


@pytest.mark.parametrize("api", ["coscheduling", "native"])
def test_the_devices_and_volumes_of_a_rejected_gang_go_to_the_pods_after_it(api: str) -> None:
    rs = run(api)
    gang = {k: r for k, r in rs.items() if k.startswith("default/train-")}
    assert [r["node"] for r in gang.values()] == [None, None, None]
    assert {r["status"] for r in gang.values()} == {"Unschedulable"}
    others = {k: r["node"] for k, r in rs.items() if k not in gang}
    # every device and every volume is free again: each ordinary pod gets one
    assert sorted(others.values()) == ["n0", "n0", "n1", "n1"], others
    assert {others["default/gpu-user-0"], others["default/gpu-user-1"]} == {"n0", "n1"}
    assert {others["default/vol-user-0"], others["default/vol-user-1"]} == {"n0", "n1"}


def test_the_rejected_members_say_why_in_each_api() -> None:
    def said(rs: dict[str, dict[str, Any]], pod: str) -> list[str]:
        return [e["message"] for e in rs[f"default/{pod}"]["events"]]

    cos = run("coscheduling")
    assert "0/1 nodes are available: 1 optimistic rejection in PostFilter." in said(cos, "train-0")
    assert said(cos, "train-2")[0].endswith(
        "PodGroup default/train gets rejected due to Pod train-2 is unschedulable even after "
        "PostFilter"
    )
    native = run("native")
    assert said(native, "train-0")[0].startswith(
        "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled"
    )


def test_a_gang_that_times_out_gives_back_its_devices_and_volumes() -> None:
    # the quorum gap (1 of 3) is under podGroupRejectPercentage 50: nothing rejects the
    # two waiting members; they hold their devices and volumes until the first times
    # out, whose Unreserve rejects the other; then the ordinary pods turned away
    # meanwhile are tried again and get everything
    rs = run("coscheduling", config({"podGroupRejectPercentage": 50}), scheduleTimeoutSeconds=5)
    gang = {k: r for k, r in rs.items() if k.startswith("default/train-")}
    said = [e["message"] for r in gang.values() for e in r["events"]]
    assert (
        said.count(
            "0/1 nodes are available: 1 rejected due to timeout after waiting 5s at plugin Coscheduling."
        )
        == 1
    )
    assert "0/1 nodes are available: 1 rejection in Unreserve." in said
    assert [r["node"] for r in gang.values()] == [None, None, None]
    others = {k: r for k, r in rs.items() if k not in gang}
    assert sorted(r["node"] for r in others.values()) == ["n0", "n0", "n1", "n1"]
    for r in others.values():
        # turned away while the gang held the room, placed after it timed out
        reasons = [e["reason"] for e in r["events"]]
        assert (reasons[0], reasons[-1]) == ("FailedScheduling", "Scheduled"), r
