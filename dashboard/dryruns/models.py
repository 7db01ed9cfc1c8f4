"""Scheduler profiles (immutable versions), their applications to clusters, and dry-runs.

Large payloads (the frozen cluster state, the per-pod results) are gzip JSON in
binary columns; results are split in fixed-size pages so that reading one page
back never inflates the whole run.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from dashboard import stamps
from dashboard.cluster.models import Cluster
from dashboard.stamps import Requested, Worked


class Profile(models.Model):
    """A named KubeSchedulerConfiguration, optionally scoped to one cluster."""

    cluster = models.ForeignKey(
        Cluster, null=True, blank=True, on_delete=models.CASCADE, related_name="profiles"
    )
    name = models.SlugField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "name"], name="profile_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class ProfileVersion(models.Model):
    """One saved document; never updated after it is written (services only insert)."""

    profile = models.ForeignKey(Profile, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    document = models.TextField()
    message = models.CharField(max_length=500, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["profile_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["profile", "number"], name="profile_version_unique")
        ]

    def __str__(self) -> str:
        return f"{self.profile.name} v{self.number}"


class DryRun(Requested, Worked):
    Status = stamps.WorkStatus
    FINISHED = stamps.FINISHED

    class Source(models.TextChoices):
        MIRROR = "mirror", "mirror"
        SNAPSHOT = "snapshot", "snapshot"

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="dry_runs")
    profile_version = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="dry_runs"
    )
    inline_config = models.TextField(blank=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.MIRROR)
    # gzip JSON list of the Kubernetes objects the run starts from (workload included)
    snapshot = models.BinaryField()
    snapshot_sha256 = models.CharField(max_length=64, db_index=True)
    snapshot_objects = models.PositiveIntegerField(default=0)
    resource_versions = models.JSONField(default=dict, blank=True)
    workload = models.JSONField(default=list, blank=True)
    workload_pods = models.PositiveIntegerField(default=0)
    seed = models.BigIntegerField(default=0)
    explain = models.BooleanField(default=False)
    # replay with each GPU node's hardware GPU count instead of nvidia.com/gpu allocatable
    hardware_view = models.BooleanField(default=False)
    # run each profile as its own scheduler whose cache sees the others' bindings this many
    # scheduling cycles late (scheduler_engine.collisions); null: one scheduler, one cache
    scheduler_lag = models.PositiveIntegerField(null=True, blank=True)
    # follow preemption's cascade down to this many levels of evictions (0: not at all)
    cascade_depth = models.PositiveSmallIntegerField(default=0)
    # running pods moved before scheduling: [{"pod": "ns/name", "from": node, "to": node}]
    moves = models.JSONField(default=list, blank=True)
    # kube-scheduler's feature gates the run used, every gate's value; null: the
    # deployment's (SCHEDLAB_FEATURE_GATES) when the run is worked out
    feature_gates = models.JSONField(null=True, blank=True)

    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    cancel_requested = models.BooleanField(default=False)
    progress = models.FloatField(default=0.0)
    pods_done = models.PositiveIntegerField(default=0)
    pods_total = models.PositiveIntegerField(default=0)
    pods_placed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)

    load_seconds = models.FloatField(null=True, blank=True)
    engine_seconds = models.FloatField(null=True, blank=True)
    store_seconds = models.FloatField(null=True, blank=True)
    pods_per_second = models.FloatField(null=True, blank=True)

    summary = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    result_count = models.PositiveIntegerField(default=0)
    result_page_size = models.PositiveIntegerField(default=1000)
    # compact indexes the results page reads instead of the result pages
    # (DryRunIndexPage), at INDEX_VERSION; 0 = none stored
    index_version = models.PositiveSmallIntegerField(default=0)
    pending_count = models.PositiveIntegerField(default=0)
    preemptor_count = models.PositiveIntegerField(default=0)
    victim_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"dry-run {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in self.FINISHED


class DryRunResultPage(models.Model):
    """``result_page_size`` consecutive per-pod results of one run, gzip JSON."""

    dry_run = models.ForeignKey(DryRun, on_delete=models.CASCADE, related_name="result_pages")
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["dry_run_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["dry_run", "index"], name="dryrun_page_unique")
        ]

    def __str__(self) -> str:
        return f"dry-run {self.dry_run_id} page {self.index}"


class DryRunIndexPage(models.Model):
    """A compact index of a finished run, written with its results, gzip JSON.

    ``kind`` is one of ``placements`` (pod, status, node, victims, message per
    result, in queue order), ``pending`` (the results that did not schedule:
    their position, message and per-plugin rejection histogram) or
    ``preemptions`` (preemptors → victims with priority classes and the PDBs
    each eviction breaks) and ``rejections`` (per plugin and reason, the
    pending pods it rejected); the last two are one value in one row. Paged
    kinds are split every ``SIZES[kind]`` entries so a page of the UI
    inflates one row.
    """

    SIZES = {"placements": 1000, "pending": 100, "preemptions": 1, "rejections": 1}

    dry_run = models.ForeignKey(DryRun, on_delete=models.CASCADE, related_name="index_pages")
    kind = models.CharField(max_length=16)
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["dry_run_id", "kind", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["dry_run", "kind", "index"], name="dryrun_index_page_unique"
            )
        ]

    def __str__(self) -> str:
        return f"dry-run {self.dry_run_id} {self.kind} index {self.index}"


class ApplyTarget(models.Model):
    """Where applying a profile on a live cluster also writes it: one ConfigMap.

    Written with server-side apply (field manager ``schedlab``) under ``key``,
    e.g. for a scheduler Deployment that mounts it as its ``--config``.
    """

    cluster = models.OneToOneField(Cluster, on_delete=models.CASCADE, related_name="apply_target")
    enabled = models.BooleanField(default=True)
    namespace = models.CharField(max_length=253, default="kube-system")
    name = models.CharField(max_length=253, default="schedlab-scheduler-config")
    key = models.CharField(max_length=253, default="scheduler-config.yaml")

    def __str__(self) -> str:
        return f"{self.cluster} → ConfigMap {self.namespace}/{self.name}"


class Application(models.Model):
    """A profile version made active on a cluster.

    The latest row per cluster whose ConfigMap write did not fail (or was not
    needed) is active; a row still ``writing`` or ``failed`` is history only.
    """

    class ConfigMapStatus(models.TextChoices):
        NONE = "", "not written (no apply target)"
        WRITING = "writing", "writing"
        WRITTEN = "written", "written"
        FAILED = "failed", "failed"

    INACTIVE = (ConfigMapStatus.WRITING, ConfigMapStatus.FAILED)

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="applications")
    # None: the application undid the first apply, back to the cluster's own scheduler config
    version = models.ForeignKey(
        ProfileVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    applied_at = models.DateTimeField(auto_now_add=True)
    dry_run = models.ForeignKey(
        DryRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    forced = models.BooleanField(default=False)
    rolled_back_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    configmap = models.CharField(max_length=300, blank=True)
    configmap_status = models.CharField(
        max_length=10, choices=ConfigMapStatus.choices, default="", blank=True
    )
    configmap_resource_version = models.CharField(max_length=64, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-applied_at", "-id"]

    def __str__(self) -> str:
        now = self.version if self.version is not None else "no profile (its own config)"
        return f"{self.cluster} ← {now}"
