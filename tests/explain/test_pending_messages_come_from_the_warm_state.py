"""The overview's and pending page's engine messages come from the one warm state.

For a cluster without FailedScheduling events, every pending pod is scheduled
in queue order on the warm state with the active profile: the messages are a
fresh simulation's, they follow what the mirror writes, and nothing is cached
beside the warm state.
"""

from __future__ import annotations

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import export_snapshot, import_objects, import_snapshot
from dashboard.dryruns.services.profiles import apply_version, create_profile
from dashboard.explain import live
from scheduler_engine import build_cluster, default_config, simulate
from tests.support import objects as b
from tests.support.fixtures import DEMO
from tests.support.mirror import write_batch
from tests.support.synthetic import fleet, pod

OTHER_SCHEDULER = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: gpu-scheduler
"""


def _fresh_messages(cluster) -> dict[tuple[str, str], str]:
    """What a fresh simulation of the whole exported cluster says of each pending pod."""
    state = build_cluster(export_snapshot(cluster)["items"], source=cluster.name)
    out = {}
    for r in simulate(state, default_config()).to_dict()["results"]:
        if r["status"] != "Scheduled" and r.get("message"):
            out[tuple(r["pod"].split("/", 1))] = r["message"]
    return out


def test_the_demo_clusters_messages_are_a_fresh_simulations(db):
    live.forget()
    cluster = import_snapshot(DEMO, "demo").cluster
    messages = live.pending_messages(cluster)
    assert messages and messages == _fresh_messages(cluster)
    # the second read reuses what the warm state worked out: no engine run
    assert live.pending_messages(cluster) is messages


def test_the_messages_follow_the_mirror_without_a_rebuild(db):
    live.forget()
    cluster = ensure_snapshot_cluster("gpus", "synthetic")
    hogs = [pod(100 + i, node_name=f"node-{i}", gpus=8) for i in range(2)]
    import_objects(cluster, [*fleet(2), *hogs, pod(999, gpus=8)])
    messages = live.pending_messages(cluster)
    assert "Insufficient nvidia.com/gpu" in messages[("default", "pod-999")]
    built = live.warm_stats(cluster)["builtSeconds"]

    write_batch(cluster, deletes=[("Pod", "default", "pod-100")])
    assert live.pending_messages(cluster) == {}  # the pod fits now
    stats = live.warm_stats(cluster)
    assert stats["builtSeconds"] == built and stats["lastRefresh"]["changes"] == 1
    assert live.pending_messages(cluster) == _fresh_messages(cluster)


def test_the_messages_use_the_active_profile(db):
    live.forget()
    cluster = ensure_snapshot_cluster("profiled", "synthetic")
    import_objects(cluster, [*fleet(1), pod(999)])
    assert live.pending_messages(cluster) == {}
    version = create_profile(name="gpu", document=OTHER_SCHEDULER)
    apply_version(cluster, version, force=True)
    message = live.pending_messages(cluster)[("default", "pod-999")]
    assert 'no scheduler profile named "default-scheduler"' in message


def test_there_are_none_where_events_exist_or_the_cluster_is_too_large(db, monkeypatch):
    live.forget()
    cluster = ensure_snapshot_cluster("evented", "synthetic")
    import_objects(cluster, [*fleet(2), pod(999, gpus=64)])
    assert live.pending_messages(cluster)
    monkeypatch.setattr(live, "ENGINE_MESSAGES_MAX_NODES", 1)
    assert live.pending_messages(cluster) is None
    monkeypatch.undo()
    write_batch(cluster, upserts=[b.event("pod-999.1", pod_name="pod-999")])
    assert live.pending_messages(cluster) is None
