"""Extension points, one small protocol each (upstream ``framework/interface.go``).

A plugin is a class with a ``NAME`` and the methods of the points it joins.
Success is ``None``; see :mod:`.status`.  The runtime builds one list of
plugins per point when a profile is built, and calls plugins only through
those lists, recording every result at that one place.

Vectorised methods: a Filter plugin may also be a :class:`BatchFilterPlugin`
(``filter_batch``), a Score plugin a :class:`BatchScorePlugin`
(``score_batch``) and its score extensions :class:`BatchScoreExtensions`
(``normalize_score_batch``).  The runtime checks these protocols once per
profile and uses the vectorised methods when it does not explain, to evaluate
many nodes at once.  They must agree exactly with the per-node methods;
property tests check that.  :class:`NodeLocalFilterPlugin` and
:class:`NodeLocalScorePlugin` add the markers that let the runtime keep
answers across cycles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..objects import Pod
from .cycle_state import CycleState
from .node_info import NodeInfo
from .status import Status

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster import ClusterState
    from .snapshot import Snapshot

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "BasePlugin",
    "BatchFilterPlugin",
    "BatchScoreExtensions",
    "BatchScorePlugin",
    "BindPlugin",
    "FilterPlugin",
    "Handle",
    "NodeLocalFilterPlugin",
    "NodeLocalScorePlugin",
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "PermitPlugin",
    "Plugin",
    "PluginFactory",
    "PodBlindFilterPlugin",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "RefusingSignPlugin",
    "ReservePlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "SignPlugin",
    "StatusBatchFilterPlugin",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0


# -- values passed between the runtime and plugins ------------------------------


class NodeScore:
    """A node's score from one plugin; NormalizeScore rewrites ``score`` in place."""

    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int) -> None:
        self.name = name
        self.score = score

    def __repr__(self) -> str:
        return f"NodeScore({self.name}={self.score})"


@dataclass(frozen=True, slots=True)
class PreFilterResult:
    """Nodes a PreFilter plugin narrows the search to; None means all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@dataclass(frozen=True, slots=True)
class NominatingInfo:
    nominated_node_name: str
    # "Override": set (or clear, with "") the pod's nominated node; "Noop": leave it
    mode: str = "Override"


@dataclass(slots=True)
class PostFilterResult:
    nominating_info: NominatingInfo | None = None
    # beyond upstream: what preemption decided, for explanations
    victims: list[Pod] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


class NodeToStatus:
    """Statuses of rejected nodes, plus one status for every node not listed.

    Upstream's ``NodeToStatusMap``: nodes that PreFilter excluded are absent and
    share ``absent`` (UnschedulableAndUnresolvable by default).
    """

    __slots__ = ("absent", "statuses")

    def __init__(
        self, statuses: dict[str, Status] | None = None, absent: Status | None = None
    ) -> None:
        self.statuses: dict[str, Status] = statuses if statuses is not None else {}
        self.absent: Status = absent if absent is not None else Status.unresolvable()

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)

    def set(self, name: str, status: Status) -> None:
        self.statuses[name] = status

    def __len__(self) -> int:
        return len(self.statuses)

    def nodes_for_status_code(self, snapshot: Snapshot, code: int) -> list[NodeInfo]:
        """Node infos whose status (explicit or absent) has ``code``."""
        return [ni for ni in snapshot.node_info_list if self.get(ni.name).code == code]


@dataclass(slots=True, eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue."""

    pod: Pod
    # when the pod was (re)added to the queue; PrioritySort's tie-break
    timestamp: float
    initial_attempt_ts: float | None = None
    attempts: int = 0
    gated: bool = False
    unschedulable_plugins: set[str] = field(default_factory=set)


# -- what plugins can reach -----------------------------------------------------


class Handle(Protocol):
    """Given to every plugin factory (upstream ``framework.Handle``)."""

    @property
    def cluster(self) -> ClusterState:
        """Every object of the snapshot (PDBs, PriorityClasses, namespaces, volumes, DRA)."""
        ...

    def snapshot(self) -> Snapshot:
        """Node infos of the current cycle."""
        ...

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        """Pods nominated to ``node_name`` by earlier preemptions (not yet bound)."""
        ...

    def has_nominated_pods(self) -> bool:
        """Whether any node has pods nominated to it."""
        ...

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Filters for ``pod`` on ``node_info`` (which may be a copy with pods removed): the first
        rejection, in plugin order (upstream ``PluginsRunner.RunFilterPlugins``)."""
        ...

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Filters for ``pod`` on ``node_info``, counting higher-or-equal priority nominated pods."""
        ...

    def has_pre_filter_extensions(self, state: CycleState) -> bool:
        """Whether ``run_pre_filter_extension_add_pod``/``remove_pod`` call any plugin in this cycle."""
        ...

    def refilter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Whether ``pod`` still passes on a node it passed, now that only the node's pods changed."""
        ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Each PreFilter plugin's AddPod for ``pod_to_add`` on ``node_info``; the first
        failure returns (upstream ``PluginsRunner.RunPreFilterExtensionAddPod``)."""
        ...

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Each PreFilter plugin's RemovePod for ``pod_to_remove`` on ``node_info``; the first
        failure returns (upstream ``PluginsRunner.RunPreFilterExtensionRemovePod``)."""
        ...

    @property
    def rng(self) -> Any:
        """The run's seeded ``random.Random``."""
        ...

    def now(self) -> float:
        """The run's clock (seconds since the epoch)."""
        ...

    @property
    def parallelism(self) -> int: ...


