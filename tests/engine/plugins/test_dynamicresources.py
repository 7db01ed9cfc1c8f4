"""DynamicResources: upstream v1.36 cases (dynamicresources_test.go, the structured
allocator's tests) as facts, the CEL environment, and end-to-end messages."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scheduler_engine import build_cluster, default_config, simulate
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.interfaces import NodeScore, NodeToStatus
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import dynamicresources as dra
from scheduler_engine.plugins.dynamicresources.cel import (
    CELError,
    compile_selector,
    device_variables,
)
from tests.engine.builders import make_node, make_pod

DRIVER = "some-driver"
CLASS = "my-resource-class"
POD = "my-pod"
POD_UID = "1234"
CLAIM = "my-pod-my-resource"
ATTR = "healthy"


# -- object helpers (shapes of resource.k8s.io/v1) -------------------------------------


def device(name: str, attrs: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name}
    if attrs:
        d["attributes"] = attrs
    d.update(extra)
    return d


def rslice(
    node: str | None,
    *devices: dict[str, Any],
    driver: str = DRIVER,
    pool: str | None = None,
    name: str | None = None,
    generation: int = 1,
    count: int = 1,
    **spec: Any,
) -> dict[str, Any]:
    s: dict[str, Any] = {
        "driver": driver,
        "pool": {
            "name": pool or node or "pool",
            "generation": generation,
            "resourceSliceCount": count,
        },
        "devices": list(devices),
    }
    if node:
        s["nodeName"] = node
    s.update(spec)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name or f"{node or pool}-{driver}"},
        "spec": s,
    }


def dclass(name: str = CLASS, *exprs: str, **spec: Any) -> dict[str, Any]:
    sp: dict[str, Any] = dict(spec)
    if exprs:
        sp["selectors"] = [{"cel": {"expression": e}} for e in exprs]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": sp,
    }


def exactly(cls: str = CLASS, count: int = 1, *exprs: str, **extra: Any) -> dict[str, Any]:
    e: dict[str, Any] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if exprs:
        e["selectors"] = [{"cel": {"expression": x}} for x in exprs]
    e.update(extra)
    return e


def rclaim(
    name: str = CLAIM,
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    owner_uid: str | None = None,
) -> dict[str, Any]:
    reqs = list(requests) or [{"name": "req-1", "exactly": exactly()}]
    c: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"devices": {"requests": reqs}},
    }
    if constraints:
        c["spec"]["devices"]["constraints"] = constraints
    if owner_uid is not None:
        c["metadata"]["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": POD, "uid": owner_uid, "controller": True}
        ]
    return c


def req(name: str = "req-1", **exact: Any) -> dict[str, Any]:
    count = exact.pop("count", 1)
    cls = exact.pop("cls", CLASS)
    exprs = exact.pop("exprs", ())
    return {"name": name, "exactly": exactly(cls, count, *exprs, **exact)}


def allocated(
    claim: dict[str, Any], node: str | None, *devs: str, driver: str = DRIVER
) -> dict[str, Any]:
    c = copy.deepcopy(claim)
    alloc: dict[str, Any] = {
        "devices": {
            "results": [
                {"request": "req-1", "driver": driver, "pool": node or "pool", "device": d}
                for d in devs
            ]
        }
    }
    if node:
        alloc["nodeSelector"] = {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
            ]
        }
    c.setdefault("status", {})["allocation"] = alloc
    return c


def pod_with_claim(claim_name: str = CLAIM, name: str = POD, uid: str = POD_UID) -> dict[str, Any]:
    p = make_pod(name).uid(uid).obj()
    p["spec"]["resourceClaims"] = [{"name": "my-resource", "resourceClaimName": claim_name}]
    return p


def pod_with_template(status: bool, uid: str = POD_UID) -> dict[str, Any]:
    p = make_pod(POD).uid(uid).obj()
    p["spec"]["resourceClaims"] = [{"name": "my-resource", "resourceClaimTemplateName": "tmpl"}]
    if status:
        p["status"] = {
            "resourceClaimStatuses": [{"name": "my-resource", "resourceClaimName": CLAIM}]
        }
    return p


def worker(name: str = "worker") -> dict[str, Any]:
    return (
        make_node(name)
        .cap(cpu="8", memory="16Gi", pods=110)
        .labels(**{"kubernetes.io/hostname": name})
        .obj()
    )


class _Handle:
    def __init__(self, objs: list[dict[str, Any]]) -> None:
        self.cluster = build_cluster(objs)


def setup(objs: list[dict[str, Any]]) -> tuple[dra.DynamicResources, Any, list[NodeInfo]]:
    h = _Handle(objs)
    pl = dra.new({}, h)
    pods = [p for p in h.cluster.pods if not p.node_name]
    nodes = [NodeInfo(n, i) for i, n in enumerate(h.cluster.nodes)]
    return pl, pods[0] if pods else None, nodes


def run_filter(objs: list[dict[str, Any]]) -> tuple[Any, dict[str, Status | None], CycleState]:
    pl, pod, nodes = setup(objs)
    state = CycleState()
    _, s = pl.pre_filter(state, pod, nodes)
    if s is not None:
        return s, {}, state
    return None, {n.node.name: pl.filter(state, pod, n) for n in nodes}, state


# -- PreEnqueue --------------------------------------------------------------------------

PRE_ENQUEUE = [
    ("no-claims", [make_pod(POD).obj()], None),
    (
        "template-claim-not-created-yet",
        [pod_with_template(False)],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'pod "default/my-pod": ResourceClaim not created yet',
        ),
    ),
    (
        "deleted-claim",
        [
            pod_with_template(True),
            {
                **rclaim(owner_uid=POD_UID),
                "metadata": {
                    **rclaim(owner_uid=POD_UID)["metadata"],
                    "deletionTimestamp": "2024-01-01T00:00:00Z",
                },
            },
        ],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'resourceclaim "my-pod-my-resource" is being deleted',
        ),
    ),
    (
        "wrong-claim-owner",
        [pod_with_template(True), rclaim(owner_uid=POD_UID + "123")],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "ResourceClaim default/my-pod-my-resource was not created for Pod default/my-pod (Pod is not owner)",
        ),
    ),
    ("template-claim-owned-by-pod", [pod_with_template(True), rclaim(owner_uid=POD_UID)], None),
    (
        "claim-does-not-exist",
        [pod_with_claim("nope")],
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'could not find ResourceClaim "default/nope"'),
    ),
    ("claim-by-name", [pod_with_claim(), rclaim()], None),
]


@pytest.mark.parametrize(
    ("objs", "want"), [c[1:] for c in PRE_ENQUEUE], ids=[c[0] for c in PRE_ENQUEUE]
)
def test_pre_enqueue(objs: list[dict[str, Any]], want: Status | None) -> None:
    pl, pod, _ = setup(objs)
    got = pl.pre_enqueue(pod)
    assert got == want
    if want is not None:
        assert got.code == want.code


# -- PreFilter -----------------------------------------------------------------------------

PRE_FILTER = [
    ("no-claims-skips", [worker(), make_pod(POD).obj()], Status(Code.SKIP)),
    (
        "missing-class",
        [worker(), pod_with_claim(), rclaim()],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            f"request req-1: device class {CLASS} does not exist",
        ),
    ),
    (
        "missing-class-of-subrequest",
        [
            worker(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                {
                    "name": "req-1",
                    "firstAvailable": [
                        {
                            "name": "subreq-1",
                            "deviceClassName": "does-not-exist",
                            "allocationMode": "ExactCount",
                            "count": 1,
                        }
                    ],
                },
            ),
        ],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "request req-1/subreq-1: device class does-not-exist does not exist",
        ),
    ),
    (
        "unknown-request-type",
        [worker(), dclass(), pod_with_claim(), rclaim(CLAIM, {"name": "req-1"})],
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "resource claim default/my-pod-my-resource, request req-1: unknown request type",
        ),
    ),
    (
        "allocated-claim-needs-no-class",
        [worker(), pod_with_claim(), allocated(rclaim(), "worker", "instance-1")],
        None,
    ),
    ("class-exists", [worker(), dclass(), pod_with_claim(), rclaim()], None),
]


@pytest.mark.parametrize(
    ("objs", "want"), [c[1:] for c in PRE_FILTER], ids=[c[0] for c in PRE_FILTER]
)
def test_pre_filter(objs: list[dict[str, Any]], want: Status | None) -> None:
    pl, pod, nodes = setup(objs)
    state = CycleState()
    _, got = pl.pre_filter(state, pod, nodes)
    assert got == want
    if want is not None:
        assert got.code == want.code
        # PostFilter after a PreFilter rejection: the state has no claims
        _, pf = pl.post_filter(state, pod, NodeToStatus())
        assert pf == Status(Code.UNSCHEDULABLE, "no new claims to deallocate")


# -- Filter: the allocator, node by node -------------------------------------------------------

UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
CANNOT = Status(UNRES, "cannot allocate all claims")
NOT_AVAILABLE = Status(UNRES, "resourceclaim not available on the node")
BROKEN = f'device.attributes["{DRIVER}"].{ATTR}'
HEALTHY = {ATTR: {"bool": True}}
GPU = "gpu.example.com"


def gpus(node: str, n: int, product: str = "A100", **dev_extra: Any) -> dict[str, Any]:
    return rslice(
        node,
        *[
            device(
                f"gpu-{i}",
                {"productName": {"string": product}, "index": {"int": i}},
                capacity={"memory": {"value": "80Gi"}},
                **dev_extra,
            )
            for i in range(n)
        ],
        driver=GPU,
    )


FILTER = [
    ("no-resources", [worker(), dclass(), pod_with_claim(), rclaim()], {"worker": CANNOT}),
    (
        "with-resources",
        [worker(), dclass(), pod_with_claim(), rclaim(), rslice("worker", device("instance-1"))],
        {"worker": None},
    ),
    (
        "device-used-by-other-allocated-claim",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice("worker", device("instance-1")),
            allocated(rclaim("other"), "worker", "instance-1"),
        ],
        {"worker": CANNOT},
    ),
    (
        "admin-access-ignores-allocated-devices",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(adminAccess=True)),
            rslice("worker", device("instance-1")),
            allocated(rclaim("other"), "worker", "instance-1"),
        ],
        {"worker": None},
    ),
    (
        "allocated-admin-access-claim-does-not-block",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice("worker", device("instance-1")),
            (
                lambda c: (
                    c["status"]["allocation"]["devices"]["results"][0].update(adminAccess=True),
                    c,
                )[1]
            )(allocated(rclaim("other"), "worker", "instance-1")),
        ],
        {"worker": None},
    ),
    (
        "wrong-topology",
        [worker(), pod_with_claim(), allocated(rclaim(), "other-node", "instance-1")],
        {"worker": NOT_AVAILABLE},
    ),
    (
        "good-topology",
        [worker(), pod_with_claim(), allocated(rclaim(), "worker", "instance-1")],
        {"worker": None},
    ),
    (
        "allocated-for-all-nodes",
        [worker(), pod_with_claim(), allocated(rclaim(), None, "instance-1")],
        {"worker": None},
    ),
    (
        "claim-CEL-runtime-error",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(exprs=(BROKEN,))),
            rslice("worker", device("instance-1")),
        ],
        {
            "worker": Status(
                Code.ERROR,
                f"claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: {ATTR}",
            )
        },
    ),
    (
        "class-CEL-runtime-error",
        [
            worker(),
            dclass(CLASS, BROKEN),
            pod_with_claim(),
            rclaim(),
            rslice("worker", device("instance-1")),
        ],
        {
            "worker": Status(
                Code.ERROR,
                f"class my-resource-class: selector #0: CEL runtime error: no such key: {ATTR}",
            )
        },
    ),
    (
        "CEL-selector-matches-on-one-node-only",
        [
            worker(),
            worker("worker-2"),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(exprs=(f'has(device.attributes["{DRIVER}"].{ATTR})',))),
            rslice("worker", device("instance-1")),
            rslice("worker-2", device("instance-1", HEALTHY)),
        ],
        {"worker": CANNOT, "worker-2": None},
    ),
    (
        "count-larger-than-devices",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(count=2)),
            rslice("worker", device("instance-1")),
        ],
        {"worker": CANNOT},
    ),
    (
        "two-requests-two-devices",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req("a"), req("b")),
            rslice("worker", device("instance-1"), device("instance-2")),
        ],
        {"worker": None},
    ),
    (
        "all-mode-takes-every-matching-device",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                {"name": "req-1", "exactly": {"deviceClassName": CLASS, "allocationMode": "All"}},
            ),
            rslice("worker", device("instance-1"), device("instance-2")),
        ],
        {"worker": None},
    ),
    (
        "all-mode-without-devices",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                {"name": "req-1", "exactly": {"deviceClassName": CLASS, "allocationMode": "All"}},
            ),
        ],
        {"worker": CANNOT},
    ),
    (
        "all-mode-with-one-device-in-use",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                {"name": "req-1", "exactly": {"deviceClassName": CLASS, "allocationMode": "All"}},
            ),
            rslice("worker", device("instance-1"), device("instance-2")),
            allocated(rclaim("other"), "worker", "instance-1"),
        ],
        {"worker": CANNOT},
    ),
    (
        "all-mode-incomplete-pool-is-an-error",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                {"name": "req-1", "exactly": {"deviceClassName": CLASS, "allocationMode": "All"}},
            ),
            rslice("worker", device("instance-1"), count=2),
        ],
        {
            "worker": Status(
                Code.ERROR,
                "claim default/my-pod-my-resource, request req-1: asks for all devices, but resource pool some-driver/worker is currently being updated",
            )
        },
    ),
    (
        "incomplete-pool-is-skipped",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice("worker", device("instance-1"), count=2),
        ],
        {"worker": CANNOT},
    ),
    (
        "only-newest-generation-counts",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(exprs=(f'has(device.attributes["{DRIVER}"].{ATTR})',))),
            rslice("worker", device("instance-1", HEALTHY), name="old", generation=1),
            rslice("worker", device("instance-1"), name="new", generation=2),
        ],
        {"worker": CANNOT},
    ),
    (
        "newest-generation-has-the-device",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(exprs=(f'has(device.attributes["{DRIVER}"].{ATTR})',))),
            rslice("worker", device("instance-1"), name="old", generation=1),
            rslice("worker", device("instance-1", HEALTHY), name="new", generation=2),
        ],
        {"worker": None},
    ),
    (
        "duplicate-device-names-make-the-pool-invalid",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice("worker", device("instance-1"), name="a", count=2),
            rslice("worker", device("instance-1"), name="b", count=2),
        ],
        {"worker": Status(UNRES, "invalid resource pools were encountered")},
    ),
    (
        "node-selector-slice",
        [
            worker(),
            worker("worker-2"),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice(
                None,
                device("instance-1"),
                pool="net",
                nodeSelector={
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/hostname",
                                    "operator": "In",
                                    "values": ["worker-2"],
                                }
                            ]
                        }
                    ]
                },
            ),
        ],
        {"worker": CANNOT, "worker-2": None},
    ),
    (
        "all-nodes-slice",
        [
            worker(),
            worker("worker-2"),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice(None, device("instance-1"), pool="net", allNodes=True),
        ],
        {"worker": None, "worker-2": None},
    ),
    (
        "per-device-node-selection",
        [
            worker(),
            worker("worker-2"),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice(
                None,
                device("instance-1", nodeName="worker-2"),
                pool="net",
                perDeviceNodeSelection=True,
            ),
        ],
        {"worker": CANNOT, "worker-2": None},
    ),
    (
        "untolerated-device-taint",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(),
            rslice(
                "worker",
                device("instance-1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
            ),
        ],
        {"worker": CANNOT},
    ),
    (
        "tolerated-device-taint",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(tolerations=[{"key": "k", "operator": "Exists"}])),
            rslice(
                "worker",
                device("instance-1", taints=[{"key": "k", "value": "v", "effect": "NoExecute"}]),
            ),
        ],
        {"worker": None},
    ),
    (
        "match-attribute-constraint-satisfied",
        [
            worker(),
            dclass(GPU),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req("a", cls=GPU),
                req("b", cls=GPU),
                constraints=[{"matchAttribute": f"{GPU}/productName"}],
            ),
            rslice(
                "worker",
                device("gpu-0", {"productName": {"string": "A100"}}),
                device("gpu-1", {"productName": {"string": "H100"}}),
                device("gpu-2", {"productName": {"string": "A100"}}),
                driver=GPU,
            ),
        ],
        {"worker": None},
    ),
    (
        "match-attribute-constraint-unsatisfiable",
        [
            worker(),
            dclass(GPU),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req("a", cls=GPU),
                req("b", cls=GPU),
                constraints=[{"matchAttribute": f"{GPU}/productName"}],
            ),
            rslice(
                "worker",
                device("gpu-0", {"productName": {"string": "A100"}}),
                device("gpu-1", {"productName": {"string": "H100"}}),
                driver=GPU,
            ),
        ],
        {"worker": CANNOT},
    ),
    (
        "distinct-attribute-constraint",
        [
            worker(),
            dclass(GPU),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req("a", cls=GPU),
                req("b", cls=GPU),
                constraints=[{"distinctAttribute": f"{GPU}/productName"}],
            ),
            rslice(
                "worker",
                device("gpu-0", {"productName": {"string": "A100"}}),
                device("gpu-1", {"productName": {"string": "A100"}}),
                driver=GPU,
            ),
        ],
        {"worker": CANNOT},
    ),
    (
        "first-available-falls-back",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                {
                    "name": "req-1",
                    "firstAvailable": [
                        {
                            "name": "subreq-1",
                            "deviceClassName": CLASS,
                            "allocationMode": "ExactCount",
                            "count": 2,
                        },
                        {
                            "name": "subreq-2",
                            "deviceClassName": CLASS,
                            "allocationMode": "ExactCount",
                            "count": 1,
                        },
                    ],
                },
            ),
            rslice("worker", device("instance-1")),
        ],
        {"worker": None},
    ),
    (
        "more-than-32-devices-is-an-error",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(count=33)),
            rslice("worker", device("instance-1")),
        ],
        {
            "worker": Status(
                Code.ERROR,
                "claim default/my-pod-my-resource: number of requested devices 33 exceeds the claim limit of 32",
            )
        },
    ),
    (
        "shared-counters-exhausted",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(count=2)),
            rslice(
                "worker",
                name="counters",
                pool="p",
                count=2,
                sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}],
            ),
            rslice(
                "worker",
                *[
                    device(
                        f"part-{i}",
                        consumesCounters=[
                            {"counterSet": "gpu-0", "counters": {"memory": {"value": "30Gi"}}}
                        ],
                    )
                    for i in range(2)
                ],
                name="parts",
                pool="p",
                count=2,
            ),
        ],
        {"worker": CANNOT},
    ),
    (
        "shared-counters-sufficient",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(count=2)),
            rslice(
                "worker",
                name="counters",
                pool="p",
                count=2,
                sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}],
            ),
            rslice(
                "worker",
                *[
                    device(
                        f"part-{i}",
                        consumesCounters=[
                            {"counterSet": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}
                        ],
                    )
                    for i in range(2)
                ],
                name="parts",
                pool="p",
                count=2,
            ),
        ],
        {"worker": None},
    ),
    (
        "consumable-capacity-shares-a-device",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req("a", capacity={"requests": {"bw": "10"}}),
                req("b", capacity={"requests": {"bw": "10"}}),
            ),
            rslice(
                "worker",
                device("nic", allowMultipleAllocations=True, capacity={"bw": {"value": "20"}}),
            ),
        ],
        {"worker": None},
    ),
    (
        "consumable-capacity-exceeded",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req("a", capacity={"requests": {"bw": "15"}}),
                req("b", capacity={"requests": {"bw": "10"}}),
            ),
            rslice(
                "worker",
                device("nic", allowMultipleAllocations=True, capacity={"bw": {"value": "20"}}),
            ),
        ],
        {"worker": CANNOT},
    ),
    (
        "capacity-request-for-unknown-capacity",
        [
            worker(),
            dclass(),
            pod_with_claim(),
            rclaim(CLAIM, req(capacity={"requests": {"nope": "1"}})),
            rslice("worker", device("instance-1")),
        ],
        {"worker": CANNOT},
    ),
    (
        "quantity-selector-on-capacity",
        [
            worker(),
            dclass(GPU, f'device.driver == "{GPU}"'),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req(
                    cls=GPU,
                    exprs=(f'device.capacity["{GPU}"].memory.compareTo(quantity("40Gi")) >= 0',),
                ),
            ),
            gpus("worker", 1),
        ],
        {"worker": None},
    ),
    (
        "quantity-selector-too-much-memory",
        [
            worker(),
            dclass(GPU, f'device.driver == "{GPU}"'),
            pod_with_claim(),
            rclaim(
                CLAIM,
                req(
                    cls=GPU,
                    exprs=(f'device.capacity["{GPU}"].memory.isGreaterThan(quantity("80Gi"))',),
                ),
            ),
            gpus("worker", 1),
        ],
        {"worker": CANNOT},
    ),
    (
        "class-selector-filters-other-drivers",
        [
            worker(),
            dclass(GPU, f'device.driver == "{GPU}"'),
            pod_with_claim(),
            rclaim(CLAIM, req(cls=GPU)),
            rslice("worker", device("instance-1")),
        ],
        {"worker": CANNOT},
    ),
]


@pytest.mark.parametrize(("objs", "want"), [c[1:] for c in FILTER], ids=[c[0] for c in FILTER])
def test_filter(objs: list[dict[str, Any]], want: dict[str, Status | None]) -> None:
    pre, got, _ = run_filter(objs)
    assert pre is None
    assert got == want
    for node, status in want.items():
        if status is not None:
            assert got[node].code == status.code, node


def test_filter_without_pre_filter_state_is_an_error() -> None:
    pl, pod, nodes = setup([worker(), pod_with_claim(), rclaim()])
    assert pl.filter(CycleState(), pod, nodes[0]) == Status(Code.ERROR, "not found")


def test_allocation_result_shape() -> None:
    objs = [
        worker(),
        dclass(GPU),
        pod_with_claim(),
        rclaim(CLAIM, req(cls=GPU, count=2)),
        gpus("worker", 3),
    ]
    _, got, state = run_filter(objs)
    assert got == {"worker": None}
    result = state.get(dra.STATE_KEY).node_allocations["worker"]
    assert result == [
        {
            "devices": {
                "results": [
                    {"request": "req-1", "driver": GPU, "pool": "worker", "device": "gpu-0"},
                    {"request": "req-1", "driver": GPU, "pool": "worker", "device": "gpu-1"},
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["worker"]}
                        ]
                    }
                ]
            },
        }
    ]


def test_first_available_records_the_subrequest() -> None:
    claim = rclaim(
        CLAIM,
        {
            "name": "req-1",
            "firstAvailable": [
                {"name": "subreq-1", "deviceClassName": CLASS, "count": 2},
                {"name": "subreq-2", "deviceClassName": CLASS, "count": 1},
            ],
        },
    )
    _, got, state = run_filter(
        [worker(), dclass(), pod_with_claim(), claim, rslice("worker", device("instance-1"))]
    )
    assert got == {"worker": None}
    results = state.get(dra.STATE_KEY).node_allocations["worker"][0]["devices"]["results"]
    assert [r["request"] for r in results] == ["req-1/subreq-2"]


# -- PostFilter --------------------------------------------------------------------------------


def test_post_filter_no_claims() -> None:
    pl, pod, nodes = setup([worker(), make_pod(POD).obj()])
    state = CycleState()
    pl.pre_filter(state, pod, nodes)
    assert pl.post_filter(state, pod, NodeToStatus()) == (
        None,
        Status(Code.UNSCHEDULABLE, "no new claims to deallocate"),
    )


def test_post_filter_without_state_is_not_found() -> None:
    pl, pod, _ = setup([worker(), make_pod(POD).obj()])
    _, s = pl.post_filter(CycleState(), pod, NodeToStatus())
    assert s == Status(Code.ERROR, "not found")


def test_post_filter_still_not_schedulable() -> None:
    pl, pod, nodes = setup([worker(), dclass(), pod_with_claim(), rclaim()])
    state = CycleState()
    pl.pre_filter(state, pod, nodes)
    assert pl.filter(state, pod, nodes[0]) == CANNOT
    assert pl.post_filter(state, pod, NodeToStatus()) == (
        None,
        Status(Code.UNSCHEDULABLE, "still not schedulable"),
    )


@pytest.mark.parametrize(
    ("reserved_for", "want"),
    [
        ([], "deallocation of ResourceClaim completed"),
        (
            [{"resource": "pods", "name": POD, "uid": POD_UID}],
            "deallocation of ResourceClaim completed",
        ),
        ([{"resource": "pods", "name": "other", "uid": "other"}], "still not schedulable"),
    ],
    ids=["unreserved", "reserved-for-this-pod", "reserved-for-another-pod"],
)
def test_post_filter_deallocates_claim_on_wrong_topology(
    reserved_for: list[dict[str, Any]], want: str
) -> None:
    claim = allocated(rclaim(), "other-node", "instance-1")
    claim["status"]["reservedFor"] = reserved_for
    pl, pod, nodes = setup([worker(), pod_with_claim(), claim])
    state = CycleState()
    pl.pre_filter(state, pod, nodes)
    assert pl.filter(state, pod, nodes[0]) == NOT_AVAILABLE
    assert pl.post_filter(state, pod, NodeToStatus()) == (None, Status(Code.UNSCHEDULABLE, want))
    stored = pl.tracker.get("default", CLAIM)
    assert ("allocation" in stored["status"]) == (want == "still not schedulable")


# -- Score -------------------------------------------------------------------------------------


def _subs(*counts: int) -> dict[str, Any]:
    return {
        "name": "req-1",
        "firstAvailable": [
            {"name": f"subreq-{i + 1}", "deviceClassName": CLASS, "count": c}
            for i, c in enumerate(counts)
        ],
    }


SCORE = [
    ("no-claims", [make_pod(POD).obj()], {"worker": 0, "worker-2": 0}),
    ("exactly-requests-score-0", [pod_with_claim(), rclaim()], {"worker": 0, "worker-2": 0}),
    # subreq-1 fits on worker-2 (2 devices): 8; only subreq-2 on worker: 7
    (
        "prioritized-list",
        [pod_with_claim(), rclaim(CLAIM, _subs(2, 1))],
        {"worker": 7, "worker-2": 8},
    ),
    (
        "prioritized-list-third-choice",
        [pod_with_claim(), rclaim(CLAIM, _subs(4, 3, 1))],
        {"worker": 6, "worker-2": 6},
    ),
]


@pytest.mark.parametrize(("objs", "want"), [c[1:] for c in SCORE], ids=[c[0] for c in SCORE])
def test_score(objs: list[dict[str, Any]], want: dict[str, int]) -> None:
    base = [
        worker(),
        worker("worker-2"),
        dclass(),
        rslice("worker", device("i-1")),
        rslice("worker-2", device("i-1"), device("i-2")),
    ]
    pl, pod, nodes = setup(base + objs)
    state = CycleState()
    _, s = pl.pre_filter(state, pod, nodes)
    for n in nodes:
        if s is None:
            assert pl.filter(state, pod, n) is None
    got = {n.node.name: pl.score(state, pod, n) for n in nodes}
    assert got == want
    assert list(pl.score_batch(state, pod, nodes)) == [want[n.node.name] for n in nodes]


def test_normalize_score() -> None:
    pl, pod, _ = setup([worker(), make_pod(POD).obj()])
    scores = [NodeScore("a", 7), NodeScore("b", 8), NodeScore("c", 0)]
    pl.normalize_score(CycleState(), pod, scores)
    assert [s.score for s in scores] == [87, 100, 0]


# -- Reserve / PreBind / Unreserve ------------------------------------------------------------------


def _reserve(
    objs: list[dict[str, Any]],
) -> tuple[dra.DynamicResources, Any, list[NodeInfo], CycleState]:
    pl, pod, nodes = setup(objs)
    state = CycleState()
    assert pl.pre_filter(state, pod, nodes)[1] is None
    assert pl.filter(state, pod, nodes[0]) is None
    assert pl.reserve(state, pod, "worker") is None
    return pl, pod, nodes, state


def test_reserve_marks_claim_in_flight_and_prebind_records_it() -> None:
    objs = [worker(), dclass(), pod_with_claim(), rclaim(), rslice("worker", device("instance-1"))]
    pl, pod, nodes, state = _reserve(objs)
    tracker = pl.tracker
    assert tracker.pending_allocation(f"uid-{CLAIM}") is not None
    # another pod using the same claim waits while it is being allocated
    other = copy.copy(pod)
    _, s = pl.pre_filter(CycleState(), other, nodes)
    assert s == Status(
        UNRES, f"resource claim default/{CLAIM} is in the process of being allocated"
    )
    assert pl.pre_bind(state, pod, "worker") is None
    assert tracker.pending_allocation(f"uid-{CLAIM}") is None
    claim = tracker.get("default", CLAIM)
    assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": POD, "uid": POD_UID}]
    assert claim["status"]["allocation"]["devices"]["results"][0]["device"] == "instance-1"
    assert "resource.kubernetes.io/delete-protection" in claim["metadata"]["finalizers"]
    got = pl.allocations(pod.key)
    assert [(a["claim"], a["allocatedNow"]) for a in got] == [(f"default/{CLAIM}", True)]
    # the caller's object is untouched
    assert "status" not in objs[3]


def test_unreserve_releases_in_flight_allocation() -> None:
    objs = [worker(), dclass(), pod_with_claim(), rclaim(), rslice("worker", device("instance-1"))]
    pl, pod, nodes, state = _reserve(objs)
    pl.unreserve(state, pod, "worker")
    assert pl.tracker.pending_allocation(f"uid-{CLAIM}") is None
    assert pl.pre_filter(CycleState(), pod, nodes)[1] is None


def test_in_flight_devices_are_used_for_other_claims() -> None:
    objs = [
        worker(),
        dclass(),
        pod_with_claim(),
        rclaim(),
        rclaim("second"),
        rslice("worker", device("instance-1")),
    ]
    pl, pod, nodes, _ = _reserve(objs)
    second = build_cluster([pod_with_claim("second", name="p2", uid="p2")]).pods[0]
    state = CycleState()
    assert pl.pre_filter(state, second, nodes)[1] is None
    assert pl.filter(state, second, nodes[0]) == CANNOT


# -- CEL ------------------------------------------------------------------------------------------

DEV = device(
    "gpu-0",
    {
        "productName": {"string": "A100"},
        "driverVersion": {"version": "1.2.3"},
        "other.io/numa": {"int": 1},
        "healthy": {"bool": True},
    },
    capacity={"memory": {"value": "80Gi"}},
)

CEL = [
    ('device.driver == "gpu.example.com"', True),
    ('device.attributes["gpu.example.com"].productName == "A100"', True),
    ('device.attributes["gpu.example.com"].healthy', True),
    ('device.attributes["other.io"].numa == 1', True),
    ('device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) > 0', True),
    ('device.capacity["gpu.example.com"].memory.isLessThan(quantity("40Gi"))', False),
    ('device.capacity["gpu.example.com"].memory == quantity("81920Mi")', True),
    ('quantity("1Gi").add(1).isGreaterThan(quantity("1Gi"))', True),
    ('quantity("1.5").isInteger()', False),
    ('quantity("2k").asInteger() == 2000', True),
    ('quantity("-1").sign() == -1', True),
    ('device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))', True),
    ('device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.10.0"))', True),
    ('semver("1.2.3-alpha").isLessThan(semver("1.2.3"))', True),
    ('device.attributes["gpu.example.com"].driverVersion.major() == 1', True),
    ('semver("v1.2", true).minor() == 2', True),
    ('isSemver("1.2")', False),
    ('isQuantity("10Gi")', True),
    ('has(device.attributes["nope.io"].x)', False),
    ('"nope.io" in device.attributes', False),
    ("device.allowMultipleAllocations", False),
    ('device.attributes["gpu.example.com"].productName.startsWith("A")', True),
    ('device.attributes["gpu.example.com"].productName in ["A100", "H100"]', True),
    ('device.attributes["gpu.example.com"].missing == 1', "no such key: missing"),
    ('device.attributes["nope.io"].x == 1', "no such key: x"),
    (
        'device.attributes["gpu.example.com"].productName',
        "CEL result of type string could not be converted to bool",
    ),
]


@pytest.mark.parametrize(("expr", "want"), CEL, ids=[c[0] for c in CEL])
def test_cel(expr: str, want: bool | str) -> None:
    prog = compile_selector(expr)
    assert not prog.error
    variables = device_variables("gpu.example.com", DEV)
    if isinstance(want, bool):
        assert prog.matches(variables) is want
    else:
        with pytest.raises(CELError, match=want):
            prog.matches(variables)


def test_cel_compile_error_and_cache() -> None:
    assert compile_selector("device.(").error.startswith("compilation failed")
    assert compile_selector("device.driver == 'x'") is compile_selector("device.driver == 'x'")


def test_cel_compile_error_fails_the_pod() -> None:
    objs = [
        worker(),
        dclass(),
        pod_with_claim(),
        rclaim(CLAIM, req(exprs=("device.(",))),
        rslice("worker", device("instance-1")),
    ]
    _, got, _ = run_filter(objs)
    assert got["worker"].code == Code.ERROR
    assert (
        got["worker"]
        .message()
        .startswith(
            "claim default/my-pod-my-resource: selector #0: CEL compile error: compilation failed"
        )
    )


# -- end to end through simulate() -------------------------------------------------------------------


def gpu_cluster(nodes: int, per_node: int) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [dclass(GPU, f'device.driver == "{GPU}"')]
    for i in range(nodes):
        objs.append(make_node(f"n{i}").cap(cpu="8", memory="32Gi", pods=110).obj())
        objs.append(gpus(f"n{i}", per_node, "A100" if i % 2 == 0 else "H100"))
    return objs


def gpu_pod(name: str, claim: str, cpu: str = "1") -> dict[str, Any]:
    p = make_pod(name).req(cpu=cpu).obj()
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    return p


def run(objs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = simulate(build_cluster(objs), default_config(), seed=1).to_dict()["results"]
    return {r["pod"]: r for r in out}


def test_e2e_cannot_allocate_all_claims_message() -> None:
    objs = gpu_cluster(7, 1) + [rclaim("big", req(cls=GPU, count=2)), gpu_pod("p", "big")]
    r = run(objs)["default/p"]
    assert r["status"] == "Unschedulable"
    assert r["message"] == (
        "0/7 nodes are available: 7 cannot allocate all claims. still not schedulable, "
        "preemption: 0/7 nodes are available: 7 Preemption is not helpful for scheduling."
    )


def test_e2e_missing_device_class_message() -> None:
    objs = gpu_cluster(3, 1) + [rclaim("c", req(cls="nope")), gpu_pod("p", "c")]
    r = run(objs)["default/p"]
    assert r["message"] == (
        "0/3 nodes are available: request req-1: device class nope does not exist. "
        "no new claims to deallocate, preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )


def test_e2e_pod_without_claims_keeps_its_message() -> None:
    objs = gpu_cluster(3, 1) + [make_pod("big").req(cpu="100").obj()]
    r = run(objs)["default/big"]
    assert r["message"] == (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


@pytest.mark.parametrize(
    ("reserved_for", "tail"),
    [
        ([{"resource": "pods", "name": "holder", "uid": "holder"}], "still not schedulable"),
        ([], "deallocation of ResourceClaim completed"),
    ],
    ids=["reserved-by-another-pod", "deallocated"],
)
def test_e2e_claim_not_available_on_the_node(reserved_for: list[dict[str, Any]], tail: str) -> None:
    # the claim is allocated on a node that is gone
    claim = allocated(rclaim("c", req(cls=GPU)), "gone", "gpu-0", driver=GPU)
    claim["status"]["reservedFor"] = reserved_for
    objs = gpu_cluster(3, 1) + [claim, gpu_pod("p", "c")]
    r = run(objs)["default/p"]
    assert r["message"] == (
        f"0/3 nodes are available: 3 resourceclaim not available on the node. {tail}, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_e2e_devices_are_used_up_by_earlier_pods() -> None:
    objs = gpu_cluster(2, 2) + [rclaim(f"c{i}", req(cls=GPU, count=2)) for i in range(3)]
    objs += [gpu_pod(f"p{i}", f"c{i}") for i in range(3)]
    res = run(objs)
    placed = sorted(res[f"default/p{i}"]["node"] or "-" for i in range(3))
    assert placed == ["-", "n0", "n1"]
    failed = next(r for r in res.values() if r["status"] != "Scheduled")
    assert failed["message"].startswith(
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable"
    )


def test_e2e_selector_picks_the_product() -> None:
    sel = f'device.attributes["{GPU}"].productName == "H100"'
    objs = gpu_cluster(4, 2) + [rclaim("c", req(cls=GPU, exprs=(sel,))), gpu_pod("p", "c")]
    assert run(objs)["default/p"]["node"] in ("n1", "n3")


def test_e2e_shared_claim_follows_its_allocation() -> None:
    objs = gpu_cluster(4, 1) + [
        rclaim("shared", req(cls=GPU)),
        gpu_pod("a", "shared"),
        gpu_pod("b", "shared"),
    ]
    res = run(objs)
    assert res["default/a"]["status"] == res["default/b"]["status"] == "Scheduled"
    assert res["default/a"]["node"] == res["default/b"]["node"]


def test_e2e_template_claim_not_created_is_held_back() -> None:
    p = make_pod("p").obj()
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    r = run(gpu_cluster(2, 1) + [p])["default/p"]
    # never attempted: no event, no PodScheduled condition message
    assert r["status"] == "Skipped" and r["message"] is None and r["events"] == []
    assert r["preEnqueue"] == {
        "plugin": "DynamicResources",
        "reason": 'pod "default/p": ResourceClaim not created yet',
    }


def test_e2e_template_claim_generated_for_the_pod() -> None:
    p = make_pod("p").uid("uid-p").obj()
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    p["status"] = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x1"}]}
    c = rclaim("p-gpu-x1", req(cls=GPU))
    c["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "uid-p", "controller": True}
    ]
    assert run(gpu_cluster(2, 1) + [c, p])["default/p"]["status"] == "Scheduled"


def test_e2e_caller_objects_are_not_changed() -> None:
    objs = gpu_cluster(1, 1) + [rclaim("c", req(cls=GPU)), gpu_pod("p", "c")]
    cluster = build_cluster(objs)
    before = copy.deepcopy(cluster.of_kind("ResourceClaim"))
    simulate(cluster, default_config(), seed=1)
    assert cluster.of_kind("ResourceClaim") == before


def test_demo_dra_gpu_pool() -> None:
    from pathlib import Path

    from scheduler_engine import load_cluster

    demo = Path(__file__).resolve().parents[3] / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
    res = simulate(load_cluster(str(demo)), default_config(), seed=1).by_pod()
    assert res["ml-inference/render-preview-0"].node == "dra-gpu-1"
    msg = res["ml-training/finetune-l40s-0"].message
    assert "2 cannot allocate all claims" in msg
    assert "still not schedulable, preemption:" in msg
