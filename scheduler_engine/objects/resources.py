"""Resource amounts as the scheduler counts them (``framework.Resource``).

CPU is in millicores (``MilliValue``), everything else in units
(``Value``), both rounded up.  Scalar resources are the extended ones
(``nvidia.com/gpu``), hugepages, ``attachable-volumes-*`` and prefixed native
resources, exactly the names upstream's ``IsScalarResourceName`` accepts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..quantity import milli_value, value

__all__ = [
    "CPU",
    "EPHEMERAL_STORAGE",
    "MEMORY",
    "PODS",
    "Resource",
    "core_amounts",
    "is_extended_resource_name",
    "is_native_resource_name",
    "is_scalar_resource_name",
]

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

_QUALIFIED = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _is_qualified_name(name: str) -> bool:
    prefix, slash, local = name.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
        return False
    return 0 < len(local) <= 63 and bool(_QUALIFIED.match(local))


def _is_prefixed_native(name: str) -> bool:
    return "kubernetes.io/" in name


def is_native_resource_name(name: str) -> bool:
    """Upstream ``IsNativeResource``: no domain, or a ``kubernetes.io/`` one."""
    return "/" not in name or _is_prefixed_native(name)


def is_extended_resource_name(name: str) -> bool:
    if is_native_resource_name(name) or name.startswith("requests."):
        return False
    return _is_qualified_name("requests." + name)


def is_scalar_resource_name(name: str) -> bool:
    return (
        is_extended_resource_name(name)
        or name.startswith("hugepages-")
        or _is_prefixed_native(name)
        or name.startswith("attachable-volumes-")
    )


class Resource:
    """Mutable resource totals; pods' requests, nodes' allocatable and requested."""

    __slots__ = ("allowed_pod_number", "ephemeral_storage", "memory", "milli_cpu", "scalar")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalar: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar: dict[str, int] = scalar if scalar is not None else {}

    @classmethod
    def from_list(cls, resources: Mapping[str, Fraction]) -> Resource:
        """Upstream ``NewResource``: unknown non-scalar names are ignored."""
        r = cls()
        r.add_list(resources)
        return r

    def add_list(self, resources: Mapping[str, Fraction]) -> None:
        for name, q in resources.items():
            if name == CPU:
                self.milli_cpu += milli_value(q)
            elif name == MEMORY:
                self.memory += value(q)
            elif name == PODS:
                self.allowed_pod_number += value(q)
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += value(q)
            elif is_scalar_resource_name(name):
                self.scalar[name] = self.scalar.get(name, 0) + value(q)

    def add(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        self.allowed_pod_number += sign * other.allowed_pod_number
        for k, v in other.scalar.items():
            self.scalar[k] = self.scalar.get(k, 0) + sign * v

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar),
        )

    def get(self, name: str) -> int:
        """Amount of one resource by its Kubernetes name."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {CPU: self.milli_cpu, MEMORY: self.memory}
        if self.ephemeral_storage:
            out[EPHEMERAL_STORAGE] = self.ephemeral_storage
        if self.allowed_pod_number:
            out[PODS] = self.allowed_pod_number
        out.update({k: v for k, v in sorted(self.scalar.items())})
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return (
            self.milli_cpu == other.milli_cpu
            and self.memory == other.memory
            and self.ephemeral_storage == other.ephemeral_storage
            and self.allowed_pod_number == other.allowed_pod_number
            and {k: v for k, v in self.scalar.items() if v}
            == {k: v for k, v in other.scalar.items() if v}
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Resource({self.as_dict()})"


def core_amounts(req: Resource, used: Resource, alloc: Resource) -> list[tuple[str, int, int, int]]:
    """(name, requested, used, allocatable) of cpu (millicores), memory and ephemeral-storage."""
    return [
        (CPU, req.milli_cpu, used.milli_cpu, alloc.milli_cpu),
        (MEMORY, req.memory, used.memory, alloc.memory),
        (EPHEMERAL_STORAGE, req.ephemeral_storage, used.ephemeral_storage, alloc.ephemeral_storage),
    ]
