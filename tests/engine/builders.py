"""Fluent builders for Kubernetes objects in engine tests.

    make_pod("p").ns("x").req(cpu="2", memory="1Gi").gpu(8).priority(10).obj()
    make_node("n").cap(cpu="4", memory="32Gi", pods=110, gpu=8).zone("a").obj()

Each builder returns a plain dict shaped as the API server returns it; use
``.pod()`` / ``.node()`` for the parsed engine object.
"""

from __future__ import annotations

import copy
from typing import Any

from scheduler_engine.objects import Node, Pod, parse_node, parse_pod

__all__ = [
    "GPU",
    "NodeBuilder",
    "PodBuilder",
    "cluster_objects",
    "make_node",
    "make_pdb",
    "make_pod",
]

GPU = "nvidia.com/gpu"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
HOSTNAME_LABEL = "kubernetes.io/hostname"


def _q(v: Any) -> str:
    return str(v)


class PodBuilder:
    def __init__(self, name: str) -> None:
        self._o: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {}}]},
        }

    # -- metadata ------------------------------------------------------------
    def ns(self, namespace: str) -> PodBuilder:
        self._o["metadata"]["namespace"] = namespace
        return self

    def uid(self, uid: str) -> PodBuilder:
        self._o["metadata"]["uid"] = uid
        return self

    def labels(self, labels: dict[str, str] | None = None, **kw: str) -> PodBuilder:
        self._o["metadata"].setdefault("labels", {}).update({**(labels or {}), **kw})
        return self

    def created(self, ts: str) -> PodBuilder:
        """creationTimestamp (RFC 3339), e.g. "2024-01-01T00:00:01Z"."""
        self._o["metadata"]["creationTimestamp"] = ts
        return self

    def owner(self, kind: str, name: str, uid: str | None = None) -> PodBuilder:
        self._o["metadata"].setdefault("ownerReferences", []).append(
            {
                "apiVersion": "apps/v1",
                "kind": kind,
                "name": name,
                "uid": uid or f"uid-{name}",
                "controller": True,
            }
        )
        return self

    def terminating(self) -> PodBuilder:
        self._o["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
        return self

    # -- spec ----------------------------------------------------------------
    @property
    def _spec(self) -> dict[str, Any]:
        return self._o["spec"]

    def _c0(self) -> dict[str, Any]:
        return self._spec["containers"][0]

    def req(self, **resources: Any) -> PodBuilder:
        """Requests of the first container; ``ephemeral_storage`` → ``ephemeral-storage``."""
        reqs = self._c0()["resources"].setdefault("requests", {})
        for k, v in resources.items():
            reqs[k.replace("_", "-")] = _q(v)
        return self

    def res(self, name: str, quantity: Any) -> PodBuilder:
        """Any named resource request (extended resources, hugepages-2Mi, ...)."""
        self._c0()["resources"].setdefault("requests", {})[name] = _q(quantity)
        return self

    def limits(self, **resources: Any) -> PodBuilder:
        lim = self._c0()["resources"].setdefault("limits", {})
        for k, v in resources.items():
            lim[k.replace("_", "-")] = _q(v)
        return self

    def gpu(self, n: int, resource: str = GPU) -> PodBuilder:
        c = self._c0()["resources"]
        c.setdefault("requests", {})[resource] = str(n)
        c.setdefault("limits", {})[resource] = str(n)
        return self

    def container(self, name: str, image: str = "busybox", **requests: Any) -> PodBuilder:
        c: dict[str, Any] = {"name": name, "image": image, "resources": {}}
        if requests:
            c["resources"]["requests"] = {k.replace("_", "-"): _q(v) for k, v in requests.items()}
        self._spec["containers"].append(c)
        return self

    def init_container(self, name: str, sidecar: bool = False, **requests: Any) -> PodBuilder:
        c: dict[str, Any] = {"name": name, "image": "busybox", "resources": {}}
        if requests:
            c["resources"]["requests"] = {k.replace("_", "-"): _q(v) for k, v in requests.items()}
        if sidecar:
            c["restartPolicy"] = "Always"
        self._spec.setdefault("initContainers", []).append(c)
        return self

    def image(self, image: str) -> PodBuilder:
        self._c0()["image"] = image
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> PodBuilder:
        p: dict[str, Any] = {"containerPort": port, "hostPort": port, "protocol": protocol}
        if host_ip:
            p["hostIP"] = host_ip
        self._c0().setdefault("ports", []).append(p)
        return self

    def priority(self, value: int) -> PodBuilder:
        self._spec["priority"] = value
        return self

    def priority_class(self, name: str) -> PodBuilder:
        self._spec["priorityClassName"] = name
        return self

    def preemption_policy(self, policy: str) -> PodBuilder:
        self._spec["preemptionPolicy"] = policy
        return self

    def scheduler(self, name: str) -> PodBuilder:
        self._spec["schedulerName"] = name
        return self

    def node(self, node_name: str) -> PodBuilder:
        """Bind the pod (spec.nodeName): a running pod."""
        self._spec["nodeName"] = node_name
        self._o.setdefault("status", {})["phase"] = "Running"
        return self

    def nominated(self, node_name: str) -> PodBuilder:
        self._o.setdefault("status", {})["nominatedNodeName"] = node_name
        return self

    def phase(self, phase: str) -> PodBuilder:
        self._o.setdefault("status", {})["phase"] = phase
        return self

    def node_selector(self, sel: dict[str, str] | None = None, **kw: str) -> PodBuilder:
        self._spec.setdefault("nodeSelector", {}).update({**(sel or {}), **kw})
        return self

    def toleration(
        self,
        key: str = "",
        value: str = "",
        effect: str = "",
        operator: str | None = None,
        seconds: int | None = None,
    ) -> PodBuilder:
        t: dict[str, Any] = {}
        if key:
            t["key"] = key
        t["operator"] = operator or ("Equal" if value else "Exists")
        if value:
            t["value"] = value
        if effect:
            t["effect"] = effect
        if seconds is not None:
            t["tolerationSeconds"] = seconds
        self._spec.setdefault("tolerations", []).append(t)
        return self

    def _node_affinity(self) -> dict[str, Any]:
        return self._spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})

    def node_affinity_in(self, key: str, *values: str) -> PodBuilder:
        """A required node-affinity term ``key In values`` (a new ORed term)."""
        return self.node_affinity_term({"key": key, "operator": "In", "values": list(values)})

    def node_affinity_not_in(self, key: str, *values: str) -> PodBuilder:
        return self.node_affinity_term({"key": key, "operator": "NotIn", "values": list(values)})

    def node_affinity_term(
        self, *expressions: dict[str, Any], fields: list[dict[str, Any]] | None = None
    ) -> PodBuilder:
        req = self._node_affinity().setdefault(
            "requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": []}
        )
        term: dict[str, Any] = {}
        if expressions:
            term["matchExpressions"] = list(expressions)
        if fields:
            term["matchFields"] = fields
        req["nodeSelectorTerms"].append(term)
        return self

    def node_name_affinity(self, *names: str) -> PodBuilder:
        """Pin via ``matchFields metadata.name In names`` (as DaemonSets do)."""
        return self.node_affinity_term(
            fields=[{"key": "metadata.name", "operator": "In", "values": list(names)}]
        )

    def preferred_node_affinity(self, weight: int, key: str, *values: str) -> PodBuilder:
        self._node_affinity().setdefault(
            "preferredDuringSchedulingIgnoredDuringExecution", []
        ).append(
            {
                "weight": weight,
                "preference": {
                    "matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]
                },
            }
        )
        return self

    def _pod_aff(self, kind: str) -> dict[str, Any]:
        return self._spec.setdefault("affinity", {}).setdefault(kind, {})

    @staticmethod
    def _term(labels: dict[str, str], topology_key: str, **extra: Any) -> dict[str, Any]:
        return {
            "labelSelector": {"matchLabels": dict(labels)},
            "topologyKey": topology_key,
            **extra,
        }

    def pod_affinity(
        self, labels: dict[str, str], topology_key: str = HOSTNAME_LABEL, **extra: Any
    ) -> PodBuilder:
        self._pod_aff("podAffinity").setdefault(
            "requiredDuringSchedulingIgnoredDuringExecution", []
        ).append(self._term(labels, topology_key, **extra))
        return self

    def pod_anti_affinity(
        self, labels: dict[str, str], topology_key: str = HOSTNAME_LABEL, **extra: Any
    ) -> PodBuilder:
        self._pod_aff("podAntiAffinity").setdefault(
            "requiredDuringSchedulingIgnoredDuringExecution", []
        ).append(self._term(labels, topology_key, **extra))
        return self

    def preferred_pod_affinity(
        self, weight: int, labels: dict[str, str], topology_key: str = HOSTNAME_LABEL
    ) -> PodBuilder:
        self._pod_aff("podAffinity").setdefault(
            "preferredDuringSchedulingIgnoredDuringExecution", []
        ).append({"weight": weight, "podAffinityTerm": self._term(labels, topology_key)})
        return self

    def preferred_pod_anti_affinity(
        self, weight: int, labels: dict[str, str], topology_key: str = HOSTNAME_LABEL
    ) -> PodBuilder:
        self._pod_aff("podAntiAffinity").setdefault(
            "preferredDuringSchedulingIgnoredDuringExecution", []
        ).append({"weight": weight, "podAffinityTerm": self._term(labels, topology_key)})
        return self

    def spread(
        self,
        max_skew: int,
        topology_key: str,
        labels: dict[str, str],
        when_unsatisfiable: str = "DoNotSchedule",
        **extra: Any,
    ) -> PodBuilder:
        self._spec.setdefault("topologySpreadConstraints", []).append(
            {
                "maxSkew": max_skew,
                "topologyKey": topology_key,
                "whenUnsatisfiable": when_unsatisfiable,
                "labelSelector": {"matchLabels": dict(labels)},
                **extra,
            }
        )
        return self

    def gate(self, name: str) -> PodBuilder:
        self._spec.setdefault("schedulingGates", []).append({"name": name})
        return self

    def pvc(self, claim: str, volume: str | None = None) -> PodBuilder:
        self._spec.setdefault("volumes", []).append(
            {"name": volume or claim, "persistentVolumeClaim": {"claimName": claim}}
        )
        return self

    def resource_claim(self, name: str, template: str | None = None) -> PodBuilder:
        rc: dict[str, Any] = {"name": name}
        if template:
            rc["resourceClaimTemplateName"] = template
        else:
            rc["resourceClaimName"] = name
        self._spec.setdefault("resourceClaims", []).append(rc)
        return self

    def set(self, path: str, value: Any) -> PodBuilder:
        """Escape hatch: set a dotted path, e.g. ``set("spec.overhead", {...})``."""
        _set_path(self._o, path, value)
        return self

    # -- results -------------------------------------------------------------
    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._o)

    def pod(self, priority_classes: dict[str, Any] | None = None) -> Pod:
        return parse_pod(self.obj(), priority_classes or {})


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._o: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "labels": {HOSTNAME_LABEL: name}},
            "spec": {},
            "status": {"capacity": {}, "allocatable": {}},
        }

    def cap(
        self,
        cpu: Any = None,
        memory: Any = None,
        pods: Any = 110,
        gpu: Any = None,
        ephemeral_storage: Any = None,
        **extra: Any,
    ) -> NodeBuilder:
        """Capacity and allocatable (the same); ``extra`` keys are resource names."""
        vals: dict[str, Any] = {}
        if cpu is not None:
            vals["cpu"] = cpu
        if memory is not None:
            vals["memory"] = memory
        if pods is not None:
            vals["pods"] = pods
        if gpu is not None:
            vals[GPU] = gpu
        if ephemeral_storage is not None:
            vals["ephemeral-storage"] = ephemeral_storage
        vals.update(extra)
        for k, v in vals.items():
            self._o["status"]["capacity"][k] = _q(v)
            self._o["status"]["allocatable"][k] = _q(v)
        return self

    def alloc(self, name: str, quantity: Any) -> NodeBuilder:
        """Allocatable of one resource (capacity unchanged)."""
        self._o["status"]["allocatable"][name] = _q(quantity)
        return self

    def labels(self, labels: dict[str, str] | None = None, **kw: str) -> NodeBuilder:
        self._o["metadata"]["labels"].update({**(labels or {}), **kw})
        return self

    def zone(self, zone: str, region: str | None = None) -> NodeBuilder:
        self._o["metadata"]["labels"][ZONE_LABEL] = zone
        if region is not None:
            self._o["metadata"]["labels"][REGION_LABEL] = region
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        t: dict[str, Any] = {"key": key, "effect": effect}
        if value:
            t["value"] = value
        self._o["spec"].setdefault("taints", []).append(t)
        return self

    def unschedulable(self, flag: bool = True) -> NodeBuilder:
        self._o["spec"]["unschedulable"] = flag
        return self

    def image(self, name: str, size: int) -> NodeBuilder:
        self._o["status"].setdefault("images", []).append({"names": [name], "sizeBytes": size})
        return self

    def set(self, path: str, value: Any) -> NodeBuilder:
        _set_path(self._o, path, value)
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self._o)

    def node(self) -> Node:
        return parse_node(self.obj())


def _set_path(obj: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    cur = obj
    for p in parts[:-1]:
        cur = cur.setdefault(p, {})
    cur[parts[-1]] = value


def make_pod(name: str) -> PodBuilder:
    return PodBuilder(name)


def make_node(name: str) -> NodeBuilder:
    return NodeBuilder(name)


def cluster_objects(*builders: Any) -> list[dict[str, Any]]:
    """Objects of builders (or dicts) in order: ``build_cluster(cluster_objects(...))``."""
    return [b.obj() if hasattr(b, "obj") else b for b in builders]


def make_pdb(
    name: str, labels: dict[str, str], allowed: int, namespace: str = "default"
) -> dict[str, Any]:
    """A policy/v1 PodDisruptionBudget selecting ``labels`` that allows ``allowed`` disruptions."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"matchLabels": labels}},
        "status": {"disruptionsAllowed": allowed},
    }
