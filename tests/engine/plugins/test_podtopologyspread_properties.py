"""PodTopologySpread: the incremental and batch paths equal the per-node reference.

Random clusters (zones and racks with missing and empty labels, taints, pods in
two namespaces, terminating pods), random constraints (both actions, minDomains,
both node policies, matchLabelKeys, selectors that select everything or nothing)
and random pod additions and removals between cycles, so the per-snapshot counts
are brought up to date from ``Snapshot.change_log``.  The reference is the same
walk over the nodes written out below (upstream's ``calPreFilterState`` and
``initPreScoreState``) and the per-node Filter/Score/NormalizeScore.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine.framework import Code, CycleState, NodeScore, Snapshot
from scheduler_engine.plugins import podtopologyspread as pts
from scheduler_engine.plugins.podtopologyspread import index as pts_index
from scheduler_engine.plugins.podtopologyspread.common import (
    _count_matching,
    _node_has_all_keys,
    _NodePolicy,
)
from scheduler_engine.plugins.podtopologyspread.scoring import topology_normalizing_weight
from tests.engine.plugins.test_podtopologyspread import FakeHandle, N, P

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
KEYS = (ZONE, "rack", HOSTNAME)

SELECTORS: tuple[dict[str, Any] | None, ...] = (
    {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
    {"matchLabels": {"foo": "x"}},
    {"matchExpressions": [{"key": "foo", "operator": "NotIn", "values": ["y"]}]},
    {},
    None,
)


@st.composite
def node_st(draw: Any, i: int) -> Any:
    labels: dict[str, str] = {}
    zone = draw(st.sampled_from(("z1", "z2", "z3", "", None)))
    if zone is not None:
        labels[ZONE] = zone
    rack = draw(st.sampled_from(("r1", "r2", None)))
    if rack is not None:
        labels["rack"] = rack
    if draw(st.integers(0, 9)) > 0:
        labels[HOSTNAME] = f"n{i}"
    env = draw(st.sampled_from(("a", "b", None)))
    if env is not None:
        labels["env"] = env
    return N(f"n{i}", labels, tainted=draw(st.booleans()))


@st.composite
def pod_st(draw: Any, name: str, node: str = "") -> Any:
    labels = {}
    foo = draw(st.sampled_from(("x", "y", None)))
    if foo is not None:
        labels["foo"] = foo
    if draw(st.booleans()):
        labels["app"] = draw(st.sampled_from(("p", "q")))
    return P(
        name,
        labels,
        ns=draw(st.sampled_from(("", "other"))),
        node=node,
        terminating=draw(st.integers(0, 5)) == 0,
    )


@st.composite
def constraint_st(draw: Any) -> dict[str, Any]:
    c: dict[str, Any] = {
        "maxSkew": draw(st.integers(1, 3)),
        "topologyKey": draw(st.sampled_from(KEYS)),
        "whenUnsatisfiable": draw(st.sampled_from(("DoNotSchedule", "ScheduleAnyway"))),
    }
    sel = draw(st.sampled_from(SELECTORS))
    if sel is not None:
        c["labelSelector"] = sel
    if draw(st.booleans()):
        c["minDomains"] = draw(st.integers(1, 5))
    for field, values in (
        ("nodeAffinityPolicy", ("Honor", "Ignore")),
        ("nodeTaintsPolicy", ("Honor", "Ignore")),
    ):
        v = draw(st.sampled_from((*values, None)))
        if v is not None:
            c[field] = v
    if draw(st.booleans()):
        c["matchLabelKeys"] = ["app"]
    return c


@st.composite
def incoming_st(draw: Any) -> Any:
    labels = {}
    foo = draw(st.sampled_from(("x", "y", None)))
    if foo is not None:
        labels["foo"] = foo
    if draw(st.booleans()):
        labels["app"] = draw(st.sampled_from(("p", "q")))
    tsc = draw(st.lists(constraint_st(), min_size=0, max_size=3))
    affinity = None
    ns_sel = None
    pick = draw(st.integers(0, 3))
    if pick == 1:
        ns_sel = {"env": "a"}
    elif pick == 2:
        affinity = [("env", "In", ["a", "b"])]
    elif pick == 3:
        # reads the node's name: evaluated per node, not per signature
        affinity = [(HOSTNAME, "In", ["n0", "n2", "n3"])]
    tolerations = None
    if draw(st.booleans()):
        tolerations = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]
    return P(
        "incoming",
        labels,
        ns=draw(st.sampled_from(("", "other"))),
        node_selector=ns_sel,
        affinity=affinity,
        tsc=tsc,
        tolerations=tolerations,
    )


def _paths(s: Any) -> list[tuple[str, int, str, int]]:
    return [(p.v0, p.n0, p.v1, p.n1) for p in s.critical_paths]


def _status(s: Any) -> Any:
    return None if s is None else (s.code, tuple(s.reasons))


def _walked_pre_filter_state(pl: Any, pod: Any, nodes: Any) -> Any:
    """The reference PreFilter state: matching pods per domain, node by node."""
    constraints = pl.get_constraints(pod, "DoNotSchedule")
    if not constraints:
        return None
    counts: list[dict[str, int]] = [{} for _ in constraints]
    policy = _NodePolicy(pod)
    for ni in nodes:
        labels = ni.node.labels
        if not _node_has_all_keys(labels, constraints):
            continue
        policy.reset()
        for i, c in enumerate(constraints):
            if policy.includes(c, ni.node):
                v = labels[c.topology_key]
                n = _count_matching(ni.pods, c.selector, pod.namespace)
                counts[i][v] = counts[i].get(v, 0) + n
    paths = []
    for d in counts:
        p = pts.CriticalPaths()
        for v, n in d.items():
            p.update(v, n)
        paths.append(p)
    self_match = [1 if c.selector.matches(pod.labels) else 0 for c in constraints]
    return pts.PreFilterState(constraints, paths, counts, self_match)


def _walked_pre_score_state(pl: Any, pod: Any, cand: Any, nodes: Any) -> Any:
    """The reference PreScore state: the candidates' domains, counted over every node."""
    constraints = pl.get_constraints(pod, "ScheduleAnyway")
    if not nodes or not constraints:
        return None
    require_all = bool(pod.topology_spread_constraints) or not pl.system_defaulted
    s = pts.PreScoreState()
    s.constraints = constraints
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for ni in cand:
        labels = ni.node.labels
        if require_all and not _node_has_all_keys(labels, constraints):
            s.ignored_nodes.add(ni.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != HOSTNAME:
                counts[i].setdefault(labels.get(c.topology_key, ""), 0)
    policy = _NodePolicy(pod)
    for ni in nodes:
        labels = ni.node.labels
        if require_all and not _node_has_all_keys(labels, constraints):
            continue
        policy.reset()
        for i, c in enumerate(constraints):
            v = labels.get(c.topology_key, "")
            if v in counts[i] and policy.includes(c, ni.node):
                counts[i][v] += _count_matching(ni.pods, c.selector, pod.namespace)
    s.tp_value_to_pod_counts = counts
    s.normalizing_weight = [
        topology_normalizing_weight(
            len(cand) - len(s.ignored_nodes) if c.topology_key == HOSTNAME else len(counts[i])
        )
        for i, c in enumerate(constraints)
    ]
    return s


def _check_cycle(fast: Any, snap: Snapshot, pod: Any, data: Any) -> None:
    nodes = snap.node_info_list
    # -- PreFilter / Filter
    fs, rs = CycleState(), CycleState()
    fr, ff = fast.pre_filter(fs, pod, nodes)
    walked = _walked_pre_filter_state(fast, pod, nodes)
    assert _status(ff) == (None if walked is not None else (Code.SKIP, ()))
    if ff is None:
        rs.write(pts.PRE_FILTER_STATE_KEY, walked)
        a, b = fs.read(pts.PRE_FILTER_STATE_KEY), rs.read(pts.PRE_FILTER_STATE_KEY)
        assert a.domain_counts is not None
        # same domains, same counts, same (first-seen) order, same critical paths
        assert [list(d.items()) for d in a.tp_value_to_match_num] == [
            list(d.items()) for d in b.tp_value_to_match_num
        ]
        assert _paths(a) == _paths(b)
        assert a.self_match == b.self_match
        # over a node list that is not the snapshot's: the same counts, from views built for it
        other = CycleState()
        fast.pre_filter(other, pod, list(nodes))
        c = other.read(pts.PRE_FILTER_STATE_KEY)
        assert c.tp_value_to_match_num == b.tp_value_to_match_num and _paths(c) == _paths(b)
        want = [fast.filter(rs, pod, ni) for ni in nodes]
        assert [_status(fast.filter(fs, pod, ni)) for ni in nodes] == [_status(w) for w in want]
        assert fast.filter_batch(fs, pod, nodes).tolist() == [w is None for w in want]
        subset = data.draw(st.permutations(nodes)).copy()[: data.draw(st.integers(0, len(nodes)))]
        got = fast.filter_batch(fs, pod, subset).tolist()
        assert got == [fast.filter(rs, pod, ni) is None for ni in subset]
        # AddPod/RemovePod on a clone (preemption): the batch reads the changed counts
        if nodes:
            clone = fs.clone()
            ni = nodes[data.draw(st.integers(0, len(nodes) - 1))].clone()
            other = data.draw(pod_st("added", ni.name))
            ni.add_pod(other)
            fast.add_pod(clone, pod, other, ni)
            if data.draw(st.booleans()) and snap.node_info_list[0].pods:
                victim = snap.node_info_list[0].pods[0]
                fast.remove_pod(clone, pod, victim, snap.node_info_list[0])
            per_node = [fast.filter(clone, pod, n) is None for n in nodes]
            assert fast.filter_batch(clone, pod, nodes).tolist() == per_node
            # the original state is untouched
            assert fast.filter_batch(fs, pod, nodes).tolist() == [w is None for w in want]
    # -- PreScore / Score / NormalizeScore over random candidates
    cand = data.draw(st.permutations(nodes)).copy()[: data.draw(st.integers(0, len(nodes)))]
    fs, rs = CycleState(), CycleState()
    got = fast.pre_score(fs, pod, cand)
    b = _walked_pre_score_state(fast, pod, cand, nodes)
    assert _status(got) == (None if b is not None else (Code.SKIP, ()))
    if b is None:
        return
    a = fs.read(pts.PRE_SCORE_STATE_KEY)
    rs.write(pts.PRE_SCORE_STATE_KEY, b)
    assert a.ignored_nodes == b.ignored_nodes
    assert a.tp_value_to_pod_counts == b.tp_value_to_pod_counts
    assert a.normalizing_weight == b.normalizing_weight
    ref_scores = [NodeScore(ni.name, fast.score(rs, pod, ni)) for ni in cand]
    raw = fast.score_batch(fs, pod, cand)
    assert raw.dtype == np.int64
    assert raw.tolist() == [s.score for s in ref_scores]
    assert [fast.score(fs, pod, ni) for ni in cand] == [s.score for s in ref_scores]
    assert fast.normalize_score(rs, pod, ref_scores) is None
    norm = raw.copy()
    assert fast.normalize_score_batch(fs, pod, norm) is None
    assert norm.tolist() == [s.score for s in ref_scores]


def _change(snap: Snapshot, data: Any, step: int) -> None:
    """Add or remove a pod through the snapshot (recorded in its change log)."""
    nodes = snap.node_info_list
    if not nodes:
        return
    for j in range(data.draw(st.sampled_from((0, 1, 2, 3, 12)))):
        ni = nodes[data.draw(st.integers(0, len(nodes) - 1))]
        if ni.pods and data.draw(st.booleans()):
            snap.remove_pod(ni.pods[data.draw(st.integers(0, len(ni.pods) - 1))], ni.name)
        else:
            snap.add_pod(data.draw(pod_st(f"new-{step}-{j}", ni.name)), ni.name)


SERVICES = {"Service": [{"metadata": {"name": "s"}, "spec": {"selector": {"foo": "x"}}}]}


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    nodes=st.integers(0, 10).flatmap(lambda n: st.tuples(*(node_st(i) for i in range(n)))),
    data=st.data(),
)
def test_fast_paths_equal_per_node_paths(nodes: tuple[Any, ...], data: Any) -> None:
    pods = []
    for i in range(data.draw(st.integers(0, 14))):
        if nodes:
            where = nodes[data.draw(st.integers(0, len(nodes) - 1))].name
            pods.append(data.draw(pod_st(f"e{i}", where)))
    snap = Snapshot(nodes, pods)
    args: dict[str, Any] = data.draw(
        st.sampled_from(
            (
                {},
                {
                    "defaultingType": "List",
                    "defaultConstraints": [
                        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
                        {
                            "maxSkew": 2,
                            "topologyKey": "rack",
                            "whenUnsatisfiable": "ScheduleAnyway",
                        },
                    ],
                },
            )
        )
    )
    handle = FakeHandle(snap, SERVICES)
    fast = pts.new(args, handle)
    for step in range(3):
        pod = data.draw(incoming_st())
        _check_cycle(fast, snap, pod, data)
        _change(snap, data, step)


def test_critical_paths_from_numpy_equal_the_loop() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(pts_index._NUMPY_PATHS_MIN, 80))
        vals = rng.integers(0, 4, size=n)
        counts = {f"d{i}": int(v) for i, v in enumerate(vals)}
        want = pts.CriticalPaths()
        for k, v in counts.items():
            want.update(k, v)
        got = pts_index._critical_paths(counts, np.array(list(counts.values()), dtype=np.int64))
        assert (got.v0, got.n0, got.v1, got.n1) == (want.v0, want.n0, want.v1, want.n1)
