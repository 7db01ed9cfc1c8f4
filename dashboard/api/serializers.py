"""Shapes of the API's requests and responses."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from dashboard.cluster.models import Cluster, Node, Pod
from dashboard.dryruns.models import Application, DryRun, Profile, ProfileVersion
from dashboard.dryruns.services import profiles as profile_services
from scheduler_engine.cascade import MAX_CASCADE_DEPTH
from scheduler_engine.orphans import REASONS as ORPHAN_REASONS

from .fields import FeatureGatesField, OptionalObjectsField, StrictCharField, StrictSlugField

MAX_SEED = 2**62
WARNINGS_HELP = (
    "what a dry-run of the configuration leaves out, one line each: its extenders are "
    "never called (docs/fidelity.md)"
)


class ClusterSerializer(serializers.ModelSerializer):
    # as shown: a mirror that has not stamped heartbeat_at for MIRROR_GONE_SECONDS is "gone"
    mirror_status = serializers.SerializerMethodField()
    connected = serializers.SerializerMethodField()
    last_error = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ChoiceField(choices=Cluster.MirrorStatus.choices))
    def get_mirror_status(self, cluster: Cluster) -> str:
        return cluster.shown_health()["mirror_status"]

    def get_connected(self, cluster: Cluster) -> bool:
        return cluster.shown_health()["connected"]

    def get_last_error(self, cluster: Cluster) -> str:
        return cluster.shown_health()["last_error"]

    class Meta:
        model = Cluster
        fields = [
            "id",
            "name",
            "source",
            "mirror_status",
            "connected",
            "last_sync_at",
            "last_event_at",
            "lag_seconds",
            "last_error",
            "heartbeat_at",
            "resource_versions",
            "unavailable_kinds",
            "created_at",
        ]


class NodeSerializer(serializers.ModelSerializer):
    labels = serializers.SerializerMethodField()

    class Meta:
        model = Node
        fields = [
            "id",
            "cluster",
            "name",
            "ready",
            "unschedulable",
            "cpu_allocatable_milli",
            "memory_allocatable_bytes",
            "gpu_capacity",
            "gpu_allocatable",
            "gpu_resources",
            "labels",
            "resource_version",
        ]

    def get_labels(self, node: Node) -> dict[str, str]:
        return (node.obj.get("metadata") or {}).get("labels") or {}


class PodSerializer(serializers.ModelSerializer):
    class Meta:
        model = Pod
        fields = [
            "id",
            "cluster",
            "namespace",
            "name",
            "phase",
            "node_name",
            "scheduler_name",
            "priority",
            "priority_class_name",
            "pending_since",
            "cpu_requested_milli",
            "memory_requested_bytes",
            "gpu_requested",
            "resource_version",
        ]


class EventSerializer(serializers.Serializer):
    type = serializers.CharField()
    reason = serializers.CharField()
    message = serializers.CharField()


class FailureSerializer(serializers.Serializer):
    plugin = serializers.CharField()
    reason = serializers.CharField(help_text="the plugin's own wording")


class NearestNodeSerializer(serializers.Serializer):
    node = serializers.CharField()
    failures = FailureSerializer(many=True, help_text="every filter plugin that rejects the node")
    shortfall = serializers.DictField(
        child=serializers.CharField(),
        help_text="resource → quantity missing on the node (e.g. cpu: 500m, pods: 1)",
    )
    distance = serializers.FloatField(
        help_text="kinds of change (integer part), then the mean share of the node missing"
    )
    lacking = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="resources the pod asks more of than the node has even when empty",
    )
    taints = OptionalObjectsField(
        help_text="untolerated taints: key, value, effect and the exact toleration to add"
    )
    terms = OptionalObjectsField(
        help_text="violated terms: kind (podAffinity, podAntiAffinity, existingPodAntiAffinity, "
        "topologySpread), term index, topologyKey, domain, pods or skew",
    )


class FixSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=[
            "requests",
            "toleration",
            "affinity",
            "spread",
            "preemption",
            "priority",
            "move",
            "node",
        ]
    )
    summary = serializers.CharField()
    patch = serializers.DictField(
        allow_null=True,
        help_text="strategic-merge patch of the pod; for kind node, the Node to add",
    )
    verified = serializers.BooleanField(help_text="always true: unverified changes are not shown")
    cost = serializers.FloatField(help_text="lower is a smaller change (docs/explanations.md)")
    node = serializers.CharField(allow_null=True, help_text="where the changed pod fits")
    evict = OptionalObjectsField(
        help_text="preemption and priority: the pods to free (pod, node, priority)"
    )
    moves = OptionalObjectsField(help_text="move: the pods to move, in order (pod, from, to)")


class RejectedNodeSerializer(serializers.Serializer):
    name = serializers.CharField()
    failures = FailureSerializer(many=True, help_text="every filter plugin that rejects the node")


class RejectionSerializer(serializers.Serializer):
    plugin = serializers.CharField(help_text="the first filter plugin that rejects these nodes")
    reason = serializers.CharField(help_text="its reason, in the plugin's own wording")
    count = serializers.IntegerField(help_text="nodes rejected first for this reason (exact)")
    nodes = RejectedNodeSerializer(many=True, help_text="a sample: at most 10 of them")
    more = serializers.IntegerField(help_text="the nodes of the group not listed")


class TopScoredSerializer(serializers.Serializer):
    node = serializers.CharField()
    score = serializers.IntegerField(help_text="the final weighted total")
    plugins = serializers.DictField(
        child=serializers.DictField(), help_text="plugin → raw, normalized, weighted"
    )


class NodeSummarySerializer(serializers.Serializer):
    nodes = serializers.IntegerField(allow_null=True, help_text="nodes in the snapshot")
    feasible = serializers.IntegerField(help_text="nodes that pass every filter")
    rejected = serializers.IntegerField(help_text="nodes some filter rejects")
    rejections = RejectionSerializer(
        many=True, help_text="rejected nodes by first failing plugin and reason, largest first"
    )
    topScored = TopScoredSerializer(
        many=True, help_text="the feasible nodes with the highest totals (at most 10)"
    )


def _every_node(what: str) -> serializers.DictField:
    """A per-node map of the explanation, sent with include=nodes."""
    return serializers.DictField(required=False, help_text=f"include=nodes: {what}")


class BeforePreemptionSerializer(serializers.Serializer):
    message = serializers.CharField(
        help_text="that attempt's FailedScheduling message (0/N nodes are available: ...)"
    )
    nominatedNode = serializers.CharField(help_text="the node preemption nominated")
    nodeSummary = NodeSummarySerializer(help_text="that attempt's node verdicts in brief")
    filterFailures = _every_node("node → its first failure in that attempt")
    allFilterFailures = _every_node("node → every failure in that attempt")


class ExplanationSerializer(serializers.Serializer):
    pod = serializers.CharField()
    status = serializers.CharField()
    node = serializers.CharField(allow_null=True, required=False)
    # null for a pod held back before scheduling whose PodScheduled condition has no message
    message = serializers.CharField(allow_null=True)
    nominatedNode = serializers.CharField(allow_null=True, required=False)
    victims = serializers.ListField(child=serializers.CharField(), required=False)
    events = EventSerializer(many=True, required=False)
    preEnqueue = serializers.DictField(child=serializers.CharField(), required=False)
    nodeSummary = NodeSummarySerializer(
        required=False, help_text="the node verdicts in brief (not for a bound pod)"
    )
    scores = _every_node("node → total")
    filterFailures = _every_node("node → its first failure")
    allFilterFailures = _every_node("node → every failure")
    pluginScores = _every_node("node → plugin → raw, normalized, weighted")
    record = _every_node("extension point → node → plugin → value")
    beforePreemption = BeforePreemptionSerializer(
        required=False,
        help_text="a pod that preempted and was then tried again: the attempt that preempted, "
        "why no node fit before the victims left",
    )
    nearest = NearestNodeSerializer(
        many=True,
        required=False,
        help_text="include=whatif, unschedulable pods: the closest nodes (at most 10), "
        "closest first",
    )
    fixes = FixSerializer(
        many=True,
        required=False,
        help_text="include=whatif, unschedulable pods: changes that make the pod fit, each "
        "verified by the engine with the active profile, cheapest first (at most 5, one per "
        "kind)",
    )
    warnings = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="only when the active profile has extenders, last: one line per extender, "
        "which the engine never calls (docs/fidelity.md)",
    )


class GangPlacementSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="the domain (value of the topology key)")
    nodes = serializers.IntegerField()
    placed = serializers.IntegerField()
    status = serializers.CharField()
    message = serializers.CharField(allow_blank=True, required=False)
    score = serializers.IntegerField(required=False)


class UnschedulableSettingsSerializer(serializers.Serializer):
    """What serves pending pods besides the active profile (docs/orphans.md)."""

    declaredSchedulers = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="scheduler names other schedulers serve (e.g. volcano); each a DNS-1123 "
        "subdomain, as spec.schedulerName; at most 200",
    )
    gateControllers = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="scheduling gates some controller removes: qualified names as "
        "spec.schedulingGates[].name, or a prefix ending in '*'; at most 200 (default: "
        "kueue.x-k8s.io/admission, kueue.x-k8s.io/topology)",
    )


class OrphanSerializer(serializers.Serializer):
    """One reason one pending pod will not be scheduled."""

    pod = serializers.CharField(help_text="namespace/name")
    reason = serializers.ChoiceField(choices=list(ORPHAN_REASONS))
    field = serializers.CharField(help_text="the pod's field that says it")
    value = serializers.CharField(help_text="the name found there")
    message = serializers.CharField()


class UnschedulableSerializer(UnschedulableSettingsSerializer):
    """Pending pods nobody will schedule, by reason, and what was taken as known."""

    profiles = serializers.ListField(
        child=serializers.CharField(), help_text="the active profile's scheduler names"
    )
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="findings by reason")
    pods = serializers.IntegerField(help_text="pods with at least one finding")
    orphans = OrphanSerializer(many=True)


class GangSerializer(serializers.Serializer):
    """A pod group with pending members, as the engine's ``summary.gangs`` lists it."""

    name = serializers.CharField(help_text="namespace/name of the pod group")
    api = serializers.CharField(
        help_text="scheduling.k8s.io/v1alpha2 (native) or scheduling.x-k8s.io/v1alpha1 "
        "(Coscheduling)"
    )
    minMember = serializers.IntegerField(
        allow_null=True, help_text="gang.minCount or minMember; null for basic or missing groups"
    )
    members = serializers.IntegerField(help_text="the group's pending pods")
    placed = serializers.IntegerField(help_text="members that fit in the group's last cycle")
    scheduled = serializers.IntegerField(help_text="members that would be bound")
    status = serializers.CharField(
        help_text="Scheduled, Unschedulable, WaitingForPreemption, QuorumNotReached, "
        "PodGroupMissing, Error or Pending"
    )
    reasons = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="blocked members counted by the reason that rejected most nodes for each",
    )
    domainKey = serializers.CharField(allow_null=True, required=False)
    domains = serializers.DictField(
        child=serializers.IntegerField(), help_text="placed members per value of domainKey"
    )
    message = serializers.CharField(allow_blank=True)
    summary = serializers.CharField(help_text="one line: fit, where, blocked by what, quorum")
    quorumMissing = serializers.IntegerField(required=False)
    released = serializers.DictField(child=serializers.IntegerField(), required=False)
    placements = GangPlacementSerializer(many=True, required=False)
    placement = serializers.CharField(allow_null=True, required=False)


