"""Several pending pods and preemption, checked against upstream's rules written out here.

Random CPU-only clusters whose nodes are full, several pending pods of
distinct priorities.  The first round takes every pod once, in priority
order, and each attempt leaves its event; for each pod this test recomputes
what upstream's rules say that attempt must write, from the state the
earlier attempts of the round left:

* Filter (NodeResourcesFit with nominated pods): a node fits when its pods'
  requests, the requests of pods nominated to it with at least this pod's
  priority, and this pod's request stay within allocatable; a request above
  the node's whole allocatable is UnschedulableAndUnresolvable.
* SelectVictimsOnNode: the potential victims are the node's pods of lower
  priority, the earlier preemptors' victims included, which are still
  terminating there (upstream deletes them while the queue goes on); none
  means ``No preemption victims found for incoming pod``; without all of
  them the pod must fit beside the nominated pods, else the filter's reason.
* The message: ``0/N nodes are available: N Insufficient cpu.``, then, when no
  node is a candidate, ``no new claims to deallocate, preemption: 0/N nodes
  are available: `` and the per-node reasons, sorted as strings.

Where a pod binds or preempts, the engine's choice (read from its events) is
checked to be one the rules allow and becomes the next pod's state.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine import build_cluster, simulate

from .builders import make_node, make_pod

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
INSUFFICIENT = "Insufficient cpu"


def _cluster(rng: random.Random) -> tuple[list[Any], dict[str, int], list[dict[str, Any]]]:
    items: list[Any] = []
    alloc: dict[str, int] = {}
    running: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 5)):
        name = f"n{i}"
        cpu = rng.choice((2, 4, 8))
        alloc[name] = cpu
        items.append(make_node(name).cap(cpu=str(cpu), memory="64Gi", pods=110))
        left = cpu
        j = 0
        while left > 0:
            c = rng.randint(1, left)
            prio = rng.choice((0, 10, 100, 1000))
            pod = {"key": f"default/r{i}-{j}", "cpu": c, "prio": prio, "node": name}
            running.append(pod)
            items.append(make_pod(f"r{i}-{j}").priority(prio).req(cpu=str(c)).node(name))
            left -= c
            j += 1
    return items, alloc, running


def _fits(p: dict[str, Any], node: str, alloc: dict[str, int], pods, nominated) -> bool:
    used = sum(q["cpu"] for q in pods if q["node"] == node)
    used += sum(q["cpu"] for q in nominated if q["node"] == node and q["prio"] >= p["prio"])
    return used + p["cpu"] <= alloc[node]


def _expected(p, alloc, pods, nominated) -> tuple[str, set[str], set[str]]:
    """The attempt's message, the nodes it may bind to, the nodes it may preempt on."""
    n = len(alloc)
    feasible = {node for node in alloc if _fits(p, node, alloc, pods, nominated)}
    filter_part = f"0/{n} nodes are available: {n} {INSUFFICIENT}."
    if feasible:
        return "", feasible, set()
    reasons: Counter[str] = Counter()
    candidates = set()
    for node in alloc:
        if p["cpu"] > alloc[node]:
            reasons[NOT_HELPFUL] += 1
            continue
        potential = [q for q in pods if q["node"] == node and q["prio"] < p["prio"]]
        if not potential:
            reasons[NO_VICTIMS] += 1
            continue
        rest = [q for q in pods if q not in potential]
        if _fits(p, node, alloc, rest, nominated):
            candidates.add(node)
        else:
            reasons[INSUFFICIENT] += 1
    if candidates:
        return filter_part, set(), candidates
    hist = ", ".join(sorted(f"{c} {r}" for r, c in reasons.items()))
    tail = f" no new claims to deallocate, preemption: 0/{n} nodes are available: {hist}."
    return filter_part + tail, set(), set()


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_first_round_follows_upstreams_rules(seed: int) -> None:
    rng = random.Random(seed)
    items, alloc, running = _cluster(rng)
    prios = rng.sample((5, 20, 50, 200, 500, 2000, 5000), rng.randint(2, 5))
    pending = []
    for k, prio in enumerate(sorted(prios, reverse=True)):
        cpu = rng.randint(1, max(alloc.values()) + 1)
        pending.append({"key": f"default/p{k}", "cpu": cpu, "prio": prio, "uid": f"uid-p{k}"})
        items.append(make_pod(f"p{k}").priority(prio).req(cpu=str(cpu)))
    doc = simulate(build_cluster([i.obj() for i in items]), seed=seed).to_dict()

    stream = doc["events"]
    pods = list(running)
    nominated: list[dict[str, Any]] = []
    terminating: set[str] = set()
    pos = 0
    for p in pending:  # round 1: every pod once, in priority order
        while stream[pos]["reason"] == "Preempted":
            pos += 1
        event = stream[pos]
        assert event["pod"] == p["key"], (event, p)
        pos += 1
        preempted = []
        while pos < len(stream) and stream[pos]["reason"] == "Preempted":
            preempted.append(stream[pos])
            pos += 1
        message, feasible, candidates = _expected(p, alloc, pods, nominated)
        if event["reason"] == "Scheduled":
            node = event["message"].rsplit(" to ", 1)[1]
            assert node in feasible, (p, event)
            pods.append({**p, "node": node})
            continue
        assert event["message"] == message, (p, pods, nominated)
        if not candidates:
            assert not preempted
            continue
        if not preempted:
            # every victim it chose was already terminating: no delete, no event (upstream's
            # asynchronous preemption returns early), so its node is not known from here on
            assert any(
                q["key"] in terminating and q["prio"] < p["prio"] and q["node"] in candidates
                for q in pods
            )
            break
        # the engine's choice: one candidate node, victims of lower priority on it
        nodes = {e["message"].rsplit(" on node ", 1)[1] for e in preempted}
        assert len(nodes) == 1 and nodes <= candidates
        node = nodes.pop()
        victims = {e["pod"] for e in preempted}
        on_node = {q["key"]: q for q in pods if q["node"] == node}
        assert victims <= set(on_node)
        assert all(on_node[v]["prio"] < p["prio"] for v in victims)
        assert all(e["message"].startswith(f"Preempted by pod {p['uid']} ") for e in preempted)
        assert not victims & terminating  # a victim already being deleted gets no event
        # the victims stay (terminating) for the rest of the round; the pod is nominated
        terminating |= victims
        nominated.append({**p, "node": node})
