"""The plan as a ``fixes`` entry of kind ``move``: in ``simulate --explain`` and its CLI."""

from __future__ import annotations

import json

import yaml

from scheduler_engine import build_cluster, simulate
from scheduler_engine.cli import main

from .helpers import gpu_node, owned, pending


def _objs():
    objs = [gpu_node(f"n{i}") for i in range(4)]
    objs += [
        owned("a", "n0", 2),
        owned("b", "n0", 2),
        owned("c", "n1", 6),
        owned("d", "n2", 6),
        owned("e", "n3", 4, kind=None),
        owned("f", "n3", 3, kind=None),
        pending(),
    ]
    return objs


def test_an_unschedulable_gpu_pod_gets_a_verified_move_fix():
    result = simulate(build_cluster(_objs()), explain=True, whatif=True).to_dict()
    (r,) = result["results"]
    assert r["status"] == "Unschedulable"
    moves = [f for f in r["fixes"] if f["kind"] == "move"]
    assert len(moves) == 1
    fix = moves[0]
    assert fix["verified"] is True and fix["patch"] is None
    assert [(m["pod"], m["from"]) for m in fix["moves"]] == [
        ("default/a", "n0"),
        ("default/b", "n0"),
    ]
    assert fix["node"] == "n0" and fix["freedNodes"] == ["n0"]


def test_a_pod_without_gpus_gets_no_move_fix():
    objs = [o for o in _objs() if o["metadata"]["name"] != "train"]
    objs.append(pending(gpus=0) | {})
    objs[-1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "100"
    (r,) = simulate(build_cluster(objs), explain=True, whatif=True).to_dict()["results"]
    assert r["status"] == "Unschedulable"
    assert [f for f in r["fixes"] if f["kind"] == "move"] == []


def test_the_cli_prints_the_move_fix(tmp_path, capsys):
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": _objs()}))
    assert main(["simulate", "--snapshot", str(snap), "--explain"]) == 0
    (r,) = json.loads(capsys.readouterr().out)["results"]
    fix = next(f for f in r["fixes"] if f["kind"] == "move")
    assert fix["summary"].startswith("move 2 pods (4 GPUs) to make room on n0")