PluginFactory = Callable[[Mapping[str, Any], Handle], "Plugin"]


# -- the extension points -------------------------------------------------------


@runtime_checkable
class Plugin(Protocol):
    NAME: str


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    def pre_enqueue(self, pod: Pod) -> Status | None: ...


class PreFilterExtensions(Protocol):
    """Keep PreFilter state right when preemption adds or removes pods."""

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None: ...

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class BatchFilterPlugin(FilterPlugin, Protocol):
    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """Per node of ``nodes``, in order: True where :meth:`filter` would pass it."""
        ...


@runtime_checkable
class StatusBatchFilterPlugin(BatchFilterPlugin, Protocol):
    """A vectorised Filter plugin that also gives each node's status at once.

    An explanation records every filter's status on every node; where most
    nodes are rejected, one call over all of them replaces the per-node calls.
    """

    def filter_statuses_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Per node of ``nodes``, in order: what :meth:`filter` would return (the same
        code and reasons; nodes rejected alike may share one status)."""
        ...


@runtime_checkable
class PodBlindFilterPlugin(FilterPlugin, Protocol):
    """A Filter plugin that says whether its verdict ignores the node's pods.

    ``filter_reads_no_pods`` True promises that the verdict on a node depends
    on the pod, the node object and cluster objects, never on the pods on the
    node, so preemption's dry run need not ask it again while it adds
    would-be victims back to a node it passed.  A plugin without the
    attribute is not a member of this protocol and is always asked again.
    """

    filter_reads_no_pods: bool = False


@runtime_checkable
class NodeLocalFilterPlugin(BatchFilterPlugin, Protocol):
    """A vectorised Filter plugin that says whether its verdict is node-local.

    ``node_local_filter`` True promises that the verdict on a node depends on
    the pod's spec and status and on that node alone, so the runtime may keep
    verdicts across cycles (:mod:`.node_memo`).  A plugin without the
    attribute is not a member of this protocol and is simply not memoised.
    """

    node_local_filter: bool = False


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    def post_filter(
        self, state: CycleState, pod: Pod, filtered: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]: ...


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    def pre_score(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status | None: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None: ...


@runtime_checkable
class BatchScoreExtensions(ScoreExtensions, Protocol):
    def normalize_score_batch(
        self, state: CycleState, pod: Pod, scores: np.ndarray
    ) -> Status | np.ndarray | None:
        """:meth:`normalize_score` over the raw scores' array: in place, or a new array."""
        ...


@runtime_checkable
class SignPlugin(Plugin, Protocol):
    """A plugin that can say which of a pod's fields its answers depend on (OpportunisticBatching)."""

    def sign_pod(self, pod: Pod) -> tuple[list[tuple[str, Any]], Status | None]:
        """Fragments (key, value) of the pod's signature, or a status refusing to sign it."""
        ...


@runtime_checkable
class RefusingSignPlugin(SignPlugin, Protocol):
    """A signer that may refuse every pod whatever the pod (PodTopologySpread with
    default constraints): the profile then signs no pod, and nothing is asked per pod."""

    @property
    def refuses_every_pod(self) -> bool: ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        """The raw score, or a Status for an error."""
        ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class BatchScorePlugin(ScorePlugin, Protocol):
    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """Raw scores of ``nodes``, in order (int64), as :meth:`score` gives them one by one."""
        ...


@runtime_checkable
class NodeLocalScorePlugin(BatchScorePlugin, Protocol):
    """A vectorised Score plugin that says whether its raw score is node-local.

    ``node_local_score`` True: the raw score of a node depends on the pod's
    spec and status and on that node alone (:mod:`.node_memo`), as
    :class:`NodeLocalFilterPlugin`'s marker does for verdicts.
    """

    node_local_score: bool = False


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """(status, timeout in seconds); a WAIT status holds the pod up to the timeout."""
        ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


class BasePlugin:
    """An optional base for a plugin class: the extension questions answered from its methods.

    As a method named ``filter`` joins Filter, a plugin that defines ``add_pod``
    (and so ``remove_pod``) is its own :class:`PreFilterExtensions`, one that defines
    ``normalize_score`` its own :class:`ScoreExtensions`, and one that defines
    ``normalize_placement_score`` its own placement score extensions; without
    them the answer is None (no AddPod/RemovePod, no NormalizeScore), as
    upstream's plugins answer nil.  A plugin may override any of the three.
    """

    __slots__ = ()

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self if hasattr(self, "add_pod") else None  # type: ignore[return-value]

    def score_extensions(self) -> ScoreExtensions | None:
        return self if hasattr(self, "normalize_score") else None  # type: ignore[return-value]

    def placement_score_extensions(self) -> Any:
        return self if hasattr(self, "normalize_placement_score") else None


# extension point → the method a plugin defines to join it
POINT_METHODS: dict[str, str] = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "less",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
    # v1.36 alpha (TopologyAwareWorkloadScheduling): pod-group placements
    "placementGenerate": "generate_placements",
    "placementScore": "score_placement",
}


def implemented_points(plugin_cls: type) -> frozenset[str]:
    """Extension points a plugin class implements (by its methods)."""
    return frozenset(p for p, m in POINT_METHODS.items() if callable(getattr(plugin_cls, m, None)))