class ProfileVersionSerializer(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ProfileVersion
        fields = ["id", "profile", "number", "document", "message", "author", "created_at"]
        read_only_fields = fields


class ProfileSerializer(serializers.ModelSerializer):
    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = Profile
        fields = ["id", "cluster", "name", "created_at", "latest_version"]

    def get_latest_version(self, profile: Profile) -> int | None:
        last = profile.versions.order_by("-number").first()
        return last.pk if last else None


class ProfileCreateSerializer(serializers.Serializer):
    name = StrictSlugField(max_length=100)
    cluster = serializers.PrimaryKeyRelatedField(
        queryset=Cluster.objects.all(), required=False, allow_null=True
    )
    document = StrictCharField(trim_whitespace=False)
    message = StrictCharField(max_length=500, required=False, allow_blank=True, default="")


class VersionCreateSerializer(serializers.Serializer):
    document = StrictCharField(trim_whitespace=False)
    message = StrictCharField(max_length=500, required=False, allow_blank=True, default="")


class ValidateSerializer(serializers.Serializer):
    document = StrictCharField(trim_whitespace=False)


class ProblemSerializer(serializers.Serializer):
    field = serializers.CharField()
    message = serializers.CharField()


class ValidationResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = ProblemSerializer(many=True, help_text="the first SCHEDLAB_MAX_REPORTED_ERRORS (50)")
    error_count = serializers.IntegerField(help_text="how many problems there are in all")
    warnings = serializers.ListField(
        child=serializers.CharField(),
        help_text=WARNINGS_HELP,
    )


class DiffSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    diff = serializers.CharField(allow_blank=True)


class ApplySerializer(serializers.Serializer):
    cluster = serializers.PrimaryKeyRelatedField(queryset=Cluster.objects.all())
    dry_run = serializers.PrimaryKeyRelatedField(
        queryset=DryRun.objects.defer("snapshot"), required=False, allow_null=True
    )
    force = serializers.BooleanField(default=False)


class ApplicationSerializer(serializers.ModelSerializer):
    applied_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    # null when the application undid the first one (no profile: the cluster's own config)
    profile = serializers.CharField(source="version.profile.name", read_only=True, allow_null=True)
    version_number = serializers.IntegerField(
        source="version.number", read_only=True, allow_null=True
    )
    took_effect = serializers.SerializerMethodField()

    class Meta:
        model = Application
        fields = [
            "id",
            "cluster",
            "version",
            "profile",
            "version_number",
            "applied_by",
            "applied_at",
            "dry_run",
            "forced",
            "rolled_back_from",
            "configmap",
            "configmap_status",
            "configmap_resource_version",
            "error",
            "took_effect",
        ]
        read_only_fields = fields

    def get_took_effect(self, app: Application) -> bool:
        """False while its ConfigMap is being written or when that failed: history only."""
        return app.configmap_status not in Application.INACTIVE


class AppliedSerializer(ApplicationSerializer):
    """An apply's or a rollback's answer: the application, then what the scheduler now does
    that no dry-run did."""

    warnings = serializers.SerializerMethodField(
        help_text="one line per extender of the version now active: the cluster's scheduler "
        "calls them, the dry-runs (the one the apply rests on too) did not (docs/fidelity.md)"
    )

    class Meta(ApplicationSerializer.Meta):
        fields = [*ApplicationSerializer.Meta.fields, "warnings"]
        read_only_fields = fields

    def get_warnings(self, app: Application) -> list[str]:
        return profile_services.document_warnings(app.version.document) if app.version else []


class DryRunCreateSerializer(serializers.Serializer):
    cluster = serializers.PrimaryKeyRelatedField(queryset=Cluster.objects.all())
    profile_version = serializers.PrimaryKeyRelatedField(
        queryset=ProfileVersion.objects.all(), required=False, allow_null=True
    )
    inline_config = StrictCharField(required=False, allow_blank=True, default="")
    source = serializers.ChoiceField(choices=DryRun.Source.choices, default=DryRun.Source.MIRROR)
    snapshot = serializers.JSONField(
        required=False, allow_null=True, help_text="YAML/JSON text, a kind: List or a list"
    )
    workload = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="Pods, or {kind: Job|Deployment|PodGroup, name, replicas, podTemplate}",
    )
    seed = serializers.IntegerField(default=0, min_value=0, max_value=MAX_SEED)
    explain = serializers.BooleanField(default=False)
    hardware_view = serializers.BooleanField(
        default=False,
        help_text=(
            "Replay the pending pods with each GPU node's hardware GPU count (the devices its "
            "ResourceSlices list, else GPU Feature Discovery's nvidia.com/gpu.count) instead of "
            "nvidia.com/gpu allocatable. The results are the hardware view's placements; "
            "summary.hardwareView lists the nodes whose count changed (nodes), the placements "
            "the scheduler's view makes on GPUs that do not exist (phantomPlacements) and the "
            "pods the two views place differently (moved)."
        ),
    )
    cascade_depth = serializers.IntegerField(
        default=0,
        min_value=0,
        max_value=MAX_CASCADE_DEPTH,
        help_text=(
            "Follow preemption's cascade down to this many levels of evictions (0: off; at "
            "most SCHEDLAB_CASCADE_MAX_DEPTH, 10 by default): victims a ReplicaSet (a "
            "Deployment's too), ReplicationController, StatefulSet, Job or DaemonSet owns "
            "come back as new pending pods and are scheduled in turn. Reported in "
            "summary.cascade and at "
            "dry-runs/{id}/cascade/."
        ),
    )

    scheduler_lag = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=1_000_000,
        help_text=(
            "Collide the schedulers: run each profile of the configuration (two or more "
            "schedulerNames) as a scheduler with its own cache that sees the others' bindings "
            "this many scheduling cycles late (0: at once; the schedulers take turns, one pod "
            "per cycle). Each result carries profile, cycle and kubelet (null, or the kubelet's "
            "refusal: reason OutOfcpu, OutOfmemory, OutOfpods, OutOfnvidia.com/gpu, ... and its "
            "message); summary.collisions lists the refused pods (refused: pod, node, profile, "
            "reason, message, unseen: the pods on the node its scheduler did not know of), "
            "refusedByReason and doubleBookedNodes. Not with hardware_view."
        ),
    )

    feature_gates = FeatureGatesField(
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            "kube-scheduler's feature gates for this run, over the deployment's "
            "(SCHEDLAB_FEATURE_GATES): gate name to true or false, or the --feature-gates text "
            '"GenericWorkload=true,GangScheduling=true". The alpha gates GenericWorkload, '
            "GangScheduling, TopologyAwareWorkloadScheduling and WorkloadAwarePreemption turn "
            "on the native workload API's pod-group cycle (docs/gangs.md). An unknown gate, a "
            "value other than true or false, or a gate without the one it needs is a 400 naming "
            "feature_gates. The run records every gate's value."
        ),
    )

    moves = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text=(
            'Running pods to move before scheduling, in order: [{"pod": "ns/name", "from": '
            'node, "to": node}] (a "move" fix\'s moves). Each pod is evicted from "from" and '
            'bound to "to"; then the pending pods are scheduled. The run\'s summary.moves '
            'repeats them. A pod that is not running on "from", or a node that does not '
            "exist, is a 400 naming moves[i].pod, .from or .to."
        ),
    )


