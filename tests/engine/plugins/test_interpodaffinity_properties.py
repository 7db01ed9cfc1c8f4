"""InterPodAffinity: filter_batch and the tracked scoring nodes equal the per-node paths.

Random clusters (zone and hostname labels present, missing or empty; pods in
two namespaces with required and preferred (anti-)affinity), random incoming
pods, and pods added and removed through the snapshot between cycles.
filter_batch must equal ``filter(...) is None`` on every node (and on a
preemption clone after AddPod/RemovePod); PreScore, which visits only nodes
whose pods can score others, must equal a PreScore over every node with
affinity pods (the snapshot's own list).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.objects import parse_node, parse_pod
from scheduler_engine.plugins import interpodaffinity as ipa
from tests.engine.plugins.test_interpodaffinity import FakeHandle, affinity, node, pod, weighted

HOSTNAME = "kubernetes.io/hostname"
ZONE = "zone"
NAMESPACES = {"default": {"team": "a"}, "other": {"team": "b"}}


@st.composite
def term_st(draw: Any) -> dict[str, Any]:
    key = draw(st.sampled_from(("foo", "bar")))
    op = draw(st.sampled_from(("In", "Exists", "NotIn")))
    expr: dict[str, Any] = {"key": key, "operator": op}
    if op != "Exists":
        expr["values"] = [draw(st.sampled_from(("x", "y")))]
    t: dict[str, Any] = {
        "labelSelector": {"matchExpressions": [expr]},
        "topologyKey": draw(st.sampled_from((ZONE, HOSTNAME, "rack"))),
    }
    ns = draw(st.integers(0, 3))
    if ns == 1:
        t["namespaces"] = ["other"]
    elif ns == 2:
        t["namespaceSelector"] = {}
    elif ns == 3:
        t["namespaceSelector"] = {"matchLabels": {"team": "b"}}
    return t


@st.composite
def affinity_st(draw: Any) -> dict[str, Any] | None:
    if draw(st.integers(0, 3)) == 0:
        return None
    terms = st.lists(term_st(), max_size=2)
    wterms = st.lists(st.builds(weighted, st.integers(1, 100), term_st()), max_size=2)
    return affinity(
        req=draw(st.one_of(st.none(), terms)),
        anti=draw(st.one_of(st.none(), terms)),
        pref=draw(st.one_of(st.none(), wterms)),
        pref_anti=draw(st.one_of(st.none(), wterms)),
    )


@st.composite
def pod_st(draw: Any, name: str, where: str | None) -> Any:
    labels = {}
    for key in ("foo", "bar"):
        v = draw(st.sampled_from(("x", "y", None)))
        if v is not None:
            labels[key] = v
    obj = pod(
        labels,
        node=where,
        ns=draw(st.sampled_from(("default", "other"))),
        aff=draw(affinity_st()),
        name=name,
    )
    return parse_pod(obj)


@st.composite
def node_st(draw: Any, i: int) -> dict[str, Any]:
    labels = {}
    for key, values in ((ZONE, ("z1", "z2", "")), (HOSTNAME, (f"n{i}",)), ("rack", ("r1",))):
        v = draw(st.sampled_from((*values, None)))
        if v is not None:
            labels[key] = v
    return node(f"n{i}", labels)


class EveryAffinityNode(ipa.InterPodAffinity):
    """PreScore over every node with affinity pods (the snapshot's own list)."""

    __slots__ = ()

    def _scoring_nodes(self, snapshot: Any) -> Any:
        return snapshot.have_pods_with_affinity()


def _check(pl: Any, ref: Any, snap: Snapshot, incoming: Any, data: Any) -> None:
    nodes = snap.node_info_list
    state = CycleState()
    _, s = pl.pre_filter(state, incoming, nodes)
    if s is None:
        want = [pl.filter(state, incoming, ni) is None for ni in nodes]
        assert pl.filter_batch(state, incoming, nodes).tolist() == want
        subset = data.draw(st.permutations(nodes)).copy()[: data.draw(st.integers(0, len(nodes)))]
        assert pl.filter_batch(state, incoming, subset).tolist() == [
            pl.filter(state, incoming, ni) is None for ni in subset
        ]
        if nodes:
            clone = state.clone()
            ni = nodes[data.draw(st.integers(0, len(nodes) - 1))].clone()
            other = data.draw(pod_st("added", ni.name))
            ni.add_pod(other)
            pl.add_pod(clone, incoming, other, ni)
            if nodes[0].pods and data.draw(st.booleans()):
                pl.remove_pod(clone, incoming, nodes[0].pods[0], nodes[0])
            assert pl.filter_batch(clone, incoming, nodes).tolist() == [
                pl.filter(clone, incoming, n) is None for n in nodes
            ]
    # PreScore: tracked nodes vs every node with affinity pods
    a, b = CycleState(), CycleState()
    sa = pl.pre_score(a, incoming, nodes)
    sb = ref.pre_score(b, incoming, nodes)
    assert (sa is None, sa and sa.code) == (sb is None, sb and sb.code)
    if sa is None:
        assert a.read(ipa.PRE_SCORE_STATE_KEY).topology_score == (
            b.read(ipa.PRE_SCORE_STATE_KEY).topology_score
        )


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    nodes=st.integers(0, 8).flatmap(lambda n: st.tuples(*(node_st(i) for i in range(n)))),
    data=st.data(),
)
def test_filter_batch_and_scoring_nodes_equal_per_node(
    nodes: tuple[dict[str, Any], ...], data: Any
) -> None:
    parsed = [parse_node(n) for n in nodes]
    pods = []
    for i in range(data.draw(st.integers(0, 10))):
        if parsed:
            where = parsed[data.draw(st.integers(0, len(parsed) - 1))].name
            pods.append(data.draw(pod_st(f"e{i}", where)))
    snap = Snapshot(parsed, pods, NAMESPACES)
    handle = FakeHandle(snap)
    pl = ipa.new({}, handle)
    ref = EveryAffinityNode(handle)
    for step in range(3):
        _check(pl, ref, snap, data.draw(pod_st("incoming", None)), data)
        for j in range(data.draw(st.sampled_from((0, 1, 2, 12)))):
            if not snap.node_info_list:
                break
            ni = snap.node_info_list[data.draw(st.integers(0, len(snap.node_info_list) - 1))]
            if ni.pods and data.draw(st.booleans()):
                snap.remove_pod(ni.pods[0], ni.name)
            else:
                snap.add_pod(data.draw(pod_st(f"new-{step}-{j}", ni.name)), ni.name)
