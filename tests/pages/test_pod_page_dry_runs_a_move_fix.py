"""A GPU pod that fits only after moving pods: the pod page offers the plan, and its button
starts a dry-run with the moves applied, where the pod schedules."""

from __future__ import annotations

import yaml

from dashboard.cluster.services.snapshots import import_snapshot
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.results import read_results
from dashboard.dryruns.services.runner import run_dry_run
from dashboard.explain.live import explain_pod
from tests.engine.defrag.helpers import gpu_node, owned, pending

POD = "/clusters/frag/pods/default/train/"


def _import(tmp_path):
    objs = [
        *(gpu_node(f"n{i}") for i in range(4)),
        owned("a", "n0", 2),
        owned("b", "n0", 2),
        owned("c", "n1", 6),
        owned("d", "n2", 6),
        owned("e", "n3", 4, kind=None),
        owned("f", "n3", 3, kind=None),
        pending(),
    ]
    path = tmp_path / "frag.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    return import_snapshot(path, "frag").cluster


def test_the_move_fix_is_shown_and_its_dry_run_schedules_the_pod(db, tmp_path, operator):
    cluster = _import(tmp_path)
    fixes = explain_pod(cluster, "default", "train")["fixes"]
    index = next(i for i, f in enumerate(fixes) if f["kind"] == "move")
    fragment = operator.get(POD + "explanation/fit/").content.decode()
    assert "move 2 pods (4 GPUs) to make room on n0" in fragment
    operator.post(POD + "dry-run/", {"fix": str(index)})
    run = DryRun.objects.get()
    assert run.moves == fixes[index]["moves"]
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    run.refresh_from_db()
    (result,) = read_results(run, 0, 5)
    assert (result["status"], result["node"]) == ("Scheduled", "n0")
