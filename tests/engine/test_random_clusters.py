"""Self-consistency of the engine over random clusters (:mod:`tests.engine.randomgen`).

The engine is measured against the real kube-scheduler on clusters nobody
sees in advance, so these tests throw many random but realistic snapshots at
``simulate()`` and check what must hold whatever upstream would decide:

1. explaining (per-node paths) and not explaining (batch paths) decide the same;
2. a seed reproduces a run; results come in queue order;
3. the final placement respects allocatable and pod counts, and every placed
   pod's node passes taints/tolerations, cordons, nodeSelector, required node
   affinity, host ports and required anti-affinity (both directions) — each
   re-checked here by small reference code, not by the engine's plugins;
4. every ``FailedScheduling`` message has upstream's shape;
5. preemption victims have lower priority than their preemptor, and a
   ``preemptionPolicy: Never`` pod evicts nobody;
6. ``percentageOfNodesToScore: 100`` changes nothing below 100 nodes;
7. the CLI prints what ``simulate()`` returns, and bad snapshots exit 2 with
   one line on stderr.

Hypothesis draws the seed of a :class:`random.Random` that builds the snapshot;
``derandomize=True`` keeps CI deterministic.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine import build_cluster, load_config_text, simulate
from scheduler_engine.cli import main as cli_main

from .randomgen import GPU, PRIORITY_CLASSES, pod_requests, random_cluster

ROOT = Path(__file__).resolve().parents[2]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
    "database": None,
}
DECISION = ("pod", "status", "node", "nominatedNode", "victims", "message")


# -- helpers ------------------------------------------------------------------------
def run(objs: list[dict[str, Any]], seed: int = 0, **kw: Any) -> dict[str, Any]:
    return simulate(build_cluster(objs), seed=seed, **kw).to_dict()


def decisions(doc: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    return [tuple(r[k] for k in DECISION) for r in doc["results"]]


def key(o: Mapping[str, Any]) -> str:
    m = o["metadata"]
    return f"{m.get('namespace', 'default')}/{m['name']}"


def priority(o: Mapping[str, Any]) -> int:
    spec = o["spec"]
    if "priorityClassName" in spec:
        return PRIORITY_CLASSES[spec["priorityClassName"]][0]
    return int(spec.get("priority", 0))


def preemption_policy(o: Mapping[str, Any]) -> str:
    spec = o["spec"]
    if "preemptionPolicy" in spec:
        return spec["preemptionPolicy"]
    if "priorityClassName" in spec:
        return PRIORITY_CLASSES[spec["priorityClassName"]][1]
    return "PreemptLowerPriority"


def creation(o: Mapping[str, Any]) -> str:
    return o["metadata"]["creationTimestamp"]


# -- reference predicates (independent of the engine's plugins) ----------------------
def tolerates(tol: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    if tol.get("effect") and tol["effect"] != taint["effect"]:
        return False
    if tol.get("key", "") == "" and tol.get("operator") == "Exists":
        return True
    if tol.get("key", "") != taint["key"]:
        return False
    if tol.get("operator", "Equal") == "Exists":
        return True
    return tol.get("value", "") == taint.get("value", "")


def taints_ok(pod: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    tols = pod["spec"].get("tolerations") or []
    taints = [
        t for t in node["spec"].get("taints") or [] if t["effect"] in ("NoSchedule", "NoExecute")
    ]
    if node["spec"].get("unschedulable"):
        taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
    return all(any(tolerates(t, taint) for t in tols) for taint in taints)


def expr_ok(e: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    k, op, vals = e["key"], e["operator"], e.get("values") or []
    if op == "In":
        return k in labels and labels[k] in vals
    if op == "NotIn":
        return k not in labels or labels[k] not in vals
    if op == "Exists":
        return k in labels
    if op == "DoesNotExist":
        return k not in labels
    if op in ("Gt", "Lt"):
        if k not in labels:
            return False
        try:
            v = int(labels[k])
        except ValueError:
            return False
        return v > int(vals[0]) if op == "Gt" else v < int(vals[0])
    raise AssertionError(op)


def node_affinity_ok(pod: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    labels = node["metadata"].get("labels") or {}
    if any(labels.get(k) != v for k, v in (pod["spec"].get("nodeSelector") or {}).items()):
        return False
    req = (
        ((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
    ) or None
    if req is None:
        return True
    fields = {"metadata.name": node["metadata"]["name"]}
    for term in req["nodeSelectorTerms"]:
        exprs = term.get("matchExpressions") or []
        fexprs = term.get("matchFields") or []
        if not exprs and not fexprs:
            continue
        if all(expr_ok(e, labels) for e in exprs) and all(expr_ok(e, fields) for e in fexprs):
            return True
    return False


def host_ports(pod: Mapping[str, Any]) -> set[tuple[str, int]]:
    out = set()
    for c in pod["spec"]["containers"]:
        for p in c.get("ports") or []:
            if p.get("hostPort"):
                out.add((p.get("protocol", "TCP"), int(p["hostPort"])))
    return out


def term_matches(
    term: Mapping[str, Any], owner: Mapping[str, Any], other: Mapping[str, Any]
) -> bool:
    """Does ``owner``'s (anti-)affinity term select ``other`` (namespaces and labels)?"""
    ons = owner["metadata"]["namespace"]
    ns = other["metadata"]["namespace"]
    if "namespaceSelector" in term:
        # the generator only writes the empty selector: every namespace
        ns_ok = True if term["namespaceSelector"] == {} else None
        assert ns_ok is not None
    else:
        ns_ok = ns in (term.get("namespaces") or [ons])
    if not ns_ok:
        return False
    sel = term["labelSelector"]
    labels = other["metadata"].get("labels") or {}
    if any(labels.get(k) != v for k, v in (sel.get("matchLabels") or {}).items()):
        return False
    return all(expr_ok(e, labels) for e in sel.get("matchExpressions") or [])


