"""The demo's gangs: one fits, one is blocked by GPUs, one by topology (native workload API)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import scheduler_engine
from scheduler_engine import load_cluster, simulate

DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"
# what `make run` turns on (scripts/run-demo.sh)
GATES = {"GenericWorkload": True, "GangScheduling": True, "TopologyAwareWorkloadScheduling": True}
GANGS = ("bert-finetune", "llama-pretrain", "xgb-train")
REJECTED = "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled"


def _run(path: Path, gates: dict[str, bool] | None = None) -> dict[str, Any]:
    return simulate(load_cluster(path), seed=0, feature_gates=gates).to_dict()


@pytest.fixture(scope="module")
def with_gates() -> dict[str, Any]:
    return _run(DEMO, GATES)


@pytest.fixture(scope="module")
def plain() -> dict[str, Any]:
    return _run(DEMO)


@pytest.fixture(scope="module")
def gangs(with_gates) -> dict[str, dict[str, Any]]:
    return {g["name"]: g for g in with_gates["summary"]["gangs"]}


@pytest.fixture(scope="module")
def members(with_gates) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in with_gates["results"]:
        for g in GANGS:
            if r["pod"].startswith(f"ml-training/{g}-worker-"):
                out.setdefault(g, []).append(r)
    return out


def test_the_demo_has_exactly_three_gangs(gangs):
    assert set(gangs) == {f"ml-training/{g}" for g in GANGS}
    assert all(g["api"] == "scheduling.k8s.io/v1alpha2" for g in gangs.values())


def test_a_gang_that_fits_is_bound_whole(gangs, members):
    g = gangs["ml-training/bert-finetune"]
    assert (g["status"], g["minMember"], g["placed"], g["scheduled"]) == ("Scheduled", 2, 2, 2)
    assert all(r["status"] == "Scheduled" for r in members["bert-finetune"])
    assert g["summary"] == "2 of 2 fit, all in zone us-east-1c"


def test_a_gang_blocked_by_gpus_places_nothing(gangs, members):
    g = gangs["ml-training/llama-pretrain"]
    assert (g["status"], g["placed"], g["scheduled"]) == ("Unschedulable", 0, 0)
    assert g["reasons"] == {"Insufficient nvidia.com/gpu": 4}
    assert g["summary"].endswith("needs 4, lacks 4")
    assert all(r["node"] is None for r in members["llama-pretrain"])


def test_a_gang_blocked_by_topology_would_fit_across_zones(gangs, members):
    g = gangs["ml-training/xgb-train"]
    assert g["status"] == "Unschedulable" and g["scheduled"] == 0
    tried = {p["name"]: p for p in g["placements"]}
    assert set(tried) == {"us-east-1a", "us-east-1b", "us-east-1c"}
    # every zone falls short of minMember, yet the zones together have room for all four
    assert all(p["placed"] < 4 for p in tried.values())
    assert sum(p["placed"] for p in tried.values()) >= 4
    # the diagnosis is told by the zone that came closest, and names every zone tried
    assert g["placed"] == max(p["placed"] for p in tried.values())
    assert g["domains"] == {g["placement"] or next(iter(g["domains"])): g["placed"]}
    assert "3 zones tried, none holds 4: " in g["summary"]
    for p in tried.values():
        assert sum(p["reasons"].values()) == 4 - p["placed"]
        assert f"{p['name']} {p['placed']} fit" in g["summary"]
    assert g["message"] == (
        "0/3 placements are available, first placement status: pod group is unschedulable"
    )
    # each member keeps what the first placement told it, as upstream reports it
    first = g["placements"][0]
    fit_first = [r for r in members["xgb-train"] if r["message"].startswith(REJECTED)]
    assert len(fit_first) == first["placed"]
    for r in members["xgb-train"]:
        assert r["node"] is None
        assert r in fit_first or r["message"].startswith(f"0/{first['nodes']} nodes are available")
        assert r in fit_first or r["message"].endswith(
            "preemption: not eligible due to placement-based pod group scheduling limitation"
        )


def test_without_the_gates_the_gangs_are_ordinary_pods(plain):
    out = plain
    assert "gangs" not in out["summary"] or out["summary"]["gangs"] == []
    placed = {r["pod"]: r["node"] for r in out["results"] if r["pod"].startswith("ml-training/xgb")}
    # pod by pod, as kube-scheduler places them without GenericWorkload: across zones
    assert all(placed.values()) and len(placed) == 4


def test_the_gangs_change_nothing_for_the_other_pods(tmp_path, plain, with_gates):
    """They queue last (negative priority), so every other pod keeps its outcome."""
    doc = yaml.safe_load(DEMO.read_text())
    names = {f"ml-training/{g}" for g in GANGS}

    def is_gang(o: dict[str, Any]) -> bool:
        meta = o.get("metadata") or {}
        key = f"{meta.get('namespace')}/{meta.get('name')}"
        return key in names or any(key.startswith(f"{n}-worker-") for n in names)

    doc["items"] = [o for o in doc["items"] if not is_gang(o)]
    bare = tmp_path / "no-gangs.yaml"
    bare.write_text(yaml.safe_dump(doc))
    for gates, run in ((None, plain), (GATES, with_gates)):
        full = {r["pod"]: r for r in run["results"]}
        without = _run(bare, gates)["results"]
        assert len(full) == len(without) + 10
        for r in without:
            assert full[r["pod"]] == r, r["pod"]
