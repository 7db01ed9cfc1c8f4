"""Random but realistic cluster snapshots for the engine's self-consistency tests.

``random_cluster(rng)`` returns a list of Kubernetes objects (plain dicts, as
the API server returns them): 1–40 nodes over 1–3 zones with CPU, memory, pod
and GPU allocatable, taints and cordons; running pods that fit their nodes
(requests, priorities, labels, some with anti-affinity or spread); pending
pods with requests, tolerations, node selectors and node affinity (including
``matchFields`` pins), pod (anti-)affinity, topology spread, host ports,
priorities, ``preemptionPolicy``; PriorityClasses, Namespaces and PDBs.

Quantities are written in a few fixed forms (``250m``/``2`` for CPU,
``512Mi``/``4Gi`` for memory) so the tests can re-check results with simple
reference code (:func:`cpu_milli`, :func:`mem_bytes`).

Everything is drawn from the ``random.Random`` passed in, so a seed
reproduces a snapshot exactly.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = [
    "APPS",
    "GPU",
    "HOSTNAME",
    "ZONE",
    "cpu_milli",
    "mem_bytes",
    "pod_requests",
    "random_cluster",
]

GPU = "nvidia.com/gpu"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
APPS = ("web", "db", "cache", "batch", "train")
NAMESPACES = {
    "default": {},
    "team-a": {"team": "a", "env": "prod"},
    "team-b": {"team": "b", "env": "dev"},
}
TAINT_KEYS = ("dedicated", "nvidia.com/gpu", "spot", "maintenance")
TAINT_VALUES = ("", "gpu", "infra", "true")
EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
PRIORITY_CLASSES = {
    "low": (100, "PreemptLowerPriority"),
    "normal": (1000, "PreemptLowerPriority"),
    "high": (100000, "PreemptLowerPriority"),
    "high-nonpreempting": (100000, "Never"),
}


# -- quantities (only the forms this module writes) --------------------------------
def cpu_milli(q: str) -> int:
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000


def mem_bytes(q: str) -> int:
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    for u, mult in units.items():
        if q.endswith(u):
            return int(q[: -len(u)]) * mult
    return int(q)


def _parse(name: str, q: str) -> int:
    if name == "cpu":
        return cpu_milli(q)
    if name in ("memory", "ephemeral-storage"):
        return mem_bytes(q)
    return int(q)


def pod_requests(obj: dict[str, Any]) -> dict[str, int]:
    """Effective requests of a generated pod.

    App containers and restartable (sidecar) init containers add up; a regular
    init container counts with the sidecars started before it, and the pod
    requests the larger of the two.
    """
    total: dict[str, int] = {}
    spec = obj["spec"]

    def reqs(c: dict[str, Any]) -> dict[str, int]:
        return {
            k: _parse(k, v) for k, v in ((c.get("resources") or {}).get("requests") or {}).items()
        }

    for c in spec.get("containers", []):
        for k, v in reqs(c).items():
            total[k] = total.get(k, 0) + v
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in spec.get("initContainers", []):
        r = reqs(c)
        if c.get("restartPolicy") == "Always":
            for k, v in r.items():
                sidecars[k] = sidecars.get(k, 0) + v
        else:
            for k, v in r.items():
                init_max[k] = max(init_max.get(k, 0), v + sidecars.get(k, 0))
    for k, v in sidecars.items():
        total[k] = total.get(k, 0) + v
    for k, v in init_max.items():
        total[k] = max(total.get(k, 0), v)
    return total


# -- objects ---------------------------------------------------------------------
def _ts(i: int) -> str:
    return f"2024-01-01T{i // 3600:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z"


def _cpu(rng: random.Random, choices: tuple[int, ...]) -> str:
    m = rng.choice(choices)
    return f"{m // 1000}" if m % 1000 == 0 and rng.random() < 0.7 else f"{m}m"


def _mem(rng: random.Random, mib_choices: tuple[int, ...]) -> str:
    mib = rng.choice(mib_choices)
    return f"{mib // 1024}Gi" if mib % 1024 == 0 and rng.random() < 0.7 else f"{mib}Mi"


def _node(rng: random.Random, i: int, zones: list[str]) -> dict[str, Any]:
    name = f"node-{i:03d}"
    labels: dict[str, str] = {HOSTNAME: name}
    if rng.random() < 0.95:
        labels[ZONE] = rng.choice(zones)
    gpu = rng.random() < 0.25
    labels["pool"] = "gpu" if gpu else rng.choice(("general", "general", "infra"))
    if rng.random() < 0.5:
        labels["disktype"] = rng.choice(("ssd", "hdd"))
    if rng.random() < 0.5:
        labels["tier"] = str(rng.randint(1, 4))
    alloc = {
        "cpu": _cpu(rng, (1000, 2000, 3500, 4000, 8000, 16000, 32000)),
        "memory": _mem(rng, (2048, 4096, 7680, 16384, 32768, 65536)),
        "pods": str(rng.choice((3, 5, 10, 32, 110))),
        "ephemeral-storage": "100Gi",
    }
    if gpu:
        alloc[GPU] = str(rng.choice((1, 2, 4, 8)))
    spec: dict[str, Any] = {}
    taints = []
    if gpu and rng.random() < 0.6:
        taints.append({"key": GPU, "value": "present", "effect": "NoSchedule"})
    for _ in range(rng.choice((0, 0, 0, 1, 1, 2))):
        t = {"key": rng.choice(TAINT_KEYS), "effect": rng.choice(EFFECTS)}
        v = rng.choice(TAINT_VALUES)
        if v:
            t["value"] = v
        if all((x["key"], x["effect"]) != (t["key"], t["effect"]) for x in taints):
            taints.append(t)
    if taints:
        spec["taints"] = taints
    if rng.random() < 0.1:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-{name}", "labels": labels},
        "spec": spec,
        "status": {"capacity": dict(alloc), "allocatable": alloc},
    }


def _selector(rng: random.Random, app: str) -> dict[str, Any]:
    if rng.random() < 0.7:
        return {"matchLabels": {"app": app}}
    return {"matchExpressions": [{"key": "app", "operator": "In", "values": [app]}]}


def _affinity_term(rng: random.Random, app: str) -> dict[str, Any]:
    term: dict[str, Any] = {
        "labelSelector": _selector(rng, app),
        "topologyKey": rng.choice((HOSTNAME, HOSTNAME, ZONE)),
    }
    r = rng.random()
    if r < 0.15:
        term["namespaceSelector"] = {}
    elif r < 0.3:
        term["namespaces"] = rng.sample(sorted(NAMESPACES), rng.randint(1, 2))
    return term


def _pod(
    rng: random.Random,
    name: str,
    ns: str,
    created: int,
    *,
    pending: bool,
    nodes: list[dict[str, Any]],
) -> dict[str, Any]:
    app = rng.choice(APPS)
    labels = {"app": app}
    if rng.random() < 0.3:
        labels["track"] = rng.choice(("stable", "canary"))
    reqs: dict[str, str] = {}
    if rng.random() < 0.9:
        reqs["cpu"] = _cpu(rng, (50, 100, 250, 500, 1000, 1500, 2000, 4000, 6000))
    if rng.random() < 0.85:
        reqs["memory"] = _mem(rng, (64, 128, 256, 512, 1024, 2048, 4096, 8192))
    container: dict[str, Any] = {"name": "main", "image": f"registry/{app}:1", "resources": {}}
    if reqs:
        container["resources"]["requests"] = reqs
    if rng.random() < 0.15:
        n = str(rng.choice((1, 1, 2, 4, 8)))
        container["resources"].setdefault("requests", {})[GPU] = n
        container["resources"]["limits"] = {GPU: n}
    containers = [container]
    if rng.random() < 0.2:
        containers.append(
            {
                "name": "sidecar",
                "image": "registry/proxy:1",
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            }
        )
    spec: dict[str, Any] = {"containers": containers}
    if rng.random() < 0.1:
        # an init container bigger than the app containers, or a restartable sidecar
        init: dict[str, Any] = {
            "name": "init",
            "image": "registry/init:1",
            "resources": {"requests": {"cpu": _cpu(rng, (100, 500, 3000))}},
        }
        if rng.random() < 0.5:
            init["restartPolicy"] = "Always"
        spec["initContainers"] = [init]
    if rng.random() < 0.1:
        container["resources"].setdefault("requests", {})["ephemeral-storage"] = _mem(
            rng, (1024, 10240, 51200)
        )
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "uid": f"uid-{ns}-{name}",
        "labels": labels,
        "creationTimestamp": _ts(created),
    }
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    r = rng.random()
    if r < 0.3:
        pc = rng.choice(sorted(PRIORITY_CLASSES))
        spec["priorityClassName"] = pc
    elif r < 0.8:
        spec["priority"] = rng.choice((0, 0, 10, 100, 1000, 5000))
    if pending and "priorityClassName" not in spec and rng.random() < 0.1:
        spec["preemptionPolicy"] = "Never"

    affinity: dict[str, Any] = {}
    if rng.random() < (0.2 if pending else 0.1):
        terms = [_affinity_term(rng, rng.choice(APPS))]
        affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": terms}
    if rng.random() < 0.15:
        affinity.setdefault("podAntiAffinity", {})[
            "preferredDuringSchedulingIgnoredDuringExecution"
        ] = [{"weight": rng.randint(1, 100), "podAffinityTerm": _affinity_term(rng, app)}]
    if rng.random() < 0.1:
        affinity.setdefault("podAffinity", {})[
            "preferredDuringSchedulingIgnoredDuringExecution"
        ] = [
            {
                "weight": rng.randint(1, 100),
                "podAffinityTerm": _affinity_term(rng, rng.choice(APPS)),
            }
        ]
    if rng.random() < (0.2 if pending else 0.1):
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": rng.choice((1, 1, 2)),
                "topologyKey": rng.choice((ZONE, HOSTNAME)),
                "whenUnsatisfiable": rng.choice(("DoNotSchedule", "ScheduleAnyway")),
                "labelSelector": {"matchLabels": {"app": app}},
            }
        ]
        if rng.random() < 0.2:
            spec["topologySpreadConstraints"][0]["minDomains"] = rng.randint(1, 4)
            spec["topologySpreadConstraints"][0]["whenUnsatisfiable"] = "DoNotSchedule"

    if pending:
        if rng.random() < 0.1:
            affinity.setdefault("podAffinity", {})[
                "requiredDuringSchedulingIgnoredDuringExecution"
            ] = [_affinity_term(rng, rng.choice(APPS))]
        tols = []
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
            t: dict[str, Any] = {}
            kind = rng.random()
            if kind < 0.05:
                t["operator"] = "Exists"  # tolerates everything
            else:
                t["key"] = rng.choice((*TAINT_KEYS, "node.kubernetes.io/unschedulable"))
                v = rng.choice(TAINT_VALUES + ("present",))
                if v and rng.random() < 0.7:
                    t["operator"] = "Equal"
                    t["value"] = v
                else:
                    t["operator"] = "Exists"
            if rng.random() < 0.6:
                t["effect"] = rng.choice(EFFECTS)
                if t["effect"] == "NoExecute" and rng.random() < 0.3:
                    t["tolerationSeconds"] = 300
            tols.append(t)
        if tols:
            spec["tolerations"] = tols
        if rng.random() < 0.15:
            spec["nodeSelector"] = rng.choice(
                ({"pool": "gpu"}, {"disktype": "ssd"}, {"pool": "general"}, {"tier": "2"})
            )
        r = rng.random()
        if r < 0.1 and nodes:
            # the API allows exactly one value for a metadata.name field selector
            pick = rng.choice(nodes)["metadata"]["name"]
            affinity.setdefault("nodeAffinity", {})[
                "requiredDuringSchedulingIgnoredDuringExecution"
            ] = {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {
                                "key": "metadata.name",
                                "operator": rng.choice(("In", "In", "NotIn")),
                                "values": [pick],
                            }
                        ]
                    }
                ]
            }
        elif r < 0.3:
            affinity.setdefault("nodeAffinity", {})[
                "requiredDuringSchedulingIgnoredDuringExecution"
            ] = {"nodeSelectorTerms": [_node_term(rng) for _ in range(rng.randint(1, 2))]}
        if rng.random() < 0.2:
            affinity.setdefault("nodeAffinity", {})[
                "preferredDuringSchedulingIgnoredDuringExecution"
            ] = [{"weight": rng.randint(1, 100), "preference": _node_term(rng)}]
        if rng.random() < 0.1:
            port = rng.choice((8080, 8443, 9100))
            proto = rng.choice(("TCP", "TCP", "UDP"))
            container["ports"] = [{"containerPort": port, "hostPort": port, "protocol": proto}]
    if affinity:
        spec["affinity"] = affinity
    return obj


def _node_term(rng: random.Random) -> dict[str, Any]:
    exprs = []
    for _ in range(rng.randint(1, 2)):
        op = rng.choice(("In", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))
        if op in ("Gt", "Lt"):
            exprs.append({"key": "tier", "operator": op, "values": [str(rng.randint(0, 4))]})
        elif op in ("Exists", "DoesNotExist"):
            exprs.append({"key": rng.choice(("disktype", "tier", ZONE)), "operator": op})
        else:
            key, vals = rng.choice(
                (
                    ("pool", ("gpu", "general", "infra")),
                    ("disktype", ("ssd", "hdd")),
                    (ZONE, ("zone-a", "zone-b", "zone-c")),
                )
            )
            exprs.append(
                {"key": key, "operator": op, "values": rng.sample(vals, rng.randint(1, 2))}
            )
    return {"matchExpressions": exprs}


def _fits(node: dict[str, Any], used: dict[str, int], reqs: dict[str, int]) -> bool:
    alloc = node["status"]["allocatable"]
    if used.get("pods", 0) + 1 > int(alloc["pods"]):
        return False
    for k, v in reqs.items():
        if v and used.get(k, 0) + v > _parse(k, alloc.get(k, "0")):
            return False
    return True


def random_cluster(
    rng: random.Random,
    *,
    max_nodes: int = 40,
    max_running: int = 60,
    max_pending: int = 25,
    min_nodes: int = 1,
) -> list[dict[str, Any]]:
    """A snapshot (list of objects) drawn from ``rng``; see the module docstring."""
    zones = [f"zone-{z}" for z in "abc"[: rng.randint(1, 3)]]
    nodes = [_node(rng, i, zones) for i in range(rng.randint(min_nodes, max_nodes))]
    objs: list[dict[str, Any]] = []
    for name, (value, policy) in PRIORITY_CLASSES.items():
        objs.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
                "preemptionPolicy": policy,
            }
        )
    for ns, labels in NAMESPACES.items():
        objs.append(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": labels}}
        )
    objs += nodes
    used: dict[str, dict[str, int]] = {n["metadata"]["name"]: {} for n in nodes}
    t = 0
    for i in range(rng.randint(0, max_running)):
        ns = rng.choice(sorted(NAMESPACES))
        pod = _pod(rng, f"run-{i:02d}", ns, t, pending=False, nodes=nodes)
        t += rng.choice((1, 1, 2, 30))
        reqs = pod_requests(pod)
        node = rng.choice(nodes)
        if not _fits(node, used[node["metadata"]["name"]], reqs):
            continue
        u = used[node["metadata"]["name"]]
        u["pods"] = u.get("pods", 0) + 1
        for k, v in reqs.items():
            u[k] = u.get(k, 0) + v
        pod["spec"]["nodeName"] = node["metadata"]["name"]
        pod["status"] = {"phase": "Running", "startTime": _ts(t)}
        objs.append(pod)
    t += 100
    for i in range(rng.randint(1, max_pending)):
        ns = rng.choice(sorted(NAMESPACES))
        # equal timestamps happen: the queue then keeps arrival order
        t += rng.choice((0, 1, 1, 5))
        pod = _pod(rng, f"pend-{i:02d}", ns, t, pending=True, nodes=nodes)
        if rng.random() < 0.05:
            # a pod an earlier scheduler cycle nominated (maybe to a node that is gone)
            name = rng.choice(nodes)["metadata"]["name"] if rng.random() < 0.8 else "gone"
            pod["status"] = {"phase": "Pending", "nominatedNodeName": name}
        objs.append(pod)
    for j in range(rng.choice((0, 1, 2, 3))):
        ns = rng.choice(sorted(NAMESPACES))
        objs.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"pdb-{j}", "namespace": ns},
                "spec": {"selector": {"matchLabels": {"app": rng.choice(APPS)}}},
                "status": {"disruptionsAllowed": rng.choice((0, 0, 1, 2))},
            }
        )
    return objs
