"""The replay procedures: inflate (seeded shuffle, resampling, one try each) and time mode."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from scheduler_engine.cli import main
from scheduler_engine.config import DEFAULT_CAPABILITIES, load_config
from scheduler_engine.framework.registry import default_registry
from scheduler_engine.plugins.gpushare.resources import gpu_request
from scheduler_engine.replay import (
    ReplayOptions,
    Trace,
    TracePod,
    default_config_doc,
    inflate_workload,
    policy_config_doc,
    replay,
    trace_typical_pods,
    with_typical_pods,
)
from scheduler_engine.scheduler import schedule_one

from .gpus import gpu_node, gpu_pod

CAPS = {**DEFAULT_CAPABILITIES, **default_registry().capabilities()}


def config(doc, trace=None):
    cfg = load_config(doc, capabilities=CAPS)
    return with_typical_pods(cfg, trace_typical_pods(trace)) if trace is not None else cfg


def small_trace(n_pods: int = 30, seed: int = 1, n_nodes: int = 4) -> Trace:
    rng = random.Random(seed)
    nodes = [
        gpu_node(f"n{i}", cpu=32000, gpus=4, model="T4" if i % 2 else "V100")
        for i in range(n_nodes)
    ]
    pods = []
    for i in range(n_pods):
        n = rng.choice([0, 1, 1, 1, 2])
        milli = rng.choice([250, 500, 1000]) if n == 1 else 1000
        pods.append(
            TracePod(
                gpu_pod(f"p{i:03d}", cpu=rng.choice([1000, 2000]), gpus=n, milli=milli), float(i)
            )
        )
    return Trace(nodes, pods, "test")


def test_inflate_shuffles_with_the_seed_and_resamples_to_the_target() -> None:
    tr = small_trace(12)
    pods = [tp.pod for tp in tr.pods]
    cap = tr.gpu_capacity_milli
    assert sum(gpu_request(p).total for p in pods) < cap
    a = inflate_workload(pods, cap, 1.3, random.Random(5))
    b = inflate_workload(pods, cap, 1.3, random.Random(5))
    c = inflate_workload(pods, cap, 1.3, random.Random(6))
    assert [p.name for p in a] == [p.name for p in b]
    assert [p.name for p in a] != [p.name for p in c]
    # every trace pod once, shuffled, then copies drawn with replacement
    assert sorted(p.name for p in a[: len(pods)]) == sorted(p.name for p in pods)
    clones = a[len(pods) :]
    assert clones and all("-tuned-" in p.name for p in clones)
    assert [int(p.name.rsplit("-", 1)[1]) for p in clones] == list(range(len(clones)))
    total = sum(gpu_request(p).total for p in a)
    assert total <= 1.3 * cap
    # names are distinct even when the same pod is drawn twice
    assert len({p.key for p in a}) == len(a)


def test_inflate_below_the_trace_drops_random_pods() -> None:
    tr = small_trace()
    pods = [tp.pod for tp in tr.pods]
    out = inflate_workload(pods, tr.gpu_capacity_milli, 0.25, random.Random(1))
    assert sum(gpu_request(p).total for p in out) <= 0.25 * tr.gpu_capacity_milli
    assert len(out) < len(pods)


@pytest.mark.parametrize("policy", [None, "fgd", "best-fit", "random"])
def test_inflate_tries_each_pod_once_and_measures(policy: str | None) -> None:
    tr = small_trace(40, n_nodes=10)
    doc = policy_config_doc(policy) if policy else default_config_doc()
    opts = ReplayOptions("inflate", 1.3, 7, "rank" if policy else "random", policy)
    out = replay(tr, config(doc, tr), opts)
    s, tl = out["summary"], out["timeline"]
    assert s["placed"] + s["failed"] == s["pods"] == len(tl)
    # one try each: the failed count only grows, by at most one a step
    assert all(0 <= b["failed"] - a["failed"] <= 1 for a, b in zip(tl, tl[1:], strict=False))
    assert tl[-1]["arrivedGpuPercent"] > 100
    assert 0 <= tl[-1]["allocatedGpuPercent"] <= 100
    near = [r for r in tl if 99 <= round(r["arrivedGpuPercent"]) <= 101]
    assert (s["unallocatedGpuPercentAt100"] is not None) == bool(near)
    assert replay(tr, config(doc, tr), opts)["timeline"] == tl  # seeded: repeatable


def test_rank_tie_break_follows_the_seeded_permutation() -> None:
    # identical idle nodes: a GPU-packing tie everywhere; rank sends the pod to the lowest rank
    nodes = [gpu_node(f"n{i}", gpus=2) for i in range(6)]
    tr = Trace(nodes, [TracePod(gpu_pod("p", gpus=1, milli=1000), 0.0)], "t")
    firsts = set()
    for seed in range(8):
        out = replay(
            tr, config(policy_config_doc("gpu-packing")), ReplayOptions("inflate", 0, seed, "rank")
        )
        assert out["summary"]["placed"] == 1
        rng = random.Random(seed)
        rng.shuffle([tp.pod for tp in tr.pods])  # the workload shuffle comes first
        perm = list(range(6))
        rng.shuffle(perm)
        firsts.add(perm.index(0))
    assert len(firsts) > 1


@pytest.mark.parametrize(("tie_break", "heap_calls"), [("random", 0), ("heap", 1)])
def test_random_tie_break_draws_and_heap_takes_upstreams_root(
    monkeypatch: pytest.MonkeyPatch, tie_break: str, heap_calls: int
) -> None:
    # the studies' figures rest on the seeded draw; "heap" is what simulate does
    calls = []

    def spy(ties):
        calls.append(len(ties))
        return int(ties[0])

    monkeypatch.setattr(schedule_one, "heap_top_of_ties", spy)
    nodes = [gpu_node(f"n{i}", gpus=2) for i in range(6)]
    tr = Trace(nodes, [TracePod(gpu_pod("p", gpus=1, milli=1000), 0.0)], "t")
    opts = ReplayOptions("inflate", 0, 3, tie_break)
    out = replay(tr, config(policy_config_doc("gpu-packing")), opts)
    assert out["summary"]["placed"] == 1 and out["summary"]["tieBreak"] == tie_break
    assert calls == [6] * heap_calls


def test_time_mode_waits_for_departures() -> None:
    nodes = [gpu_node("n", cpu=8000, gpus=1)]
    pods = [
        TracePod(gpu_pod("a", cpu=1000, gpus=1, milli=1000), 0.0, 10.0),
        TracePod(gpu_pod("b", cpu=1000, gpus=1, milli=600), 2.0, 20.0),
        TracePod(gpu_pod("c", cpu=1000, gpus=1, milli=300), 3.0, 4.0),
    ]
    out = replay(Trace(nodes, pods, "t"), config(default_config_doc()), ReplayOptions("time"))
    s = out["summary"]
    # a runs; b and c wait; c is deleted while waiting (failed); b runs at 10 after 8 s
    assert (s["placed"], s["failed"], s["pendingAtEnd"]) == (2, 1, 0)
    assert s["queueingDelaySeconds"]["max"] == 8.0
    assert [r["pending"] for r in out["timeline"]] == [0, 1, 2, 1, 0, 0]


def test_cli_replays_an_openb_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nodes = tmp_path / "n.csv"
    nodes.write_text(
        "sn,cpu_milli,memory_mib,gpu,model\n"
        + "".join(f"n{i},32000,65536,4,T4\n" for i in range(3))
    )
    pods = tmp_path / "p.csv"
    rows = "".join(
        f"p{i},2000,4096,1,{[250, 500, 1000][i % 3]},,LS,Running,{i},,{i}\n" for i in range(20)
    )
    pods.write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
        + rows
    )
    assert (
        main(
            ["replay", "--nodes", str(nodes), "--pods", str(pods), "--policy", "fgd", "--seed", "3"]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["summary"]["tieBreak"] == "rank" and doc["summary"]["policy"] == "fgd"
    assert doc["timeline"] and doc["curve"]
    assert (
        main(
            [
                "replay",
                "--nodes",
                str(nodes),
                "--pods",
                str(pods),
                "--format",
                "table",
                "--no-timeline",
            ]
        )
        == 0
    )
    assert "unallocatedGpuPercentAt100" in capsys.readouterr().out


def test_cli_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nodes = tmp_path / "n.csv"
    nodes.write_text("sn,cpu_milli\n")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "scheduler_engine",
            "replay",
            "--nodes",
            str(nodes),
            "--pods",
            str(nodes),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"{nodes}: line 1 (header): missing column(s) memory_mib, gpu, model"
    ]
    code = main(["replay", "--pods", "x.csv", "--policy", "fgd", "--config", "c.yaml"])
    assert code == 2
    assert "give --config or --policy, not both" in capsys.readouterr().err


def test_the_batch_diagnosis_changes_no_decision() -> None:
    tr = small_trace(60, seed=4, n_nodes=6)
    opts = ReplayOptions("inflate", 1.3, 3, "random", None)
    fast = replay(tr, config(default_config_doc(), tr), opts)
    slow = replay(tr, config(default_config_doc(), tr), opts, exact_messages=True)
    assert slow["summary"]["failed"] > 0
    assert [(r["failed"], r["allocatedGpuPercent"]) for r in slow["timeline"]] == [
        (r["failed"], r["allocatedGpuPercent"]) for r in fast["timeline"]
    ]
    assert any("Insufficient" in m for m in slow["summary"]["failureReasons"])
    assert any("didn't satisfy plugin" in m for m in fast["summary"]["failureReasons"])


def test_preemption_without_lower_priority_pods_answers_as_the_dry_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DefaultPreemption.no_possible_victims skips the per-node copies: same messages
    from scheduler_engine.cluster import ClusterState
    from scheduler_engine.plugins.defaultpreemption import DefaultPreemption
    from scheduler_engine.simulate import simulate

    from .gpus import running

    rng = random.Random(9)
    for _ in range(5):
        nodes = [gpu_node(f"n{i}", cpu=rng.choice([4000, 8000]), gpus=2) for i in range(5)]
        pods = []
        for i in range(5):
            for j in range(rng.randrange(1, 4)):
                pods.append(running(gpu_pod(f"r{i}-{j}", cpu=2000, gpus=1, milli=1000), f"n{i}"))
        pods += [gpu_pod(f"p{k}", cpu=rng.choice([2000, 6000]), gpus=1) for k in range(4)]
        cfg = config(default_config_doc())
        fast = simulate(ClusterState(nodes=nodes, pods=pods), cfg).to_dict()
        monkeypatch.setattr(DefaultPreemption, "no_possible_victims", None, raising=False)
        slow = simulate(ClusterState(nodes=nodes, pods=pods), cfg).to_dict()
        monkeypatch.undo()
        assert [r["message"] for r in fast["results"]] == [r["message"] for r in slow["results"]]


def test_percentage_of_nodes_to_score_cuts_the_search() -> None:
    from scheduler_engine.replay import with_percentage_of_nodes_to_score

    tr = small_trace(40, n_nodes=10)
    cfg = config(policy_config_doc("best-fit"), tr)
    assert cfg.percentage_of_nodes_to_score == 100
    few = with_percentage_of_nodes_to_score(cfg, 10)
    assert few.percentage_of_nodes_to_score == 10
    assert few.source["percentageOfNodesToScore"] == 10
    opts = ReplayOptions("inflate", 1.3, 2, "rank", "best-fit")
    # fewer than 100 nodes: every node is still searched (upstream's minimum), same decisions
    assert replay(tr, few, opts)["timeline"] == replay(tr, cfg, opts)["timeline"]


def test_cli_rejects_a_bad_percentage(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["replay", "--pods", "x.csv", "--percentage-of-nodes-to-score", "120"])
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "replay: --percentage-of-nodes-to-score: must be between 0 and 100, got 120"
    )
