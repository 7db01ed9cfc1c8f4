"""A pod's explanation is worked out once per state of the cluster.

The pod page and the request for its sections, or several API clients asking
about one pod, run the engine once; any change to any row (the pod's own
included) makes the next request run it again on the new state.
"""

from __future__ import annotations

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.explain import live
from tests.support.mirror import write_batch
from tests.support.synthetic import fleet, pod


def _counting_runs(monkeypatch, warm) -> list[bool]:
    """The whatif flag of each engine run on ``warm``."""
    runs: list[bool] = []
    real = warm.explain_pod

    def counting(*args, whatif=True, **kw):
        runs.append(whatif)
        return real(*args, whatif=whatif, **kw)

    monkeypatch.setattr(warm, "explain_pod", counting)
    return runs


def _gpu_cluster(name: str):
    live.forget()
    cluster = ensure_snapshot_cluster(name, "synthetic")
    hogs = [pod(100 + i, node_name=f"node-{i}", gpus=8) for i in range(2)]
    import_objects(cluster, [*fleet(2), *hogs, pod(999, gpus=8)])
    return cluster


def test_a_second_request_on_the_same_state_runs_no_engine(db, monkeypatch):
    cluster = _gpu_cluster("kept")
    runs = _counting_runs(monkeypatch, live.warm_cluster(cluster))
    brief = live.explain_pod(cluster, "default", "pod-999", whatif=False)
    assert live.explain_pod(cluster, "default", "pod-999", whatif=False) is brief
    assert runs == [False] and "fixes" not in brief
    full = live.explain_pod(cluster, "default", "pod-999")
    assert runs == [False, True] and full["fixes"]
    assert full["message"] == brief["message"]
    # the full answer serves a brief request too, without its sections
    live.forget()
    cluster.refresh_from_db()
    runs = _counting_runs(monkeypatch, live.warm_cluster(cluster))
    full = live.explain_pod(cluster, "default", "pod-999")
    again = live.explain_pod(cluster, "default", "pod-999", whatif=False)
    assert runs == [True] and "fixes" not in again and again["message"] == full["message"]


def test_a_change_anywhere_makes_the_next_request_run_the_engine_again(db, monkeypatch):
    cluster = _gpu_cluster("changing")
    runs = _counting_runs(monkeypatch, live.warm_cluster(cluster))
    before = live.explain_pod(cluster, "default", "pod-999", whatif=False)
    assert before["status"] == "Unschedulable"

    write_batch(cluster, deletes=[("Pod", "default", "pod-100")])  # another pod goes
    after = live.explain_pod(cluster, "default", "pod-999", whatif=False)
    assert runs == [False, False]
    assert after["status"] == "Scheduled" and after["node"] == "node-0"


def test_only_the_last_few_explanations_are_kept(db, monkeypatch):
    live.forget()
    cluster = ensure_snapshot_cluster("many", "synthetic")
    n = live.EXPLANATIONS_KEPT + 2
    import_objects(cluster, [*fleet(2), *(pod(500 + i) for i in range(n))])
    runs = _counting_runs(monkeypatch, live.warm_cluster(cluster))
    for i in range(n):
        live.explain_pod(cluster, "default", f"pod-{500 + i}", whatif=False)
    live.explain_pod(cluster, "default", f"pod-{500 + n - 1}", whatif=False)  # kept
    assert len(runs) == n
    live.explain_pod(cluster, "default", "pod-500", whatif=False)  # the oldest, dropped
    assert len(runs) == n + 1
