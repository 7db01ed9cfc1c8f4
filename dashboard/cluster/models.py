"""Mirrored cluster state.

Each Kubernetes object is stored whole in ``obj`` (exactly what the API
returned, with ``kind``/``apiVersion`` filled in) plus the columns that pages
and the API filter on. Columns are derived from ``obj`` by
``dashboard.objects`` so there is one place that knows the API's shape.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import orjson
from django.conf import settings
from django.db import models
from django.utils import timezone

from scheduler_engine.orphans import DEFAULT_GATE_CONTROLLERS


def default_gate_controllers() -> list[str]:
    return list(DEFAULT_GATE_CONTROLLERS)


class ObjectField(models.JSONField):
    """The stored Kubernetes object.

    Having ``get_placeholder`` opts out of Django 5.2's UNNEST bulk insert on
    PostgreSQL: that path sends the JSON as a text array, which psycopg escapes
    with a regex per character, several times slower for 50,000 pods.
    """

    def get_placeholder(self, value: object, compiler: object, connection: object) -> str:
        return "%s"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        # orjson reads a pod ~4x faster than json; it turns integers past 64 bits
        # into floats and refuses lone surrogates, so such text goes to json
        if type(value) is str and self.decoder is None and not _LONG_NUMBER.search(value):
            try:
                return orjson.loads(value)
            except orjson.JSONDecodeError:
                pass
        return super().from_db_value(value, expression, connection)


# 19 digits in a row: maybe an integer orjson cannot hold exactly (json decides)
_LONG_NUMBER = re.compile(r"\d{19}")


class Cluster(models.Model):
    class Source(models.TextChoices):
        KUBECONFIG = "kubeconfig", "kubeconfig"
        IN_CLUSTER = "in-cluster", "in-cluster"
        SNAPSHOT = "snapshot", "imported snapshot"

    class MirrorStatus(models.TextChoices):
        IDLE = "idle", "idle"
        CONNECTING = "connecting", "connecting"
        SYNCING = "syncing", "syncing"
        WATCHING = "watching", "watching"
        ERROR = "error", "error"
        STOPPED = "stopped", "stopped"
        # never written: shown when a running status has no heartbeat (see shown_health)
        GONE = "gone", "gone"

    name = models.SlugField(max_length=100, unique=True)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.SNAPSHOT)
    kubeconfig_path = models.CharField(max_length=500, blank=True)
    kube_context = models.CharField(max_length=200, blank=True)
    snapshot_path = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # Mirror health, written by the mirror process and read by pages.
    mirror_status = models.CharField(
        max_length=20, choices=MirrorStatus.choices, default=MirrorStatus.IDLE
    )
    connected = models.BooleanField(default=False)
    last_event_at = models.DateTimeField(null=True, blank=True)
    last_sync_at = models.DateTimeField(null=True, blank=True)
    lag_seconds = models.FloatField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    resource_versions = models.JSONField(default=dict, blank=True)
    # Kinds the API server does not serve (e.g. resource.k8s.io on a cluster without DRA).
    unavailable_kinds = models.JSONField(default=list, blank=True)
    # Stamped by the running mirror every MIRROR_HEARTBEAT_SECONDS, changes or not.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # what is known to serve pending pods besides the active profile (docs/orphans.md):
    # scheduler names of other schedulers ("volcano"), and the scheduling gates some
    # controller removes (exact names, or a prefix ending in "*")
    declared_schedulers = models.JSONField(default=list, blank=True)
    gate_controllers = models.JSONField(default=default_gate_controllers, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_live(self) -> bool:
        return self.source != self.Source.SNAPSHOT

    def shown_health(self, now: datetime | None = None) -> dict[str, Any]:
        """mirror_status, connected and last_error as pages and the API show them.

        What the mirror last wrote, unless it says it is running (connecting,
        syncing, watching, error) and has not stamped ``heartbeat_at`` for
        ``MIRROR_GONE_SECONDS``: a SIGKILLed or frozen mirror writes nothing
        more, so it is shown as gone, with when it was last heard of.
        """
        shown = {
            "mirror_status": self.mirror_status,
            "connected": self.connected,
            "last_error": self.last_error,
        }
        running = (
            self.MirrorStatus.CONNECTING,
            self.MirrorStatus.SYNCING,
            self.MirrorStatus.WATCHING,
            self.MirrorStatus.ERROR,
        )
        if not self.is_live or self.mirror_status not in running:
            return shown
        now = now or timezone.now()
        beat = self.heartbeat_at
        silent = (now - beat).total_seconds() if beat is not None else None
        if silent is not None and silent <= settings.MIRROR_GONE_SECONDS:
            return shown
        since = f"since {beat:%Y-%m-%d %H:%M:%S} UTC" if beat is not None else "ever"
        gone = f"mirror not running: no heartbeat {since}"
        return {
            "mirror_status": self.MirrorStatus.GONE,
            "connected": False,
            "last_error": f"{gone}; last said: {self.last_error}" if self.last_error else gone,
        }


class KubeObject(models.Model):
    """Columns every mirrored kind has; cluster-scoped kinds keep namespace ''."""

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="+")
    namespace = models.CharField(max_length=253, blank=True, default="")
    name = models.CharField(max_length=253)
    uid = models.CharField(max_length=64, blank=True)
    resource_version = models.CharField(max_length=64, blank=True)
    obj = ObjectField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
        ordering = ["namespace", "name"]
        # Plain indexes, not db_index=True: that adds a varchar_pattern_ops twin per
        # CharField, which no query uses (LIKE is only ever case-insensitive here)
        # and every insert maintains (docs/benchmarks.md, "Scale").
        indexes = [models.Index(fields=["uid"], name="%(class)s_uid")]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def _stamps_index(name: str) -> models.Index:
    """What an explanation's change check reads (per cluster: rows, sum of ids, sum of
    updated_at), so PostgreSQL answers it from the index alone, not the rows' JSON
    (at 50,000 pods, load average 9 to 10: median 171 -> 128 ms over four A/B runs;
    dashboard.explain.live._figures)."""
    return models.Index(fields=["cluster", "id", "updated_at"], name=name)


class Namespace(KubeObject):
    phase = models.CharField(max_length=32, blank=True)

    class Meta(KubeObject.Meta):
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="ns_unique")
        ]


class Node(KubeObject):
    ready = models.BooleanField(default=False)
    unschedulable = models.BooleanField(default=False)
    cpu_allocatable_milli = models.BigIntegerField(default=0)
    memory_allocatable_bytes = models.BigIntegerField(default=0)
    gpu_capacity = models.IntegerField(default=0, db_index=True)
    gpu_allocatable = models.IntegerField(default=0)
    # The GPU resource names the node offers, e.g. ["nvidia.com/gpu"].
    gpu_resources = models.JSONField(default=list, blank=True)

    class Meta(KubeObject.Meta):
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="node_unique")
        ]
        indexes = [*KubeObject.Meta.indexes, _stamps_index("node_cluster_stamps")]


class Pod(KubeObject):
    phase = models.CharField(max_length=32, blank=True)
    node_name = models.CharField(max_length=253, blank=True)
    scheduler_name = models.CharField(max_length=253, blank=True)
    priority = models.IntegerField(null=True, blank=True)
    priority_class_name = models.CharField(max_length=253, blank=True)
    # Set while the pod waits for a node: when it was created.
    pending_since = models.DateTimeField(null=True, blank=True, db_index=True)
    cpu_requested_milli = models.BigIntegerField(default=0)
    memory_requested_bytes = models.BigIntegerField(default=0)
    gpu_requested = models.IntegerField(default=0, db_index=True)

    class Meta(KubeObject.Meta):
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="pod_unique")
        ]
        indexes = [
            *KubeObject.Meta.indexes,
            models.Index(fields=["phase"], name="pod_phase"),
            models.Index(fields=["node_name"], name="pod_node_name"),
            models.Index(fields=["scheduler_name"], name="pod_scheduler_name"),
            models.Index(fields=["cluster", "node_name"], name="pod_cluster_node"),
            _stamps_index("pod_cluster_stamps"),
        ]


class PodHistory(models.Model):
    """What a trace replay needs of every pod the mirror saw, kept after the pod is gone.

    ``obj`` is the pod as last seen, without its node and status (a pending pod
    to schedule again); the times are when it was created, first seen bound to
    a node, and deleted.  Rows deleted longer ago than
    ``SCHEDLAB_TRACE_RETENTION_DAYS`` are dropped; ``export_trace`` writes them
    as a Schedlab trace (``docs/replay.md``).
    """

    cluster = models.ForeignKey(Cluster, on_delete=models.CASCADE, related_name="+")
    namespace = models.CharField(max_length=253)
    name = models.CharField(max_length=253)
    # the pod's uid (namespace/name when it has none): a name reused later is another pod
    uid = models.CharField(max_length=300)
    obj = ObjectField()
    node_name = models.CharField(max_length=253, blank=True)
    created_at = models.DateTimeField(null=True, blank=True)
    bound_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)
    first_seen = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "namespace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["cluster", "uid"], name="pod_history_unique")
        ]
        indexes = [
            models.Index(fields=["cluster", "namespace", "name"], name="pod_history_key"),
        ]

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class PriorityClass(KubeObject):
    value = models.IntegerField(default=0)
    global_default = models.BooleanField(default=False)
    preemption_policy = models.CharField(max_length=64, blank=True)

    class Meta(KubeObject.Meta):
        verbose_name_plural = "priority classes"
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="pc_unique")
        ]


class PodDisruptionBudget(KubeObject):
    min_available = models.CharField(max_length=32, blank=True)
    max_unavailable = models.CharField(max_length=32, blank=True)
    disruptions_allowed = models.IntegerField(null=True, blank=True)

    class Meta(KubeObject.Meta):
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="pdb_unique")
        ]


class Event(KubeObject):
    """``FailedScheduling`` events only: the scheduler's own explanation of a Pending pod."""

    reason = models.CharField(max_length=128, blank=True)
    message = models.TextField(blank=True)
    involved_kind = models.CharField(max_length=64, blank=True)
    involved_namespace = models.CharField(max_length=253, blank=True)
    involved_name = models.CharField(max_length=253, blank=True)
    count = models.IntegerField(default=1)
    last_seen = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta(KubeObject.Meta):
        constraints = [
            models.UniqueConstraint(fields=["cluster", "namespace", "name"], name="event_unique")
        ]
        indexes = [
            *KubeObject.Meta.indexes,
            models.Index(
                fields=["cluster", "involved_namespace", "involved_name"], name="event_involved"
            ),
        ]


class ExtraObject(KubeObject):
    """Every other kind the engine reads, in one table keyed by ``kind``.

    Storage (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode,
    CSIDriver) and DRA (ResourceSlice, ResourceClaim, ResourceClaimTemplate,
    DeviceClass): pages do not filter on their fields, the engine reads them
    whole, so one generic table serves them all (``dashboard.cluster.kinds`` lists them).
    """

    kind = models.CharField(max_length=64)

    class Meta(KubeObject.Meta):
        ordering = ["kind", "namespace", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "kind", "namespace", "name"], name="extra_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {super().__str__()}"
