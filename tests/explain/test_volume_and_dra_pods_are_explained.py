"""Pods with PVCs and DRA claims are explained from the mirrored state, end to end."""

from __future__ import annotations

from dashboard.cluster.kinds import KINDS_BY_KIND, SHARED_KINDS, to_row
from dashboard.cluster.mirror import Mirror, MirrorOptions
from dashboard.cluster.models import Cluster, ExtraObject
from dashboard.cluster.services.cluster_state import Changes, apply_changes
from dashboard.cluster.services.clusters import ensure_live_cluster
from dashboard.dryruns import codec
from dashboard.dryruns.services.dryruns import create_dry_run
from scheduler_engine.documents import read_objects
from tests.support.fixtures import DEMO
from tests.support.kubeserver import KubeServer
from tests.support.mirror import wait_until, wait_watching

NO_VOLUME = "didn't find available persistent volumes to bind"


def _explain(client, cluster: Cluster, ns: str, name: str) -> dict:
    r = client.get(f"/api/v1/clusters/{cluster.pk}/pods/{ns}/{name}/explanation/")
    assert r.status_code == 200, r.content
    return r.json()


def _check_demo_explanations(client, cluster: Cluster) -> None:
    huge = _explain(client, cluster, "ml-training", "dataset-prep-huge")
    assert huge["status"] == "Unschedulable"
    assert f"8 node(s) {NO_VOLUME}" in huge["message"]
    assert "not found" not in huge["message"]

    render = _explain(client, cluster, "ml-inference", "render-preview-0")
    assert (render["status"], render["node"]) == ("Scheduled", "dra-gpu-1")
    (allocation,) = render["allocations"]
    assert allocation["claim"].startswith("ml-inference/render-preview-0-gpu")
    (device,) = allocation["allocation"]["devices"]["results"]
    assert (device["driver"], device["pool"]) == ("gpu.nvidia.com", "dra-gpu-1")


# the demo's volume, DRA and NodeResourceTopology objects (38) and its gangs' Workloads
# and PodGroups (3 + 3)
DEMO_EXTRA_OBJECTS = 38 + 6


def test_the_imported_demo_explains_volume_and_dra_pods(viewer, demo_cluster):
    assert ExtraObject.objects.filter(cluster=demo_cluster).count() == DEMO_EXTRA_OBJECTS
    _check_demo_explanations(viewer, demo_cluster)


def test_a_mirror_dry_run_freezes_the_volume_and_dra_objects(
    demo_cluster, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        run = create_dry_run(demo_cluster, source="mirror")
    frozen = {o["kind"] for o in codec.unpack(run.snapshot)}
    shared = {s.kind for s in SHARED_KINDS}
    in_demo = {o["kind"] for o in read_objects(DEMO)} & shared
    # all but CSIDriver: volumes, DRA, NodeResourceTopology, the gangs' Workload and PodGroup
    assert len(in_demo) == 11 and in_demo <= frozen


def test_explanations_follow_claim_changes_without_a_rebuild(viewer, demo_cluster):
    _check_demo_explanations(viewer, demo_cluster)  # the warm state is built here
    pvc = KINDS_BY_KIND["PersistentVolumeClaim"]
    stored = pvc.rows().get(cluster=demo_cluster, name="dataset-cache-huge").obj

    changes = Changes()
    changes.delete(pvc, ("ml-training", "dataset-cache-huge"))
    for s in KINDS_BY_KIND["ResourceSlice"].rows().filter(cluster=demo_cluster):
        changes.delete(KINDS_BY_KIND["ResourceSlice"], (s.namespace, s.name))
    apply_changes(demo_cluster.pk, changes)
    huge = _explain(viewer, demo_cluster, "ml-training", "dataset-prep-huge")
    assert 'persistentvolumeclaim "dataset-cache-huge" not found' in huge["message"]
    render = _explain(viewer, demo_cluster, "ml-inference", "render-preview-0")
    assert render["status"] == "Unschedulable" and not render.get("allocations")

    changes = Changes()
    changes.upsert(pvc, to_row(pvc, demo_cluster.pk, stored))
    for o in read_objects(DEMO):
        if o["kind"] == "ResourceSlice":
            spec = KINDS_BY_KIND["ResourceSlice"]
            changes.upsert(spec, to_row(spec, demo_cluster.pk, o))
    apply_changes(demo_cluster.pk, changes)
    _check_demo_explanations(viewer, demo_cluster)


def test_the_demo_mirrored_through_the_real_client_explains_the_same(
    transactional_db, viewer, tmp_path
):
    kube = KubeServer(bookmark_interval=0.2).start()
    mirror = None
    try:
        kube.load(read_objects(DEMO))
        config = kube.write_kubeconfig(tmp_path / "kubeconfig")
        cluster = ensure_live_cluster("demo-live", kubeconfig=str(config), context="test")
        mirror = Mirror(cluster, options=MirrorOptions(page_size=50, batch_seconds=0.02)).start()
        wait_watching(cluster, timeout=20)
        wait_until(
            lambda: ExtraObject.objects.filter(cluster=cluster).count() == DEMO_EXTRA_OBJECTS,
            what="volume and DRA objects mirrored",
        )
        _check_demo_explanations(viewer, cluster)
    finally:
        if mirror is not None:
            mirror.stop()
        kube.stop()