class DryRunSerializer(serializers.ModelSerializer):
    feature_gates = FeatureGatesField(
        read_only=True,
        help_text="every gate's value the run used; null: the deployment's when it ran",
    )
    warnings = serializers.SerializerMethodField(help_text=WARNINGS_HELP)

    class Meta:
        model = DryRun
        fields = [
            "id",
            "cluster",
            "profile_version",
            "inline_config",
            "source",
            "snapshot_sha256",
            "snapshot_objects",
            "resource_versions",
            "workload_pods",
            "seed",
            "explain",
            "hardware_view",
            "scheduler_lag",
            "cascade_depth",
            "moves",
            "feature_gates",
            "status",
            "cancel_requested",
            "progress",
            "pods_done",
            "pods_total",
            "pods_placed",
            "error",
            "attempts",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
            "load_seconds",
            "engine_seconds",
            "store_seconds",
            "pods_per_second",
            "summary",
            "metrics",
            "result_count",
            "warnings",
        ]
        read_only_fields = fields

    def get_warnings(self, run: DryRun) -> list[str]:
        return profile_services.run_warnings(run)


class ResultPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    offset = serializers.IntegerField()
    limit = serializers.IntegerField()
    results = serializers.ListField(child=serializers.DictField())


class CascadeOwnerSerializer(serializers.Serializer):
    kind = serializers.CharField(
        help_text="the controller's kind (ownerReferences, controller: true)"
    )
    name = serializers.CharField()
    deployment = serializers.CharField(
        required=False, help_text="the Deployment above a ReplicaSet (by pod-template-hash)"
    )


