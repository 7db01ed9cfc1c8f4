"""NodeResourceTopology objects are mirrored where the cluster serves them, and only there."""

from __future__ import annotations

import time

from dashboard.cluster.kinds import KINDS_BY_KIND
from dashboard.cluster.models import Cluster, Node
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import export_snapshot, import_objects
from scheduler_engine import build_cluster
from tests.support import gpus
from tests.support.mirror import wait_until, wait_watching

GROUP = "topology.node.k8s.io"


def _stored(cluster: Cluster) -> dict[str, dict]:
    rows = KINDS_BY_KIND["NodeResourceTopology"].rows().filter(cluster=cluster)
    return {r.name: r.obj for r in rows}


def _available(obj: dict, zone: int) -> str:
    resources = obj["zones"][zone]["resources"]
    return next(r["available"] for r in resources if r["name"] == "nvidia.com/gpu")


def test_it_mirrors_updates_and_deletes_topologies(kube, live_cluster, start_mirror):
    kube.apply(gpus.gpu_node("g1"))
    kube.apply(gpus.nrt("g1", [(4, 4), (4, 4)]))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(lambda: "g1" in _stored(live_cluster), what="the topology stored")
    stored = _stored(live_cluster)["g1"]
    assert (stored["kind"], stored["apiVersion"]) == ("NodeResourceTopology", f"{GROUP}/v1alpha2")

    # a pod takes two GPUs of NUMA node 1; a second node's topology appears
    kube.apply(gpus.nrt("g1", [(4, 4), (4, 2)]))
    kube.apply(gpus.nrt("g2", [(8, 8)]))
    wait_until(
        lambda: (
            set(_stored(live_cluster)) == {"g1", "g2"}
            and _available(_stored(live_cluster)["g1"], 1) == "2"
        ),
        what="g1's zone updated and g2 added",
    )
    kube.delete("NodeResourceTopology", "g2")
    wait_until(lambda: set(_stored(live_cluster)) == {"g1"}, what="g2's topology deleted")
    assert Cluster.objects.get(pk=live_cluster.pk).unavailable_kinds == []


def test_a_cluster_without_the_topology_crd_is_watching_without_it(
    kube, live_cluster, start_mirror
):
    kube.disable_group(GROUP)
    kube.apply(gpus.gpu_node("g1"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(
        lambda: (
            Cluster.objects.get(pk=live_cluster.pk).unavailable_kinds == ["noderesourcetopologies"]
        ),
        what="the topology kind marked unavailable",
    )
    cluster = Cluster.objects.get(pk=live_cluster.pk)
    assert (cluster.connected, cluster.last_error) == (True, "")
    wait_until(lambda: Node.objects.filter(cluster=live_cluster, name="g1").exists())
    time.sleep(0.5)  # one list, then quiet until the next resync
    assert len([r for r in kube.requests if f"/apis/{GROUP}/" in r]) == 1


def test_topologies_go_when_the_crd_is_removed(kube, live_cluster, start_mirror):
    kube.apply(gpus.nrt("g1", [(8, 8)]))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(lambda: "g1" in _stored(live_cluster), what="the topology stored")
    kube.disable_group(GROUP)
    wait_until(
        lambda: (
            Cluster.objects.get(pk=live_cluster.pk).unavailable_kinds == ["noderesourcetopologies"]
            and not _stored(live_cluster)
        ),
        what="the kind unavailable and its rows removed",
    )


def test_snapshots_import_and_export_topologies(db):
    objs = [gpus.gpu_node("g1"), gpus.nrt("g1", [(4, 3), (4, 4)])]
    cluster = ensure_snapshot_cluster("nrt-snap", "test")
    result = import_objects(cluster, objs)
    assert result.counts == {"nodes": 1, "noderesourcetopologies": 1} and not result.skipped
    exported = export_snapshot(cluster)["items"]
    [topology] = [o for o in exported if o["kind"] == "NodeResourceTopology"]
    assert topology == objs[1]
    # the export loads in the engine, zones and all
    state = build_cluster(exported)
    zones = state.node_topologies["g1"].numa_zones
    assert [(z.name, z.numa_id) for z in zones] == [("node-0", 0), ("node-1", 1)]
    # importing without it removes it
    import_objects(cluster, objs[:1])
    assert _stored(cluster) == {}


def test_a_malformed_topology_is_skipped_naming_the_field(db):
    bad = gpus.nrt("g2", [(8, 8)])
    bad["zones"][0]["resources"][2]["available"] = "lots"
    cluster = ensure_snapshot_cluster("nrt-bad", "test")
    result = import_objects(cluster, [gpus.nrt("g1", [(8, 8)]), bad])
    assert set(_stored(cluster)) == {"g1"}
    [reason] = result.skipped
    assert reason.startswith("NodeResourceTopology g2: zones[0].resources[2].available")
