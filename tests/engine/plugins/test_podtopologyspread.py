"""PodTopologySpread: upstream v1.36 filtering_test.go / scoring_test.go cases, plus edges.

The tables ``FILTER_CASES`` and ``SCORE_CASES`` carry the cluster shapes and the
expected outcomes of upstream's TestSingleConstraint, TestMultipleConstraints
and TestPodTopologySpreadScore (cases that only exercise a disabled feature
gate are left out: in v1.36 NodeInclusionPolicy is GA and MatchLabelKeys on).
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.cluster import ClusterState
from scheduler_engine.framework import Code, CycleState, NodeScore, Snapshot, Status
from scheduler_engine.gocompat import go_log, go_round
from scheduler_engine.plugins import podtopologyspread as pts
from tests.engine.builders import make_node, make_pod

OK, UNSCHED, UNRESOLVABLE = Code.SUCCESS, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}


# -- helpers --------------------------------------------------------------------


def _constraint(
    when: str,
    max_skew: int,
    key: str,
    selector: dict[str, Any] | None,
    min_domains: int | None = None,
    affinity: str | None = None,
    taints: str | None = None,
    match_label_keys: list[str] | None = None,
) -> dict[str, Any]:
    c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        c["labelSelector"] = selector
    if min_domains is not None:
        c["minDomains"] = min_domains
    if affinity is not None:
        c["nodeAffinityPolicy"] = affinity
    if taints is not None:
        c["nodeTaintsPolicy"] = taints
    if match_label_keys is not None:
        c["matchLabelKeys"] = match_label_keys
    return c


def hard(*args: Any, **kw: Any) -> dict[str, Any]:
    return _constraint("DoNotSchedule", *args, **kw)


def soft(*args: Any, **kw: Any) -> dict[str, Any]:
    return _constraint("ScheduleAnyway", *args, **kw)


def P(
    name: str,
    labels: dict[str, str] | None = None,
    ns: str = "",
    node: str = "",
    terminating: bool = False,
    node_selector: dict[str, str] | None = None,
    affinity: list[tuple[str, str, list[str]]] | None = None,
    tsc: list[dict[str, Any]] | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    owner: tuple[str, str, str] | None = None,
):
    b = make_pod(name)
    if ns:
        b.ns(ns)
    if labels:
        b.labels(labels)
    if node:
        b.node(node)
    if terminating:
        b.terminating()
    if node_selector:
        b.node_selector(node_selector)
    for key, op, values in affinity or ():
        b.node_affinity_term({"key": key, "operator": op, "values": list(values)})
    if tsc:
        b.set("spec.topologySpreadConstraints", tsc)
    if tolerations:
        b.set("spec.tolerations", tolerations)
    if owner:
        api_version, kind, oname = owner
        b.set(
            "metadata.ownerReferences",
            [
                {
                    "apiVersion": api_version,
                    "kind": kind,
                    "name": oname,
                    "uid": "u",
                    "controller": True,
                }
            ],
        )
    return b.pod()


def N(name: str, labels: dict[str, str], tainted: bool = False):
    b = make_node(name).cap(cpu="4", memory="8Gi").set("metadata.labels", dict(labels))
    if tainted:
        b.taint("node.kubernetes.io/unschedulable", effect="NoSchedule")
    return b.node()


class FakeHandle:
    def __init__(self, snapshot: Snapshot, objects: dict[str, list[dict[str, Any]]] | None = None):
        self._snapshot = snapshot
        self.cluster = ClusterState(objects=objects or {})

    def snapshot(self) -> Snapshot:
        return self._snapshot


def plugin_for(nodes, pods, args=None, objects=None):
    snap = Snapshot(nodes, pods)
    pl = pts.new(args if args is not None else {}, FakeHandle(snap, objects))
    return pl, snap


def code_of(status: Status | None) -> Code:
    return Code.SUCCESS if status is None else status.code


def filter_all(pl, snap, pod):
    state = CycleState()
    _, st = pl.pre_filter(state, pod, snap.node_info_list)
    assert st is None, st
    return state, {ni.name: pl.filter(state, pod, ni) for ni in snap.node_info_list}


def score_all(pl, snap, pod, candidates):
    state = CycleState()
    infos = [snap.get(n.name) for n in candidates]
    st = pl.pre_score(state, pod, infos)
    assert st is None, st
    scores = [NodeScore(ni.name, pl.score(state, pod, ni)) for ni in infos]
    raw = {s.name: s.score for s in scores}
    assert pl.score_extensions().normalize_score(state, pod, scores) is None
    return raw, {s.name: s.score for s in scores}


def case(name, pod, nodes, pods, want):
    return pytest.param(pod, nodes, pods, want, id=name)


def score_case(name, pod, nodes, failed, pods, want, services=()):
    objects = {
        "Service": [
            {"kind": "Service", "metadata": {"name": f"svc{i}"}, "spec": {"selector": s}}
            for i, s in enumerate(services)
        ]
    }
    return pytest.param(pod, nodes, failed, pods, want, objects, id=name)


# -- upstream tables --------------------------------------------------------------

FILTER_CASES = [
    case(
        "no existing pods",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    case(
        "no existing pods, incoming pod doesn't match itself",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", BAR)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    case(
        "existing pods in a different namespace do not count",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, ns="ns1", node="node-a"),
            P("p-b1", labels={"foo": ""}, ns="ns2", node="node-a"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "existing pods do not match null selector",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", None)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    case(
        "pods spread across zones as 3/3, all nodes fit",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    case(
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zon": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": UNRESOLVABLE, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "pod cannot be scheduled as all nodes don't have label 'rack'",
        P("p", labels={"foo": ""}, tsc=[hard(1, "rack", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
        ],
        [],
        {"node-a": UNRESOLVABLE, "node-x": UNRESOLVABLE},
    ),
    case(
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        P("p", labels={"foo": ""}, tsc=[hard(1, "node", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        P("p", labels={"foo": ""}, tsc=[hard(2, "node", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": OK, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        P("p", labels={"bar": ""}, tsc=[hard(1, "node", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": OK, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        P(
            "p",
            labels={"foo": ""},
            affinity=[("node", "In", ["node-a", "node-y"])],
            tsc=[hard(1, "node", FOO)],
        ),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "terminating Pods should be excluded",
        P("p", labels={"foo": ""}, tsc=[hard(1, "node", FOO)]),
        [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"})],
        [
            P("p-a", labels={"foo": ""}, node="node-a", terminating=True),
            P("p-b", labels={"foo": ""}, node="node-b"),
        ],
        {"node-a": OK, "node-b": UNSCHED},
    ),
    case(
        "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        P(
            "p",
            labels={"foo": ""},
            affinity=[("node", "NotIn", ["node-b"])],
            tsc=[hard(1, "zone", FOO)],
        ),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
        P("p", labels={"foo": ""}, tsc=[hard(2, "node", FOO, min_domains=4)]),
        [
            N("node-a", {"node": "node-a"}),
            N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-c": OK},
    ),
    case(
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
        P("p", labels={"foo": ""}, tsc=[hard(2, "node", FOO, min_domains=2)]),
        [
            N("node-a", {"node": "node-a"}),
            N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": OK, "node-b": OK, "node-c": OK},
    ),
    case(
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
        P("p", labels={"foo": ""}, tsc=[hard(2, "zone", FOO, min_domains=3)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": OK},
    ),
    case(
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
        P("p", labels={"foo": ""}, tsc=[hard(2, "zone", FOO, min_domains=1)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    case(
        "NodeAffinityPolicy honored with labelSelectors",
        P("p", labels={"foo": ""}, node_selector={"foo": ""}, tsc=[hard(1, "node", FOO)]),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}),
            N("node-y", {"node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": OK},
    ),
    case(
        "NodeAffinityPolicy ignored with labelSelectors",
        P(
            "p",
            labels={"foo": ""},
            node_selector={"foo": ""},
            tsc=[hard(1, "node", FOO, affinity="Ignore")],
        ),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}),
            N("node-y", {"node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "NodeAffinityPolicy honored with nodeAffinity",
        P("p", labels={"foo": ""}, affinity=[("foo", "In", [""])], tsc=[hard(1, "node", FOO)]),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}),
            N("node-y", {"node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": OK},
    ),
    case(
        "NodeAffinityPolicy ignored with labelSelectors",
        P(
            "p",
            labels={"foo": ""},
            affinity=[("foo", "In", [""])],
            tsc=[hard(1, "node", FOO, affinity="Ignore")],
        ),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}),
            N("node-y", {"node": "node-y"}),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "NodeTaintsPolicy honored",
        P("p", labels={"foo": ""}, tsc=[hard(1, "node", FOO, taints="Honor")]),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}),
            N("node-y", {"node": "node-y"}, tainted=True),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": OK},
    ),
    case(
        "NodeTaintsPolicy ignored",
        P("p", labels={"foo": ""}, tsc=[hard(1, "node", FOO)]),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-x", {"node": "node-x", "foo": ""}),
            N("node-y", {"node": "node-y"}, tainted=True),
        ],
        [
            P("p-b1", labels={"foo": ""}, node="node-a"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
            P("p-y4", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        P("p", labels={"foo": "", "bar": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", BAR)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-y1", labels={"bar": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        P("p", labels={"foo": "", "bar": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", BAR)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-x1", labels={"bar": ""}, node="node-x"),
            P("p-y1", labels={"bar": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        P("p", labels={"foo": "", "bar": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", BAR)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": "", "bar": ""}, node="node-a"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": "", "bar": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": OK, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
        P("p", labels={"bar": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", BAR)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-x1", labels={"bar": ""}, node="node-x"),
            P("p-y1", labels={"bar": ""}, node="node-y"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
    case(
        "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
        P("p", labels={"foo": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": OK, "node-x": UNRESOLVABLE, "node-y": UNSCHED},
    ),
    case(
        "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        P(
            "p",
            labels={"foo": ""},
            node_selector={"foo": ""},
            tsc=[hard(1, "zone", FOO), hard(1, "node", FOO, affinity="Ignore")],
        ),
        [
            N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
            N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}),
            N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        P(
            "p",
            labels={"foo": ""},
            tsc=[hard(1, "zone", FOO, taints="Honor"), hard(1, "node", FOO)],
        ),
        [
            N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
            N("node-b", {"zone": "zone1", "node": "node-b", "foo": ""}),
            N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
            N("node-y", {"zone": "zone2", "node": "node-y"}, tainted=True),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        P(
            "p",
            labels={"foo": ""},
            node_selector={"foo": ""},
            tsc=[hard(1, "zone", FOO), hard(1, "node", FOO)],
        ),
        [
            N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
            N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, tainted=True),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": OK, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
        P(
            "p",
            labels={"foo": ""},
            node_selector={"foo": ""},
            tsc=[hard(1, "zone", FOO, taints="Honor"), hard(1, "node", FOO, affinity="Ignore")],
        ),
        [
            N("node-a", {"zone": "zone1", "node": "node-a", "foo": ""}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x", "foo": ""}),
            N("node-y", {"zone": "zone2", "node": "node-y", "foo": ""}, tainted=True),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": UNSCHED},
    ),
    case(
        "two Constraints on zone, spreads = [3/3, 2/1]",
        P("p", labels={"foo": "", "bar": ""}, tsc=[hard(1, "zone", BAR), hard(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": "", "bar": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": "", "bar": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": OK, "node-y": OK},
    ),
    case(
        "two Constraints on zone, spreads = [3/4, 2/1]",
        P("p", labels={"foo": "", "bar": ""}, tsc=[hard(1, "zone", BAR), hard(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "node": "node-a"}),
            N("node-b", {"zone": "zone1", "node": "node-b"}),
            N("node-x", {"zone": "zone2", "node": "node-x"}),
            N("node-y", {"zone": "zone2", "node": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": "", "bar": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": "", "bar": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
            P("p-y4", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": UNSCHED, "node-b": UNSCHED, "node-x": UNSCHED, "node-y": UNSCHED},
    ),
]

SCORE_CASES = [
    score_case(
        "one constraint on node, no existing pods",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
        ],
        [],
        [],
        {"node-a": 100, "node-b": 100},
    ),
    score_case(
        "one constraint on node, only one node is candidate",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [N("node-a", {"kubernetes.io/hostname": "node-a"})],
        [N("node-b", {"kubernetes.io/hostname": "node-b"})],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
        ],
        {"node-a": 100},
    ),
    score_case(
        "one constraint on node, all nodes have the same number of matching pods",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
        ],
        {"node-a": 100, "node-b": 100},
    ),
    score_case(
        "one constraint on node, all 4 nodes are candidates",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
            N("node-c", {"kubernetes.io/hostname": "node-c"}),
            N("node-d", {"kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-d1", labels={"foo": ""}, node="node-d"),
            P("p-d2", labels={"foo": ""}, node="node-d"),
            P("p-d3", labels={"foo": ""}, node="node-d"),
        ],
        {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
    ),
    score_case(
        "one constraint on node, null selector",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", None)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
            N("node-c", {"kubernetes.io/hostname": "node-c"}),
            N("node-d", {"kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-d1", labels={"foo": ""}, node="node-d"),
            P("p-d2", labels={"foo": ""}, node="node-d"),
            P("p-d3", labels={"foo": ""}, node="node-d"),
        ],
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
    ),
    score_case(
        "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        P("p", labels={"foo": ""}, tsc=[soft(2, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
            N("node-c", {"kubernetes.io/hostname": "node-c"}),
            N("node-d", {"kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-d1", labels={"foo": ""}, node="node-d"),
            P("p-d2", labels={"foo": ""}, node="node-d"),
            P("p-d3", labels={"foo": ""}, node="node-d"),
        ],
        {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
    ),
    score_case(
        "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        P("p", labels={"foo": ""}, tsc=[soft(3, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
            N("node-c", {"kubernetes.io/hostname": "node-c"}),
            N("node-d", {"kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-a3", labels={"foo": ""}, node="node-a"),
            P("p-a4", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-b3", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
            P("p-c2", labels={"foo": ""}, node="node-c"),
            P("p-d1", labels={"foo": ""}, node="node-d"),
        ],
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
    ),
    score_case(
        "system defaulting, nodes don't have zone, pods match service",
        P("p", labels={"foo": ""}),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
            N("node-c", {"kubernetes.io/hostname": "node-c"}),
            N("node-d", {"kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-a3", labels={"foo": ""}, node="node-a"),
            P("p-a4", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-b3", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
            P("p-c2", labels={"foo": ""}, node="node-c"),
            P("p-d1", labels={"foo": ""}, node="node-d"),
        ],
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        services=[{"foo": ""}],
    ),
    score_case(
        "one constraint on node, 3 out of 4 nodes are candidates",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
            N("node-x", {"kubernetes.io/hostname": "node-x"}),
        ],
        [N("node-y", {"kubernetes.io/hostname": "node-y"})],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-a3", labels={"foo": ""}, node="node-a"),
            P("p-a4", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": 33, "node-b": 83, "node-x": 100},
    ),
    score_case(
        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"n": "node-b"}),
            N("node-x", {"kubernetes.io/hostname": "node-x"}),
        ],
        [N("node-y", {"kubernetes.io/hostname": "node-y"})],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-a3", labels={"foo": ""}, node="node-a"),
            P("p-a4", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": 16, "node-b": 0, "node-x": 100},
    ),
    score_case(
        "one constraint on zone, 3 out of 4 nodes are candidates",
        P("p", labels={"foo": ""}, tsc=[soft(1, "zone", FOO)]),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-x", {"zone": "zone2", "kubernetes.io/hostname": "node-x"}),
        ],
        [N("node-y", {"zone": "zone2", "kubernetes.io/hostname": "node-y"})],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-a3", labels={"foo": ""}, node="node-a"),
            P("p-a4", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": 75, "node-b": 75, "node-x": 100},
    ),
    score_case(
        "two Constraints on zone and node, 2 out of 4 nodes are candidates",
        P(
            "p",
            labels={"foo": ""},
            tsc=[soft(1, "zone", FOO), soft(1, "kubernetes.io/hostname", FOO)],
        ),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-x", {"zone": "zone2", "kubernetes.io/hostname": "node-x"}),
        ],
        [
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-y", {"zone": "zone2", "kubernetes.io/hostname": "node-y"}),
        ],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-x2", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
            P("p-y4", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": 100, "node-x": 63},
    ),
    score_case(
        "two Constraints on zone, 2 out of 4 nodes are candidates",
        P("p", labels={"foo": "", "bar": ""}, tsc=[soft(1, "zone", FOO), soft(1, "zone", BAR)]),
        [N("node-a", {"zone": "zone1"}), N("node-x", {"zone": "zone2"})],
        [N("node-b", {"zone": "zone1"}), N("node-y", {"zone": "zone2"})],
        [
            P("p-a1", labels={"foo": "", "bar": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"foo": "", "bar": ""}, node="node-y"),
            P("p-y3", labels={"foo": ""}, node="node-y"),
        ],
        {"node-a": 85, "node-x": 100},
    ),
    score_case(
        "two Constraints on zone and node, with different labelSelectors",
        P(
            "p",
            labels={"foo": "", "bar": ""},
            tsc=[soft(1, "zone", FOO), soft(1, "kubernetes.io/hostname", BAR)],
        ),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-x", {"zone": "zone2", "kubernetes.io/hostname": "node-x"}),
            N("node-y", {"zone": "zone2", "kubernetes.io/hostname": "node-y"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"bar": ""}, node="node-y"),
        ],
        {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
    ),
    score_case(
        "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        P(
            "p",
            labels={"foo": "", "bar": ""},
            tsc=[soft(1, "zone", FOO), soft(1, "kubernetes.io/hostname", BAR)],
        ),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-x", {"zone": "zone2", "kubernetes.io/hostname": "node-x"}),
            N("node-y", {"zone": "zone2", "kubernetes.io/hostname": "node-y"}),
        ],
        [],
        [
            P("p-b1", labels={"bar": ""}, node="node-b"),
            P("p-x1", labels={"foo": ""}, node="node-x"),
            P("p-y1", labels={"foo": "", "bar": ""}, node="node-y"),
        ],
        {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
    ),
    score_case(
        "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        P(
            "p",
            labels={"foo": "", "bar": ""},
            tsc=[soft(1, "zone", FOO), soft(1, "kubernetes.io/hostname", BAR)],
        ),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-x", {"zone": "zone2", "kubernetes.io/hostname": "node-x"}),
        ],
        [N("node-y", {"zone": "zone2", "kubernetes.io/hostname": "node-y"})],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-y"),
            P("p-y2", labels={"bar": ""}, node="node-y"),
        ],
        {"node-a": 50, "node-b": 25, "node-x": 100},
    ),
    score_case(
        "existing pods in a different namespace do not count",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, ns="ns1", node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
        ],
        {"node-a": 100, "node-b": 33},
    ),
    score_case(
        "terminating Pods should be excluded",
        P("p", labels={"foo": ""}, tsc=[soft(1, "kubernetes.io/hostname", FOO)]),
        [
            N("node-a", {"kubernetes.io/hostname": "node-a"}),
            N("node-b", {"kubernetes.io/hostname": "node-b"}),
        ],
        [],
        [
            P("p-a", labels={"foo": ""}, node="node-a", terminating=True),
            P("p-b", labels={"foo": ""}, node="node-b"),
        ],
        {"node-a": 100, "node-b": 0},
    ),
    score_case(
        "minDomains has no effect when ScheduleAnyway",
        P("p", labels={"foo": ""}, tsc=[soft(2, "node", FOO, min_domains=10)]),
        [
            N("node-a", {"node": "node-a"}),
            N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-b2", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 75, "node-b": 75, "node-c": 100},
    ),
    score_case(
        "NodeAffinityPolicy honoed with labelSelectors",
        P("p", labels={"foo": ""}, node_selector={"foo": ""}, tsc=[soft(1, "node", FOO)]),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-c", {"node": "node-c"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 0, "node-b": 33, "node-c": 100},
    ),
    score_case(
        "NodeAffinityPolicy ignored with labelSelectors",
        P(
            "p",
            labels={"foo": ""},
            node_selector={"foo": ""},
            tsc=[soft(1, "node", FOO, affinity="Ignore")],
        ),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-c", {"node": "node-c"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    score_case(
        "NodeAffinityPolicy honoed with nodeAffinity",
        P("p", labels={"foo": ""}, affinity=[("foo", "In", [""])], tsc=[soft(1, "node", FOO)]),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-c", {"node": "node-c"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 0, "node-b": 33, "node-c": 100},
    ),
    score_case(
        "NodeAffinityPolicy ignored with nodeAffinity",
        P(
            "p",
            labels={"foo": ""},
            affinity=[("foo", "In", [""])],
            tsc=[soft(1, "node", FOO, affinity="Ignore")],
        ),
        [
            N("node-a", {"node": "node-a", "foo": ""}),
            N("node-b", {"node": "node-b", "foo": ""}),
            N("node-c", {"node": "node-c"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    score_case(
        "NodeTaintsPolicy honored",
        P("p", labels={"foo": ""}, tsc=[soft(1, "node", FOO, taints="Honor")]),
        [
            N("node-a", {"node": "node-a"}),
            N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c"}, tainted=True),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 0, "node-b": 33, "node-c": 100},
    ),
    score_case(
        "NodeTaintsPolicy ignored",
        P("p", labels={"foo": ""}, tsc=[soft(1, "node", FOO)]),
        [
            N("node-a", {"node": "node-a"}),
            N("node-b", {"node": "node-b"}),
            N("node-c", {"node": "node-c"}, tainted=True),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-a2", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
        ],
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    score_case(
        "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        P(
            "p",
            labels={"foo": "", "bar": ""},
            tsc=[
                soft(1, "zone", {}, match_label_keys=["foo"]),
                soft(1, "kubernetes.io/hostname", {}, match_label_keys=["bar"]),
            ],
        ),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-c", {"zone": "zone2", "kubernetes.io/hostname": "node-c"}),
            N("node-d", {"zone": "zone2", "kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": ""}, node="node-b"),
            P("p-y1", labels={"foo": ""}, node="node-c"),
            P("p-y2", labels={"bar": ""}, node="node-c"),
        ],
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
    ),
    score_case(
        "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        P(
            "p",
            labels={"foo": "", "bar": "", "baz": ""},
            tsc=[
                soft(1, "zone", FOO),
                soft(1, "kubernetes.io/hostname", BAR, match_label_keys=["baz"]),
            ],
        ),
        [
            N("node-a", {"zone": "zone1", "kubernetes.io/hostname": "node-a"}),
            N("node-b", {"zone": "zone1", "kubernetes.io/hostname": "node-b"}),
            N("node-c", {"zone": "zone2", "kubernetes.io/hostname": "node-c"}),
            N("node-d", {"zone": "zone2", "kubernetes.io/hostname": "node-d"}),
        ],
        [],
        [
            P("p-a1", labels={"foo": ""}, node="node-a"),
            P("p-b1", labels={"foo": "", "bar": "", "baz": ""}, node="node-b"),
            P("p-c1", labels={"foo": ""}, node="node-c"),
            P("p-c2", labels={"bar": ""}, node="node-c"),
            P("p-d3", labels={"bar": "", "baz": ""}, node="node-c"),
        ],
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "want"), FILTER_CASES)
def test_filter_upstream_cases(pod, nodes, pods, want):
    # upstream runs these with defaultingType List (no default constraints)
    pl, snap = plugin_for(nodes, pods, {"defaultingType": "List"})
    _, got = filter_all(pl, snap, pod)
    assert {n: code_of(s) for n, s in got.items()} == want


@pytest.mark.parametrize(("pod", "nodes", "failed", "pods", "want", "objects"), SCORE_CASES)
def test_score_upstream_cases(pod, nodes, failed, pods, want, objects):
    # upstream runs these with defaultingType System
    pl, snap = plugin_for(nodes + failed, pods, {"defaultingType": "System"}, objects)
    _, got = score_all(pl, snap, pod, nodes)
    assert got == want


# -- reasons, codes and skips -----------------------------------------------------------


def test_reason_strings_and_codes():
    nodes = [N("a", {"zone": "z1"}), N("b", {"zone": "z2"}), N("c", {})]
    pods = [P("e1", {"foo": ""}, node="a")]
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO)])
    pl, snap = plugin_for(nodes, pods)
    _, got = filter_all(pl, snap, pod)
    assert got["b"] is None
    assert got["a"] == Status(UNSCHED, "node(s) didn't match pod topology spread constraints")
    assert got["c"] == Status(
        UNRESOLVABLE,
        "node(s) didn't match pod topology spread constraints (missing required label)",
    )
    assert pts.ERR_REASON_NODE_LABEL_NOT_MATCH == (
        "node(s) didn't match pod topology spread constraints (missing required label)"
    )


def test_missing_label_checked_in_constraint_order():
    # node a lacks "rack" (so its own pods never count), but the zone constraint,
    # checked first, already fails there on skew: Unschedulable, not Unresolvable
    nodes = [
        N("a", {"zone": "z1"}),
        N("c", {"zone": "z1", "rack": "r1"}),
        N("b", {"zone": "z2", "rack": "r2"}),
    ]
    pods = [P("c1", {"foo": ""}, node="c"), P("c2", {"foo": ""}, node="c")]
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO), hard(1, "rack", FOO)])
    pl, snap = plugin_for(nodes, pods)
    state, got = filter_all(pl, snap, pod)
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [
        {"z1": 2, "z2": 0},
        {"r1": 2, "r2": 0},
    ]
    assert code_of(got["a"]) == UNSCHED
    assert code_of(got["b"]) == OK


@pytest.mark.parametrize(
    ("pod", "args"),
    [
        pytest.param(P("p", {"foo": ""}), {}, id="no constraints, system defaults are soft"),
        pytest.param(
            P("p", {"foo": ""}, tsc=[soft(1, "zone", FOO)]),
            {},
            id="only ScheduleAnyway constraints",
        ),
        pytest.param(
            P("p", {"foo": ""}),
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
                ],
            },
            id="hard default constraints but no service or controller selects the pod",
        ),
    ],
)
def test_pre_filter_skips(pod, args):
    pl, snap = plugin_for([N("a", {"zone": "z1"})], [], args)
    result, status = pl.pre_filter(CycleState(), pod, snap.node_info_list)
    assert result is None
    assert status is not None and status.code == Code.SKIP


@pytest.mark.parametrize(
    ("pod", "args", "objects"),
    [
        pytest.param(P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO)]), {}, {}, id="only hard"),
        pytest.param(P("p", {"foo": ""}), {}, {}, id="system defaults without selecting objects"),
        pytest.param(
            P("p", {"foo": ""}),
            {"defaultingType": "List"},
            {"Service": [{"metadata": {"name": "s"}, "spec": {"selector": {"foo": ""}}}]},
            id="List defaulting with no default constraints",
        ),
        pytest.param(
            P("p", {"foo": ""}),
            {},
            {
                "Service": [
                    {
                        "metadata": {"name": "s", "namespace": "other"},
                        "spec": {"selector": {"foo": ""}},
                    }
                ]
            },
            id="service in another namespace",
        ),
        pytest.param(
            P("p", {"foo": ""}),
            {},
            {"Service": [{"metadata": {"name": "s"}, "spec": {"selector": {"foo": "x"}}}]},
            id="service that does not select the pod",
        ),
    ],
)
def test_pre_score_skips(pod, args, objects):
    pl, snap = plugin_for([N("a", {"zone": "z1"})], [], args, objects)
    status = pl.pre_score(CycleState(), pod, snap.node_info_list)
    assert status is not None and status.code == Code.SKIP


def test_pre_score_skips_when_snapshot_has_no_nodes():
    pl, _ = plugin_for([], [])
    pod = P("p", {"foo": ""}, tsc=[soft(1, "zone", FOO)])
    status = pl.pre_score(CycleState(), pod, [])
    assert status is not None and status.code == Code.SKIP


def test_filter_without_pre_filter_state_is_an_error():
    pl, snap = plugin_for([N("a", {"zone": "z1"})], [])
    status = pl.filter(CycleState(), P("p"), snap.node_info_list[0])
    assert status is not None and status.code == Code.ERROR


def test_invalid_selector_is_an_error():
    bad = {"matchExpressions": [{"key": "foo", "operator": "In", "values": []}]}
    pl, snap = plugin_for([N("a", {"zone": "z1"})], [])
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", bad)])
    _, status = pl.pre_filter(CycleState(), pod, snap.node_info_list)
    assert status is not None and status.code == Code.ERROR


# -- minDomains --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("min_domains", "want_a"),
    [
        pytest.param(None, UNSCHED, id="minDomains unset: global min is the empty zone's 0"),
        pytest.param(3, UNSCHED, id="2 domains < minDomains 3: global min 0"),
    ],
)
def test_min_domains_treats_global_min_as_zero(min_domains, want_a):
    # zones 2/1, maxSkew 1: with global min 1, z2 (1+1-1=1) fits and z1 (2+1-1=2) does not
    nodes = [N("a", {"zone": "z1"}), N("b", {"zone": "z2"})]
    pods = [
        P("a1", {"foo": ""}, node="a"),
        P("a2", {"foo": ""}, node="a"),
        P("b1", {"foo": ""}, node="b"),
    ]
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO, min_domains=min_domains)])
    pl, snap = plugin_for(nodes, pods)
    _, got = filter_all(pl, snap, pod)
    assert code_of(got["a"]) == want_a
    # with min 1, b's skew is 1 (fits); with min 0 it is 2 (does not)
    assert code_of(got["b"]) == (OK if min_domains is None else UNSCHED)


def test_no_eligible_domain_means_min_zero():
    # nodeAffinity excludes every node from counting: no domain, skew = 0 + 1 - 0
    nodes = [N("a", {"zone": "z1"}), N("b", {"zone": "z2"})]
    pod = P("p", {"foo": ""}, node_selector={"gpu": "yes"}, tsc=[hard(1, "zone", FOO)])
    pl, snap = plugin_for(nodes, [P("a1", {"foo": ""}, node="a")])
    state, got = filter_all(pl, snap, pod)
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{}]
    assert all(s is None for s in got.values())


# -- matchLabelKeys ------------------------------------------------------------------------


def test_match_label_keys_merge_is_idempotent():
    # what the API server wrote (selector already merged) and what it did not give the same
    nodes = [N("a", {"zone": "z1"}), N("b", {"zone": "z2"})]
    pods = [
        P("a1", {"app": "x", "rev": "1"}, node="a"),
        P("b1", {"app": "x", "rev": "2"}, node="b"),
        P("b2", {"app": "x", "rev": "2"}, node="b"),
    ]
    base = {"matchLabels": {"app": "x"}}
    merged = {
        "matchLabels": {"app": "x"},
        "matchExpressions": [{"key": "rev", "operator": "In", "values": ["1"]}],
    }
    results = []
    for sel in (base, merged):
        pod = P("p", {"app": "x", "rev": "1"}, tsc=[hard(1, "zone", sel, match_label_keys=["rev"])])
        pl, snap = plugin_for(nodes, pods)
        state, got = filter_all(pl, snap, pod)
        results.append(
            (
                state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num,
                {n: code_of(s) for n, s in got.items()},
            )
        )
    assert results[0] == results[1] == ([{"z1": 1, "z2": 0}], {"a": UNSCHED, "b": OK})


def test_match_label_keys_absent_from_pod_labels_are_ignored():
    pod = P(
        "p",
        {"app": "x"},
        tsc=[hard(1, "zone", {"matchLabels": {"app": "x"}}, match_label_keys=["rev"])],
    )
    pl, snap = plugin_for([N("a", {"zone": "z1"})], [P("a1", {"app": "x", "rev": "9"}, node="a")])
    state, _ = filter_all(pl, snap, pod)
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"z1": 1}]


def test_empty_selector_counts_no_pods_but_matches_the_pod_itself():
    # upstream's countPodsMatchSelector returns 0 for an empty selector
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", {})])
    nodes = [N("a", {"zone": "z1"}), N("b", {"zone": "z2"})]
    pl, snap = plugin_for(nodes, [P("a1", {"foo": ""}, node="a"), P("a2", {"foo": ""}, node="a")])
    state, got = filter_all(pl, snap, pod)
    s = state.read(pts.PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [{"z1": 0, "z2": 0}]
    assert s.self_match == [1]
    assert all(v is None for v in got.values())


# -- default constraints (helper.DefaultSelector) ---------------------------------------------


def _four_hosts():
    nodes = [N(n, {HOSTNAME: n}) for n in ("node-a", "node-b", "node-c", "node-d")]
    pods = []
    for node, count in (("node-a", 4), ("node-b", 3), ("node-c", 2), ("node-d", 1)):
        pods += [P(f"{node}-{i}", {"foo": ""}, node=node) for i in range(count)]
    return nodes, pods


@pytest.mark.parametrize(
    ("pod", "objects"),
    [
        pytest.param(
            P("p", {"foo": ""}, owner=("apps/v1", "ReplicaSet", "rs1")),
            {
                "ReplicaSet": [
                    {"metadata": {"name": "rs1", "namespace": "default"}, "spec": {"selector": FOO}}
                ]
            },
            id="ReplicaSet owner",
        ),
        pytest.param(
            P("p", {"foo": ""}, owner=("apps/v1", "StatefulSet", "ss1")),
            {
                "StatefulSet": [
                    {
                        "metadata": {"name": "ss1"},
                        "spec": {"selector": {"matchLabels": {"foo": ""}}},
                    }
                ]
            },
            id="StatefulSet owner",
        ),
        pytest.param(
            P("p", {"foo": ""}, owner=("v1", "ReplicationController", "rc1")),
            {
                "ReplicationController": [
                    {"metadata": {"name": "rc1"}, "spec": {"selector": {"foo": ""}}}
                ]
            },
            id="ReplicationController owner",
        ),
    ],
)
def test_system_defaults_take_the_controller_selector(pod, objects):
    # hostname maxSkew 3 alone (nodes have no zone label): 4/3/2/1 → 44/66/77/100 as upstream
    nodes, pods = _four_hosts()
    pl, snap = plugin_for(nodes, pods, {}, objects)
    _, got = score_all(pl, snap, pod, nodes)
    assert got == {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}


@pytest.mark.parametrize(
    ("pod", "objects"),
    [
        pytest.param(
            P("p", {"foo": ""}, owner=("apps/v1beta1", "ReplicaSet", "rs1")),
            {"ReplicaSet": [{"metadata": {"name": "rs1"}, "spec": {"selector": FOO}}]},
            id="owner apiVersion other than apps/v1",
        ),
        pytest.param(
            P("p", {"foo": ""}, owner=("apps/v1", "ReplicaSet", "rs2")),
            {"ReplicaSet": [{"metadata": {"name": "rs1"}, "spec": {"selector": FOO}}]},
            id="owner not found",
        ),
        pytest.param(
            P("p", {"foo": ""}, owner=("apps/v1", "ReplicaSet", "rs1")),
            {"ReplicaSet": [{"metadata": {"name": "rs1"}, "spec": {"selector": {}}}]},
            id="empty controller selector",
        ),
        pytest.param(
            P("p", {"foo": ""}),
            {"Service": [{"metadata": {"name": "s"}, "spec": {}}]},
            id="service with nil selector matches nothing",
        ),
    ],
)
def test_system_defaults_without_a_selector_skip(pod, objects):
    nodes, pods = _four_hosts()
    pl, snap = plugin_for(nodes, pods, {}, objects)
    status = pl.pre_score(CycleState(), pod, snap.node_info_list)
    assert status is not None and status.code == Code.SKIP


def test_system_defaults_keep_zone_less_nodes_scored():
    # requireAllTopologies is false for system defaults: a node without zone is not ignored
    nodes = [N("a", {HOSTNAME: "a", ZONE: "z1"}), N("b", {HOSTNAME: "b"})]
    pods = [P("a1", {"foo": ""}, node="a")]
    objects = {"Service": [{"metadata": {"name": "s"}, "spec": {"selector": {"foo": ""}}}]}
    pl, snap = plugin_for(nodes, pods, {}, objects)
    state = CycleState()
    assert pl.pre_score(state, P("p", {"foo": ""}), snap.node_info_list) is None
    s = state.read(pts.PRE_SCORE_STATE_KEY)
    assert s.ignored_nodes == set()
    assert s.tp_value_to_pod_counts[1] == {"z1": 1, "": 0}
    raw, got = score_all(pl, snap, P("p", {"foo": ""}), nodes)
    # a: hostname 1*log(4)+2 plus zone 1*log(4)+4 = 8.77 → 9; b: hostname only 0+2 = 2
    assert raw == {"a": 9, "b": 2}
    assert got == {"a": 22, "b": 100}


def test_list_defaulting_hard_default_constraints_filter():
    args = {
        "defaultingType": "List",
        "defaultConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
        ],
    }
    objects = {"Service": [{"metadata": {"name": "s"}, "spec": {"selector": {"foo": ""}}}]}
    nodes = [N("a", {"zone": "z1"}), N("b", {"zone": "z2"})]
    pods = [P("a1", {"foo": ""}, node="a")]
    pl, snap = plugin_for(nodes, pods, args, objects)
    _, got = filter_all(pl, snap, P("p", {"foo": ""}))
    assert {n: code_of(s) for n, s in got.items()} == {"a": UNSCHED, "b": OK}
    # List defaulting requires all topology keys when scoring, system defaulting does not
    assert pl.system_defaulted is False


# -- preemption: AddPod / RemovePod on a cloned state -----------------------------------------


def test_add_pod_updates_counts_and_critical_paths():
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", FOO)])
    nodes = [
        N("node-a", {"zone": "zone1", "node": "node-a"}),
        N("node-x", {"zone": "zone2", "node": "node-x"}),
    ]
    pl, snap = plugin_for(nodes, [])
    state, _ = filter_all(pl, snap, pod)
    added = P("p-a1", {"foo": ""}, node="node-a")
    assert pl.pre_filter_extensions().add_pod(state, pod, added, snap.get("node-a")) is None
    s = state.read(pts.PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}]
    assert [(p.v0, p.n0) for p in s.critical_paths] == [("zone2", 0), ("node-x", 0)]
    assert code_of(pl.filter(state, pod, snap.get("node-a"))) == UNSCHED


@pytest.mark.parametrize(
    "added",
    [
        pytest.param(P("p-a1", {"foo": ""}, ns="ns1", node="node-a"), id="other namespace"),
        pytest.param(P("p-a1", {"bar": ""}, node="node-a"), id="selector does not match"),
    ],
)
def test_add_pod_that_does_not_count(added):
    pod = P("p", {"foo": ""}, tsc=[hard(1, "node", FOO)])
    nodes = [N("node-a", {"node": "node-a"}), N("node-b", {"node": "node-b"})]
    pl, snap = plugin_for(nodes, [P("p-b1", {"foo": ""}, node="node-b")])
    state, _ = filter_all(pl, snap, pod)
    pl.add_pod(state, pod, added, snap.get("node-a"))
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [
        {"node-a": 0, "node-b": 1}
    ]


def test_remove_pod_two_constraints_on_a_clone():
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO), hard(1, "node", FOO)])
    nodes = [
        N("node-a", {"zone": "zone1", "node": "node-a"}),
        N("node-b", {"zone": "zone1", "node": "node-b"}),
        N("node-x", {"zone": "zone2", "node": "node-x"}),
    ]
    existing = [
        P("p-a1", {"foo": ""}, node="node-a"),
        P("p-a2", {"foo": ""}, node="node-a"),
        P("p-b1", {"foo": ""}, node="node-b"),
        P("p-x1", {"foo": ""}, node="node-x"),
        P("p-x2", {"foo": ""}, node="node-x"),
    ]
    pl, snap = plugin_for(nodes, existing)
    state, _ = filter_all(pl, snap, pod)
    copy = state.clone()
    assert pl.remove_pod(copy, pod, existing[3], snap.get("node-x")) is None
    s = copy.read(pts.PRE_FILTER_STATE_KEY)
    assert s.tp_value_to_match_num == [
        {"zone1": 3, "zone2": 1},
        {"node-a": 2, "node-b": 1, "node-x": 1},
    ]
    assert (s.critical_paths[0].v0, s.critical_paths[0].n0) == ("zone2", 1)
    assert s.critical_paths[1].n0 == 1
    # the original state is untouched
    orig = state.read(pts.PRE_FILTER_STATE_KEY)
    assert orig.tp_value_to_match_num[0] == {"zone1": 3, "zone2": 2}
    assert orig.critical_paths[0].n0 == 2


def test_add_pod_respects_node_inclusion_policy():
    # nodeAffinityPolicy Honor: a pod added on a node the preemptor cannot use is not counted
    pod = P("p", {"foo": ""}, node_selector={"foo": ""}, tsc=[hard(1, "node", FOO)])
    nodes = [N("node-a", {"node": "node-a", "foo": ""}), N("node-b", {"node": "node-b"})]
    pl, snap = plugin_for(nodes, [])
    state, _ = filter_all(pl, snap, pod)
    pl.add_pod(state, pod, P("p-b1", {"foo": ""}, node="node-b"), snap.get("node-b"))
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"node-a": 0}]


def test_taints_policy_honor_with_toleration_counts_the_node():
    tol = [
        {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
    ]
    nodes = [N("a", {"node": "a"}), N("b", {"node": "b"}, tainted=True)]
    pods = [P("b1", {"foo": ""}, node="b")]
    for tolerations, want in ((None, [{"a": 0}]), (tol, [{"a": 0, "b": 1}])):
        pod = P(
            "p", {"foo": ""}, tolerations=tolerations, tsc=[hard(1, "node", FOO, taints="Honor")]
        )
        pl, snap = plugin_for(nodes, pods)
        state, _ = filter_all(pl, snap, pod)
        assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == want


# -- arithmetic as Go does it ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "want"), [(0.5, 1), (1.5, 2), (2.5, 3), (2.4999, 2), (7.0, 7), (0.49999999999999994, 0)]
)
def test_go_round_halves_away_from_zero(x, want):
    assert go_round(x) == want


def test_go_log_matches_go_math_log():
    # Go's math.Log (fdlibm) differs from a correctly rounded log by an ulp for 3
    assert go_log(3.0) == 1.0986122886681096
    assert go_log(2.0) == 0.6931471805599453
    assert pts.topology_normalizing_weight(0) == go_log(2.0)


def test_normalize_gives_ignored_nodes_zero_and_inverts():
    pl, _ = plugin_for([N("a", {})], [])
    state = CycleState()
    s = pts.PreScoreState()
    s.ignored_nodes = {"c"}
    state.write(pts.PRE_SCORE_STATE_KEY, s)
    scores = [NodeScore("a", 3), NodeScore("b", 9), NodeScore("c", 0)]
    assert pl.normalize_score(state, P("p"), scores) is None
    # 100 * (9 + 3 - s) / 9, truncated
    assert [x.score for x in scores] == [100, 33, 0]


def test_counts_follow_snapshot_changes_across_cycles():
    # per-node counts are reused between cycles only while the node's pods are unchanged
    pod = P("p", {"foo": ""}, tsc=[hard(1, "zone", FOO), soft(1, HOSTNAME, FOO)])
    nodes = [N("a", {"zone": "z1", HOSTNAME: "a"}), N("b", {"zone": "z2", HOSTNAME: "b"})]
    pl, snap = plugin_for(nodes, [P("a1", {"foo": ""}, node="a")])
    state, _ = filter_all(pl, snap, pod)
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"z1": 1, "z2": 0}]
    snap.add_pod(P("b1", {"foo": ""}, node="b"), "b")
    snap.add_pod(P("b2", {"foo": ""}, node="b"), "b")
    state, got = filter_all(pl, snap, pod)
    assert state.read(pts.PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"z1": 1, "z2": 2}]
    assert {n: code_of(s) for n, s in got.items()} == {"a": OK, "b": UNSCHED}
    raw, _ = score_all(pl, snap, pod, nodes)
    # hostname only (the zone constraint is hard): count * log(2 + 2) + 0
    assert raw == {"a": 1, "b": 3}