class CascadeOutcomeSerializer(serializers.Serializer):
    status = serializers.CharField(help_text="Scheduled, Unschedulable, Skipped or Error")
    node = serializers.CharField(allow_null=True)
    message = serializers.CharField(allow_blank=True, allow_null=True)


class CascadeEvictionSerializer(serializers.Serializer):
    pod = serializers.CharField(help_text="the victim, ns/name")
    node = serializers.CharField(help_text="the node it was evicted from")
    by = serializers.CharField(help_text="its preemptor, ns/name")
    priority = serializers.IntegerField()
    priorityClass = serializers.CharField(allow_blank=True)
    owner = CascadeOwnerSerializer(allow_null=True)
    cause = serializers.ChoiceField(
        choices=[
            "ReplicaSet",
            "Deployment",
            "ReplicationController",
            "StatefulSet",
            "Job",
            "DaemonSet",
            "bare",
            "unknownController",
        ],
        help_text="who recreates it (bare and unknownController: nobody)",
    )
    recreatedAs = serializers.CharField(
        allow_null=True, help_text="the replacement pod, ns/name; null if not recreated"
    )
    outcome = CascadeOutcomeSerializer(allow_null=True, help_text="what became of the replacement")


class CascadeNowhereSerializer(serializers.Serializer):
    pod = serializers.CharField(help_text="the replacement left without a node")
    replaces = serializers.CharField()
    status = serializers.CharField()
    message = serializers.CharField(allow_blank=True, help_text="its FailedScheduling message")