def anti_terms(pod: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    aff = (pod["spec"].get("affinity") or {}).get("podAntiAffinity") or {}
    return list(aff.get("requiredDuringSchedulingIgnoredDuringExecution") or [])


def same_domain(a: Mapping[str, Any], b: Mapping[str, Any], topology_key: str) -> bool:
    la, lb = a["metadata"]["labels"], b["metadata"]["labels"]
    return topology_key in la and topology_key in lb and la[topology_key] == lb[topology_key]


# -- message shape --------------------------------------------------------------------
HIST_ITEM = re.compile(r"(\d+) (.+)")
NOT_ELIGIBLE = (
    "not eligible due to preemptionPolicy=Never.",
    "not eligible due to a terminating pod on the nominated node.",
)
POSTFILTER = "no new claims to deallocate, preemption: "


def parse_histogram(text: str, n: int) -> list[tuple[int, str]]:
    """``<count> <reason>, ...`` → items; checks sort order, counts and coverage."""
    parts = re.split(r", (?=\d+ )", text)
    assert parts == sorted(parts), f"reasons not sorted as strings: {parts}"
    items = []
    for p in parts:
        m = HIST_ITEM.fullmatch(p)
        assert m is not None, f"bad histogram item {p!r}"
        c = int(m.group(1))
        assert 1 <= c <= n, f"count {c} out of range in {p!r}"
        items.append((c, m.group(2)))
    assert sum(c for c, _ in items) >= n, f"not every node counted: {text!r}"
    return items


def check_message(msg: str, n: int, nominated: str | None, policy: str) -> None:
    prefix = f"0/{n} nodes are available: "
    assert msg.startswith(prefix), msg
    if msg.endswith(" ..."):  # cut at the event note limit: only the prefix is checked
        return
    body = msg[len(prefix) :]
    head, sep, tail = body.partition(". " + POSTFILTER)
    if not sep:
        # no PostFilter part: preemption nominated a node, or PreFilter rejected early
        if body.endswith(". not found"):
            return
        assert body.endswith("."), msg
        assert nominated, f"no preemption part without a nomination: {msg}"
        parse_histogram(body[:-1], n)
        return
    # a pod not eligible to preempt keeps the nomination it came with (PostFilter
    # leaves it alone); any other nominated pod's message has no preemption part
    assert not nominated or tail in NOT_ELIGIBLE, (
        f"a nominated pod's message has no preemption part: {msg}"
    )
    if HIST_ITEM.match(head):
        parse_histogram(head, n)
    if tail in NOT_ELIGIBLE:
        if tail.startswith("not eligible due to preemptionPolicy"):
            assert policy == "Never", msg
        return
    assert policy != "Never", msg
    pre = f"0/{n} nodes are available: "
    assert tail.startswith(pre) and tail.endswith("."), msg
    parse_histogram(tail[len(pre) : -1], n)


# -- the invariants -------------------------------------------------------------------
def check_run(objs: list[dict[str, Any]], doc: Mapping[str, Any]) -> None:
    nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    pods = {key(o): o for o in objs if o["kind"] == "Pod"}
    pending = [k for k, o in pods.items() if not o["spec"].get("nodeName")]
    results = doc["results"]
    n = len(nodes)

    # 2. one result per pending pod, in queue order (priority desc, then creation)
    assert sorted(r["pod"] for r in results) == sorted(pending)
    order = [(-priority(pods[r["pod"]]), creation(pods[r["pod"]])) for r in results]
    assert order == sorted(order), "results not in queue order"

    # 5. victims: lower priority than their preemptor; Never preempts nobody
    victims: set[str] = set()
    for r in results:
        p = pods[r["pod"]]
        if r["victims"]:
            assert preemption_policy(p) != "Never", r
        for v in r["victims"]:
            assert priority(pods[v]) < priority(p), (r["pod"], v)
            victims.add(v)
    by_status = {r["pod"]: r for r in results}

    # final placement: running pods and placed pods, minus the evicted
    placed = {r["pod"]: r["node"] for r in results if r["status"] == "Scheduled"}
    on_node: dict[str, list[str]] = {name: [] for name in nodes}
    for k, o in pods.items():
        node = o["spec"].get("nodeName") or placed.get(k)
        if node and k not in victims:
            on_node[node].append(k)

    # 3. resources and pod counts
    for name, keys in on_node.items():
        alloc = nodes[name]["status"]["allocatable"]
        assert len(keys) <= int(alloc["pods"]), f"{name}: too many pods"
        used: dict[str, int] = {}
        for k in keys:
            for res, v in pod_requests(pods[k]).items():
                used[res] = used.get(res, 0) + v
        limits = {
            "cpu": _alloc(alloc, "cpu"),
            "memory": _alloc(alloc, "memory"),
            "ephemeral-storage": _alloc(alloc, "ephemeral-storage"),
            GPU: int(alloc.get(GPU, "0")),
        }
        for res, v in used.items():
            if res in limits:
                assert v <= limits[res], f"{name}: {res} {v} > {limits[res]}"

    # 3. each placed pod's node, re-checked
    where = {k: node for node, keys in on_node.items() for k in keys}
    for k, node_name in placed.items():
        if k in victims:
            continue
        pod, node = pods[k], nodes[node_name]
        assert taints_ok(pod, node), f"{k} on {node_name}: untolerated taint or cordon"
        assert node_affinity_ok(pod, node), f"{k} on {node_name}: node selector/affinity"
        ports = host_ports(pod)
        for other in on_node[node_name]:
            if other != k:
                clash = ports & host_ports(pods[other])
                assert not clash, f"{k} and {other} share host ports {clash} on {node_name}"
        for other, other_node in where.items():
            if other == k:
                continue
            o = pods[other]
            for owner, target, owner_node, target_node in (
                (pod, o, node, nodes[other_node]),
                (o, pod, nodes[other_node], node),
            ):
                for term in anti_terms(owner):
                    if same_domain(owner_node, target_node, term["topologyKey"]) and term_matches(
                        term, owner, target
                    ):
                        # two placed pods: the later one had to honour the earlier one
                        raise AssertionError(
                            f"anti-affinity: {key(owner)} on {owner_node['metadata']['name']} "
                            f"selects {key(target)} on {target_node['metadata']['name']}"
                        )

    # 4. messages; node-independent filters' counts are exact whatever the state was
    for r in results:
        if r["status"] == "Unschedulable":
            pod = pods[r["pod"]]
            check_message(r["message"], n, r["nominatedNode"], preemption_policy(pod))
            hist = filter_histogram(r["message"], n)
            if hist is not None:
                # a pod that may preempt loses an input nomination at its first failed
                # attempt (PostFilter clears it); a retry then no longer tries that node
                keeps = preemption_policy(pod) == "Never"
                options = [static_reasons(pod, nodes, True)]
                if not keeps:
                    options.append(static_reasons(pod, nodes, False))
                assert any(
                    all(hist.get(reason, 0) == count for reason, count in want.items())
                    for want in options
                ), (r["pod"], options, r["message"])
        elif r["status"] == "Scheduled":
            assert r["node"] in nodes
            assert r["message"] == f"Successfully assigned {r['pod']} to {r['node']}"
        else:
            raise AssertionError(f"unexpected status {r}")
    assert by_status  # at least one pending pod per generated cluster

    # 3b. completeness: with no eviction in the run the cluster only filled up, so a
    # pod left unschedulable (without constraints that a fuller cluster can help)
    # must fit no node of the final state either
    if victims:
        return
    # a nominated pod holds room on its node for pods of lower priority, even while it
    # stays unschedulable itself (a pod that cannot preempt keeps its nomination)
    if any((pods[k].get("status") or {}).get("nominatedNodeName") for k in pending) or any(
        r["nominatedNode"] for r in results
    ):
        return
    for r in results:
        pod = pods[r["pod"]]
        if r["status"] != "Unschedulable" or not monotone(pod):
            continue
        for name, node in nodes.items():
            if fits_final(pod, node, on_node[name], pods, where, nodes):
                raise AssertionError(f"{r['pod']} fits {name} but was left: {r['message']}")


def monotone(pod: Mapping[str, Any]) -> bool:
    """No filter of this pod can turn from failing to passing as pods are added."""
    aff = (pod["spec"].get("affinity") or {}).get("podAffinity") or {}
    if aff.get("requiredDuringSchedulingIgnoredDuringExecution"):
        return False
    return all(
        c["whenUnsatisfiable"] != "DoNotSchedule"
        for c in pod["spec"].get("topologySpreadConstraints") or []
    )


def fits_final(
    pod: Mapping[str, Any],
    node: Mapping[str, Any],
    keys: list[str],
    pods: Mapping[str, Mapping[str, Any]],
    where: Mapping[str, str],
    nodes: Mapping[str, Mapping[str, Any]],
) -> bool:
    if not taints_ok(pod, node) or not node_affinity_ok(pod, node):
        return False
    alloc = node["status"]["allocatable"]
    if len(keys) + 1 > int(alloc["pods"]):
        return False
    used = pod_requests(pod)
    for k in keys:
        for res, v in pod_requests(pods[k]).items():
            used[res] = used.get(res, 0) + v
    limits = {
        "cpu": _alloc(alloc, "cpu"),
        "memory": _alloc(alloc, "memory"),
        "ephemeral-storage": _alloc(alloc, "ephemeral-storage"),
        GPU: int(alloc.get(GPU, "0")),
    }
    if any(pod_requests(pod).get(res, 0) and used[res] > lim for res, lim in limits.items()):
        return False
    ports = host_ports(pod)
    if any(ports & host_ports(pods[k]) for k in keys):
        return False
    for other, other_node in where.items():
        o = nodes[other_node]
        for term in anti_terms(pod):
            if same_domain(node, o, term["topologyKey"]) and term_matches(term, pod, pods[other]):
                return False
        for term in anti_terms(pods[other]):
            if same_domain(o, node, term["topologyKey"]) and term_matches(term, pods[other], pod):
                return False
    return True


def pinned_nodes(pod: Mapping[str, Any]) -> set[str] | None:
    """The node set NodeAffinity's PreFilter narrows to (``matchFields`` name In), or None."""
    req = ((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if not req:
        return None
    names: set[str] = set()
    for term in req["nodeSelectorTerms"]:
        term_names: set[str] | None = None
        for f in term.get("matchFields") or []:
            if f["key"] == "metadata.name" and f["operator"] == "In":
                vals = set(f["values"])
                term_names = vals if term_names is None else term_names & vals
        if term_names is None:
            return None
        names |= term_names
    return names


def static_reasons(
    pod: Mapping[str, Any], nodes: Mapping[str, Mapping[str, Any]], nominated_tried: bool
) -> dict[str, int]:
    """Counts of the reasons of the filters that only look at the node (and come first)."""
    out = {
        "node(s) were unschedulable": 0,
        "node(s) had untolerated taint(s)": 0,
        "node(s) didn't match Pod's node affinity/selector": 0,
    }
    pinned = pinned_nodes(pod)
    if pinned is not None:
        out["node(s) didn't satisfy plugin(s) [NodeAffinity]"] = 0
        # a nominated node is tried first, through every filter, wherever it is
        nominated = (pod.get("status") or {}).get("nominatedNodeName")
        if nominated_tried and nominated in nodes:
            pinned = pinned | {nominated}
    unsched_tol = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    tols = pod["spec"].get("tolerations") or []
    for name, node in nodes.items():
        if pinned is not None and name not in pinned:
            out["node(s) didn't satisfy plugin(s) [NodeAffinity]"] += 1
        elif node["spec"].get("unschedulable") and not any(tolerates(t, unsched_tol) for t in tols):
            out["node(s) were unschedulable"] += 1
        elif not taints_ok(pod, {"spec": {"taints": node["spec"].get("taints") or []}}):
            out["node(s) had untolerated taint(s)"] += 1
        elif not node_affinity_ok(pod, node):
            out["node(s) didn't match Pod's node affinity/selector"] += 1
    return out


def filter_histogram(msg: str, n: int) -> dict[str, int] | None:
    """The filter part's reason → count, or None (PreFilter message, or cut short)."""
    body = msg[len(f"0/{n} nodes are available: ") :]
    if msg.endswith(" ..."):
        return None
    head = body.split(". " + POSTFILTER, 1)[0].removesuffix(".")
    if not HIST_ITEM.match(head) or body.endswith(". not found"):
        return None
    out: dict[str, int] = {}
    for p in re.split(r", (?=\d+ )", head):
        m = HIST_ITEM.fullmatch(p)
        assert m is not None
        out[m.group(2)] = out.get(m.group(2), 0) + int(m.group(1))
    return out


def _alloc(alloc: Mapping[str, str], res: str) -> int:
    from .randomgen import cpu_milli, mem_bytes

    return cpu_milli(alloc[res]) if res == "cpu" else mem_bytes(alloc[res])


@settings(max_examples=60, **SETTINGS)
@given(seed=SEEDS, tie_seed=st.integers(0, 1000))
def test_explain_and_batch_paths_decide_the_same_and_invariants_hold(
    seed: int, tie_seed: int
) -> None:
    objs = random_cluster(random.Random(seed))
    fast = run(objs, tie_seed)
    slow = run(objs, tie_seed, explain=True)
    assert decisions(fast) == decisions(slow)
    check_run(objs, fast)


@settings(max_examples=40, **SETTINGS)
@given(seed=SEEDS)
def test_same_seed_same_output(seed: int) -> None:
    objs = random_cluster(random.Random(seed))
    a, b = run(objs, seed), run(copy.deepcopy(objs), seed)
    assert a["results"] == b["results"]
    check_run(objs, a)


@settings(max_examples=150, **SETTINGS)
@given(seed=SEEDS)
def test_invariants_hold_on_many_clusters(seed: int) -> None:
    objs = random_cluster(random.Random(seed))
    check_run(objs, run(objs, seed))


@settings(max_examples=30, **SETTINGS)
@given(seed=SEEDS)
def test_crowded_clusters_preempt_consistently(seed: int) -> None:
    # few nodes, many pods: preemption, nominations and retries happen often
    objs = random_cluster(random.Random(seed), max_nodes=6, max_running=40, max_pending=30)
    fast = run(objs, seed)
    assert decisions(fast) == decisions(run(objs, seed, explain=True))
    check_run(objs, fast)


@settings(max_examples=6, **SETTINGS)
@given(seed=SEEDS)
def test_large_clusters_cut_the_search_the_same_on_both_paths(seed: int) -> None:
    # above 100 nodes only some nodes are evaluated, from a rotating start index
    objs = random_cluster(
        random.Random(seed), min_nodes=101, max_nodes=260, max_running=150, max_pending=12
    )
    fast = run(objs, seed)
    assert decisions(fast) == decisions(run(objs, seed, explain=True))
    check_run(objs, fast)


@settings(max_examples=30, **SETTINGS)
@given(seed=SEEDS)
def test_explained_filter_failures_add_up_to_the_message(seed: int) -> None:
    objs = random_cluster(random.Random(seed))
    doc = run(objs, seed, explain=True)
    n = sum(1 for o in objs if o["kind"] == "Node")
    for r in doc["results"]:
        if r["status"] != "Unschedulable":
            continue
        hist = filter_histogram(r["message"], n)
        if hist is None:
            continue
        assert len(r["filterFailures"]) == n, r["pod"]
        counts: dict[str, int] = {}
        for failure in r["filterFailures"].values():
            for reason in failure["reason"].split(", "):
                counts[reason] = counts.get(reason, 0) + 1
        assert counts == hist, (r["pod"], r["message"], counts)


PERCENT_100 = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
"""
PROFILE_PERCENT_100 = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  percentageOfNodesToScore: 100
"""


@settings(max_examples=25, **SETTINGS)
@given(seed=SEEDS)
def test_percentage_of_nodes_to_score_100_changes_nothing_below_100_nodes(seed: int) -> None:
    objs = random_cluster(random.Random(seed))
    base = decisions(run(objs, seed))
    for text in (PERCENT_100, PROFILE_PERCENT_100):
        doc = simulate(build_cluster(objs), load_config_text(text), seed=seed).to_dict()
        assert decisions(doc) == base


# -- the CLI --------------------------------------------------------------------------
def _write(tmp_path: Path, objs: list[dict[str, Any]], name: str = "snap.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs))
    return path


def _strip_timing(doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    doc["summary"].pop("seconds", None)
    doc["summary"].pop("podsPerSecond", None)
    return doc


@pytest.mark.parametrize("seed", [3, 17])
def test_cli_prints_what_simulate_returns(tmp_path: Path, seed: int) -> None:
    objs = random_cluster(random.Random(seed), max_nodes=12)
    path = _write(tmp_path, objs)
    proc = subprocess.run(
        [sys.executable, "-m", "scheduler_engine", "simulate", "--snapshot", str(path)]
        + ["--seed", str(seed)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert _strip_timing(json.loads(proc.stdout)) == _strip_timing(run(objs, seed))


def _first(objs: list[dict[str, Any]], kind: str, pending: bool | None = None) -> dict[str, Any]:
    for o in objs:
        if o["kind"] != kind:
            continue
        if pending is None or bool(o["spec"].get("nodeName")) != pending:
            return o
    raise AssertionError(kind)


def _c0(o: dict[str, Any]) -> dict[str, Any]:
    return o["spec"]["containers"][0]


CORRUPTIONS = {
    "node cpu is a list": lambda objs: _first(objs, "Node")["status"]["allocatable"].update(
        cpu=[4]
    ),
    "node memory is not a quantity": lambda objs: _first(objs, "Node")["status"][
        "allocatable"
    ].update(memory="12 gigs"),
    "node without a name": lambda objs: _first(objs, "Node")["metadata"].pop("name"),
    "pod without a name": lambda objs: _first(objs, "Pod", pending=True)["metadata"].pop("name"),
    "pod cpu request is not a quantity": lambda objs: _c0(_first(objs, "Pod", pending=True))[
        "resources"
    ].update(requests={"cpu": "lots"}),
    "pod containers is a string": lambda objs: _first(objs, "Pod", pending=True)["spec"].update(
        containers="main"
    ),
    "pod priority is a string": lambda objs: _first(objs, "Pod", pending=True)["spec"].update(
        priority="high"
    ),
    "pod tolerations is a mapping": lambda objs: _first(objs, "Pod", pending=True)["spec"].update(
        tolerations={"key": "x"}
    ),
    "pod labels is a list": lambda objs: _first(objs, "Pod", pending=True)["metadata"].update(
        labels=["app"]
    ),
    "pdb disruptionsAllowed is a string": lambda objs: objs.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "bad", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}},
            "status": {"disruptionsAllowed": "two"},
        }
    ),
    "object without a kind": lambda objs: objs.append({"metadata": {"name": "x"}}),
}


def _run_cli(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli_main(["simulate", "--snapshot", str(path), "--seed", "1"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS), ids=str)
def test_corrupted_snapshot_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], corruption: str
) -> None:
    objs = random_cluster(random.Random(5), max_nodes=5)
    CORRUPTIONS[corruption](objs)
    path = _write(tmp_path, objs)
    code, out, err = _run_cli(path, capsys)
    assert code == 2, (out[:200], err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert str(path) in lines[0]


def test_corrupted_snapshot_exits_2_through_python_m(tmp_path: Path) -> None:
    objs = random_cluster(random.Random(5), max_nodes=5)
    CORRUPTIONS["pod cpu request is not a quantity"](objs)
    path = _write(tmp_path, objs)
    proc = subprocess.run(
        [sys.executable, "-m", "scheduler_engine", "simulate", "--snapshot", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr
