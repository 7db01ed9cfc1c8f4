"""A frozen state that does not read fails its run with a clear error; nothing is stored.

The frozen document is ours (the POST wrote it), but a damaged row, a
hand-made one or a hostile one must still end as a failed run naming what is
wrong: never a run left running, a traceback for an error, or half the results.
"""

from __future__ import annotations

import gzip

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun, DryRunResultPage
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.synthetic import fleet, pod

GOOD = codec.pack([*fleet(2), pod(1)])
CASES = {
    "not gzip": (b"not a frozen state", "the frozen state cannot be read"),
    "cut short": (GOOD[: len(GOOD) // 2], "the frozen state cannot be read"),
    "not JSON": (gzip.compress(b"{nodes: [}"), "the frozen state cannot be read"),
    "not UTF-8": (gzip.compress(b'["\xff\xfe"]'), "the frozen state cannot be read"),
    "nested 100,000 deep": (
        gzip.compress(b"[" * 100_000 + b"]" * 100_000),
        "the frozen state cannot be read",
    ),
    "a number": (codec.pack(7), "the frozen state is not a list of objects"),
    "a mapping": (codec.pack({"kind": "List"}), "the frozen state is not a list of objects"),
    "not objects": (codec.pack([1, "two"]), "expected a Kubernetes object"),
    "a pod without a name": (
        codec.pack([*fleet(1), {"kind": "Pod", "metadata": {}, "spec": {}}]),
        "metadata.name",
    ),
    "a node with a bad quantity": (
        codec.pack(
            [{"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "x"}}}]
        ),
        "Node n",
    ),
}


def test_a_corrupt_frozen_state_fails_the_run_naming_the_problem(demo_cluster, transactional_db):
    for case, (snapshot, expected) in CASES.items():
        run = DryRun.objects.create(cluster=demo_cluster, snapshot=snapshot, status="queued")
        assert run_dry_run(run.pk) == "failed", case
        run.refresh_from_db()
        assert expected in run.error, (case, run.error)
        assert "Traceback" not in run.error and "\n" not in run.error, case
        assert len(run.error) < 400, case
        assert run.finished_at is not None and not run.result_count, case
        assert not DryRunResultPage.objects.filter(dry_run_id=run.pk).exists(), case