class CascadePdbViolationSerializer(serializers.Serializer):
    pdb = serializers.CharField(help_text="ns/name")
    disruptionsAllowed = serializers.IntegerField()
    evicted = serializers.ListField(child=serializers.CharField())
    evictedSoFar = serializers.IntegerField()
    alreadyViolated = serializers.BooleanField()


class CascadeLevelSerializer(serializers.Serializer):
    depth = serializers.IntegerField(
        help_text="1: evicted by the pods pending before the run; n+1: by depth-n replacements"
    )
    evictions = CascadeEvictionSerializer(many=True)
    evictionCount = serializers.IntegerField()
    nodes = serializers.ListField(child=serializers.CharField())
    priorityClasses = serializers.DictField(
        child=serializers.IntegerField(), help_text="evictions per priority class"
    )
    recreated = serializers.ListField(child=serializers.CharField())
    placed = serializers.IntegerField()
    nowhereToGo = CascadeNowhereSerializer(many=True)
    notRecreated = serializers.IntegerField()
    pdbViolations = CascadePdbViolationSerializer(many=True)
    brokenGangs = serializers.ListField(child=serializers.DictField())


class CascadeTotalsSerializer(serializers.Serializer):
    evictions = serializers.IntegerField()
    recreated = serializers.IntegerField()
    placed = serializers.IntegerField()
    nowhereToGo = serializers.IntegerField()
    notRecreated = serializers.IntegerField()
    pdbViolations = serializers.IntegerField()
    brokenGangs = serializers.IntegerField()


class CascadeSerializer(serializers.Serializer):
    """A dry-run's preemption cascade (``summary.cascade``; docs/cascades.md)."""

    depthLimit = serializers.IntegerField()
    depth = serializers.IntegerField(help_text="the deepest depth with an eviction")
    stoppedBy = serializers.ChoiceField(choices=["end", "depthLimit"])
    levels = CascadeLevelSerializer(many=True)
    totals = CascadeTotalsSerializer()


class CompareSerializer(serializers.Serializer):
    a = serializers.IntegerField()
    b = serializers.IntegerField()
    sameState = serializers.BooleanField()
    counts = serializers.DictField(child=serializers.IntegerField())
    changes = serializers.ListField(child=serializers.DictField())
    changesTruncated = serializers.BooleanField()
    metrics = serializers.ListField(child=serializers.DictField())
    warnings = serializers.ListField(
        child=serializers.CharField(),
        help_text="one line per extender of either run's configuration, once each: neither "
        "run called them (docs/fidelity.md)",
    )
