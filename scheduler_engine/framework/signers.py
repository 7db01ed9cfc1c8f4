"""Pod signatures for OpportunisticBatching (upstream ``kube-scheduler/framework/signers.go``
and ``frameworkImpl.SignPod``/``computeBatchablePlugins``).

Two pods with the same signature get the same feasibility and scores on the
same nodes. A plugin signs a pod with fragments (key → value) or refuses with
a status; the framework signs only when every PreFilter, Filter, PreScore and
Score plugin of the profile can sign. The rules are in ``docs/fidelity.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..gosort import go_sort_by_key
from ..objects import Pod
from .interfaces import RefusingSignPlugin, SignPlugin
from .status import Code, Status

__all__ = [
    "FEATURES",
    "HOST_PORTS",
    "IMAGE_NAMES",
    "LABELS",
    "NODE_AFFINITY",
    "NODE_NAME",
    "NODE_SELECTOR",
    "RESOURCES",
    "SCHEDULER_NAME",
    "TOLERATIONS",
    "VOLUMES",
    "Fragments",
    "SignedByVolumes",
    "batchable_plugins",
    "host_ports_signer",
    "node_affinity_signer",
    "resources_signer",
    "sign_pod",
    "tolerations_signer",
    "unsignable",
    "volumes_signer",
]

# fragment keys (upstream's signer names)
IMAGE_NAMES = "v1.Pod.Spec.CanonicalImageNames()"
LABELS = "v1.Pod.Labels"
NODE_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS = "v1.Pod.Spec.HostPorts()"
RESOURCES = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS = "v1.Pod.Spec.Tolerations"
VOLUMES = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES = "v1.Pod.Spec.RequiredFeatures()"

# what a plugin's sign_pod answers: its fragments, or a status refusing the pod
Fragments = list[tuple[str, Any]]


def unsignable(reason: str) -> tuple[Fragments, Status]:
    """A plugin's refusal to sign the pod."""
    return [], Status(Code.UNSCHEDULABLE, reason)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def host_ports_signer(pod: Pod) -> list[int]:
    """The sorted set of non-zero host ports of the containers and init containers."""
    spec = pod.spec
    ports: set[int] = set()
    for c in [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]:
        for p in c.get("ports") or ():
            hp = int(p.get("hostPort") or 0)
            if hp != 0:
                ports.add(hp)
    return sorted(ports)


def _requirements(reqs: Iterable[Mapping[str, Any]] | None) -> list[str]:
    out = []
    for r in reqs or ():
        t = dict(r)
        if t.get("values") is not None:
            t["values"] = sorted(t["values"])
        out.append(_canonical(t))
    return sorted(out)


def _term(t: Mapping[str, Any] | None) -> dict[str, list[str]]:
    t = t or {}
    return {
        "MatchExpressions": _requirements(t.get("matchExpressions")),
        "MatchFields": _requirements(t.get("matchFields")),
    }


def node_affinity_signer(pod: Pod) -> Any:
    """Required and preferred node affinity, each requirement, term and list sorted."""
    na = (pod.spec.get("affinity") or {}).get("nodeAffinity")
    if na is None:
        return None
    pref = sorted(
        _canonical({"Weight": int(t.get("weight") or 0), "Preference": _term(t.get("preference"))})
        for t in na.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
    )
    required = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    req = sorted(_canonical(_term(t)) for t in required.get("nodeSelectorTerms") or ())
    return {"Required": req, "Preferred": pref}


def tolerations_signer(pod: Pod) -> list[Any]:
    """The tolerations ordered by key, then value, as upstream's ``sort.Slice`` leaves them."""
    out = list(pod.spec.get("tolerations") or ())
    go_sort_by_key(out, lambda t: (str(t.get("key") or ""), str(t.get("value") or "")))
    return out


def volumes_signer(pod: Pod) -> list[str]:
    """Every volume source but configMap and secret (names left out), sorted."""
    out = []
    for v in pod.spec.get("volumes") or ():
        if v.get("configMap") is not None or v.get("secret") is not None:
            continue
        out.append(_canonical({k: x for k, x in v.items() if k != "name"}))
    return sorted(out)


class SignedByVolumes:
    """SignPod of the volume plugins (VolumeBinding, VolumeRestrictions, VolumeZone,
    NodeVolumeLimits): their answers depend on the pod's volumes, configMap and
    secret ones aside (upstream's ``VolumesSigner``)."""

    __slots__ = ()

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        return [(VOLUMES, volumes_signer(pod))], None


def resources_signer(pod: Pod) -> dict[str, Any]:
    """The pod's request (containers, init containers, overhead, pod-level resources)."""
    r = pod.requests
    return {
        "MilliCPU": r.milli_cpu,
        "Memory": r.memory,
        "EphemeralStorage": r.ephemeral_storage,
        "AllowedPodNumber": r.allowed_pod_number,
        "ScalarResources": dict(r.scalar),
    }


def batchable_plugins(
    points: Sequence[Sequence[tuple[str, Any]]],
) -> list[tuple[str, SignPlugin]] | None:
    """The profile's signers (upstream ``computeBatchablePlugins``), each plugin once.

    ``points``: the PreFilter, Filter, PreScore and Score plugins. None when one of
    them cannot sign, or refuses every pod: the profile then signs no pod.
    """
    seen: dict[str, SignPlugin] = {}
    for plugins in points:
        for name, pl in plugins:
            if name in seen:
                continue
            if not isinstance(pl, SignPlugin):
                return None
            if isinstance(pl, RefusingSignPlugin) and pl.refuses_every_pod:
                return None
            seen[name] = pl
    return list(seen.items())


def sign_pod(signers: Sequence[tuple[str, SignPlugin]] | None, pod: Pod) -> str | None:
    """The pod's signature under a profile's signers, or None when it is unsignable."""
    if signers is None:
        return None
    sig: dict[str, Any] = {SCHEDULER_NAME: pod.scheduler_name}
    for _, pl in signers:
        fragments, status = pl.sign_pod(pod)
        if status is not None and status.code != Code.SUCCESS:
            return None
        for key, value in fragments:
            sig[key] = value
    return _canonical(sig)
