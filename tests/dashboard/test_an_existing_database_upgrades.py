"""A database made by the layout before the apps were split migrates and keeps its rows.

That layout had two apps, ``dashboard`` (models and migrations in dashboard/)
and ``dryruns`` (dashboard/dryruns/), whose last migrations were the leaves
below. The test builds that schema with the migration graph, fills it through
the historical models of that state, migrates to today's leaves and reads
everything back through today's models.
"""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from dashboard.cluster.models import Cluster, ExtraObject, Node, Pod
from dashboard.cluster.selectors import overview
from dashboard.dryruns.models import Application, DryRun, DryRunResultPage, ProfileVersion
from dashboard.dryruns.selectors import active_document
from dashboard.roles import ROLES

# the last migration of each app before the split
OLD_LEAVES = [("dashboard", "0002_extra_objects"), ("dryruns", "0004_result_indexes")]
OLD_TABLES = {
    "dashboard_cluster",
    "dashboard_node",
    "dashboard_pod",
    "dashboard_extraobject",
    "dryruns_profile",
    "dryruns_profileversion",
    "dryruns_dryrun",
    "dryruns_dryrunresultpage",
    "dryruns_application",
}
DOCUMENT = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def _fill(apps) -> None:
    """Rows of every kind of table, written with the models of the old state."""
    cluster = apps.get_model("dashboard", "Cluster").objects.create(
        name="prod", source="kubeconfig", kubeconfig_path="/kube/config", mirror_status="watching"
    )
    apps.get_model("dashboard", "Node").objects.create(
        cluster=cluster,
        name="gpu-1",
        obj={"kind": "Node", "metadata": {"name": "gpu-1"}},
        ready=True,
        gpu_capacity=8,
        gpu_allocatable=8,
        cpu_allocatable_milli=64000,
    )
    apps.get_model("dashboard", "Pod").objects.create(
        cluster=cluster,
        namespace="ml",
        name="train-0",
        obj={"kind": "Pod", "metadata": {"name": "train-0", "namespace": "ml"}},
        phase="Pending",
        gpu_requested=8,
    )
    apps.get_model("dashboard", "ExtraObject").objects.create(
        cluster=cluster, kind="DeviceClass", name="gpu.example.com", obj={"kind": "DeviceClass"}
    )
    author = apps.get_model("auth", "User").objects.create(username="alice")
    profile = apps.get_model("dryruns", "Profile").objects.create(cluster=cluster, name="binpack")
    version = apps.get_model("dryruns", "ProfileVersion").objects.create(
        profile=profile, number=1, document=DOCUMENT, author=author, message="first"
    )
    run = apps.get_model("dryruns", "DryRun").objects.create(
        cluster=cluster,
        profile_version=version,
        snapshot=b"frozen",
        snapshot_sha256="0" * 64,
        status="succeeded",
        result_count=1,
        index_version=1,
    )
    apps.get_model("dryruns", "DryRunResultPage").objects.create(dry_run=run, index=0, data=b"r")
    apps.get_model("dryruns", "Application").objects.create(
        cluster=cluster, version=version, applied_by=author, dry_run=run
    )


@pytest.fixture
def old_database(transactional_db):
    """The schema and migration records the old layout left, with rows in every table."""
    executor = MigrationExecutor(connection)
    executor.migrate([("dryruns", None), ("dashboard", None)])
    executor.loader.build_graph()
    executor.migrate(OLD_LEAVES)
    executor.loader.build_graph()
    _fill(executor.loader.project_state(OLD_LEAVES).apps)
    yield
    # leave the database as the rest of the suite expects it: fully migrated
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_old_leaves_are_still_in_the_migration_graph():
    graph = MigrationLoader(None).graph  # the files alone, no database
    for app, name in OLD_LEAVES:
        assert (app, name) in graph.nodes
    assert {app for app, _ in graph.leaf_nodes() if app in ("dashboard", "dryruns")} == {
        "dashboard",
        "dryruns",
    }


def test_an_old_database_migrates_and_every_row_is_found(old_database):
    assert set(connection.introspection.table_names()) >= OLD_TABLES
    applied = MigrationRecorder(connection).applied_migrations()
    assert set(OLD_LEAVES) <= set(applied)

    call_command("migrate", verbosity=0)

    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    # every recorded migration of ours is one the graph knows: no orphans left behind
    known = set(executor.loader.graph.nodes)
    ours = {
        key
        for key in MigrationRecorder(connection).applied_migrations()
        if key[0] in ("dashboard", "dryruns")
    }
    assert ours <= known

    cluster = Cluster.objects.get(name="prod")
    assert (cluster.source, cluster.is_live, cluster.mirror_status) == (
        "kubeconfig",
        True,
        "watching",
    )
    node = Node.objects.get(cluster=cluster)
    assert (node.name, node.gpu_allocatable, node.obj["metadata"]["name"]) == ("gpu-1", 8, "gpu-1")
    pod = Pod.objects.get(cluster=cluster)
    assert (pod.namespace, pod.name, pod.gpu_requested) == ("ml", "train-0", 8)
    assert ExtraObject.objects.get(cluster=cluster).kind == "DeviceClass"
    assert overview(cluster)["gpusPending"] == 8

    version = ProfileVersion.objects.get(profile__name="binpack")
    assert (version.number, version.author.username, version.document) == (1, "alice", DOCUMENT)
    run = DryRun.objects.get(cluster=cluster)
    assert (run.profile_version, run.status, bytes(run.snapshot)) == (
        version,
        "succeeded",
        b"frozen",
    )
    assert bytes(DryRunResultPage.objects.get(dry_run=run).data) == b"r"
    assert Application.objects.get(cluster=cluster).dry_run == run
    assert active_document(cluster) == DOCUMENT
    # the roles the old migrations created, and content types that name today's models
    assert set(Group.objects.filter(name__in=ROLES).values_list("name", flat=True)) == set(ROLES)
    assert ContentType.objects.get_by_natural_key("dashboard", "pod").model_class() is Pod
    assert ContentType.objects.get_by_natural_key("dryruns", "dryrun").model_class() is DryRun
    assert User.objects.get(username="alice")


def test_the_models_need_no_new_migration(db):
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
