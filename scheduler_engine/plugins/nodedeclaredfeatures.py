"""NodeDeclaredFeatures: PreFilter and Filter (upstream ``plugins/nodedeclaredfeatures``).

Beta and on by default in v1.36.  Some pod specs only work on nodes whose
kubelet supports a feature; kubelets publish what they support in
``node.status.declaredFeatures``.  The pod's needs are inferred from its spec
(component-helpers ``nodedeclaredfeatures``); a node that lacks one is
rejected.  Of the registered features only two matter for scheduling:

* ``RestartAllContainersOnContainerExits``: a container or init container
  with a ``restartPolicyRules`` action ``RestartAllContainers``;
* ``UserNamespacesHostNetworkSupport``: ``hostNetwork: true`` with
  ``hostUsers: false``.

Pods needing no feature (nearly all) skip the plugin in PreFilter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import BasePlugin, Handle, PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.signers import FEATURES, Fragments
from ..framework.status import Code, Status
from ..objects import Pod

__all__ = [
    "ERR_REASON_UNSATISFIED_REQUIREMENTS",
    "NAME",
    "PLUGIN",
    "REGISTERED_FEATURES",
    "NodeDeclaredFeatures",
    "infer_for_pod_scheduling",
    "new",
    "node_feature_set",
]

NAME = "NodeDeclaredFeatures"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features"

RESTART_ALL_CONTAINERS = "RestartAllContainersOnContainerExits"
USER_NAMESPACES_HOST_NETWORK = "UserNamespacesHostNetworkSupport"
# the registry of component-helpers' nodedeclaredfeatures in v1.36, sorted by name
REGISTERED_FEATURES: tuple[str, ...] = tuple(
    sorted(
        (
            RESTART_ALL_CONTAINERS,
            "InPlacePodLevelResourcesVerticalScaling",
            "ExtendWebSocketsToKubelet",
            "InPlacePodVerticalScalingInitContainers",
            USER_NAMESPACES_HOST_NETWORK,
        )
    )
)
_ACTION_RESTART_ALL_CONTAINERS = "RestartAllContainers"


def _restarts_all_containers(spec: Mapping[str, Any]) -> bool:
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if not isinstance(c, Mapping):
                continue
            for rule in c.get("restartPolicyRules") or []:
                if (
                    isinstance(rule, Mapping)
                    and rule.get("action") == _ACTION_RESTART_ALL_CONTAINERS
                ):
                    return True
    return False


def infer_for_pod_scheduling(pod: Pod) -> frozenset[str]:
    """Features the pod needs on its node (empty for almost every pod)."""
    cached = pod.cache.get(NAME)
    if cached is None:
        spec = pod.spec
        needs = set()
        if _restarts_all_containers(spec):
            needs.add(RESTART_ALL_CONTAINERS)
        if spec.get("hostNetwork") is True and spec.get("hostUsers") is False:
            needs.add(USER_NAMESPACES_HOST_NETWORK)
        cached = pod.cache[NAME] = frozenset(needs)
    return cached


def node_feature_set(declared: Sequence[str]) -> frozenset[str]:
    """The registered features among ``declared``, as upstream's ``TryMap``.

    ``TryMap`` walks both lists in sorted order (unknown names are ignored);
    a node publishes its list sorted, and an unsorted one is read the same
    way upstream reads it.
    """
    found = set()
    i = j = 0
    reg = REGISTERED_FEATURES
    while i < len(declared) and j < len(reg):
        if declared[i] == reg[j]:
            found.add(reg[j])
            i += 1
            j += 1
        elif declared[i] < reg[j]:
            i += 1
        else:
            j += 1
    return frozenset(found)


class _PreFilterState(StateData):
    __slots__ = ("reqs",)

    def __init__(self, reqs: frozenset[str]) -> None:
        self.reqs = reqs


class NodeDeclaredFeatures(BasePlugin):
    NAME = NAME
    # the node's declared features decide, not its pods (refilter_with_nominated_pods)
    filter_reads_no_pods = True

    __slots__ = ("enabled",)

    def __init__(self, enabled: bool = True) -> None:
        # the NodeDeclaredFeatures feature gate (beta, on by default in v1.36)
        self.enabled = enabled

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.SKIP)
        reqs = infer_for_pod_scheduling(pod)
        if not reqs:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(reqs))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, _PreFilterState):
            return Status(
                Code.ERROR,
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycle-state: not found',
                plugin=NAME,
            )
        if not s.reqs <= node_feature_set(node_info.node.declared_features):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSATISFIED_REQUIREMENTS)
        return None

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on the features the pod needs."""
        return [(FEATURES, sorted(infer_for_pod_scheduling(pod)))], None


PLUGIN = NodeDeclaredFeatures


def new(args: Mapping[str, Any], handle: Handle) -> NodeDeclaredFeatures:
    return NodeDeclaredFeatures()
