"""Nodes parsed once into what the scheduler reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import FieldError, InputError
from .pod import parse_resource_list
from .resources import Resource
from .shapes import MAPPING
from .taints import Taint, parse_taints

__all__ = ["ImageState", "Node", "normalized_image_name", "parse_node"]

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
# kube-scheduler still reads the deprecated beta labels where the GA ones are missing
_ZONE_LABEL_BETA = "failure-domain.beta.kubernetes.io/zone"
_REGION_LABEL_BETA = "failure-domain.beta.kubernetes.io/region"


def normalized_image_name(name: str) -> str:
    """Upstream ImageLocality's normalization: a missing tag means ``:latest``."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


class ImageState:
    __slots__ = ("names", "size")

    def __init__(self, names: tuple[str, ...], size: int) -> None:
        self.names = names
        self.size = size


class Node:
    __slots__ = (
        "allocatable",
        "declared_features",
        "images",
        "labels",
        "name",
        "raw",
        "taints",
        "uid",
        "unschedulable",
        "zone_key",
    )

    raw: dict[str, Any]
    name: str
    uid: str
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    allocatable: Resource
    images: tuple[ImageState, ...]
    declared_features: tuple[str, ...]
    zone_key: str

    def __repr__(self) -> str:
        return f"Node({self.name})"


def parse_node(obj: Mapping[str, Any], *, source: str | None = None) -> Node:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), MAPPING) else {}
    name = meta.get("name")
    ref = f"Node {name}" if name else "Node <unnamed>"
    try:
        if not name:
            raise FieldError("metadata.name", "is required")
        spec = obj.get("spec") or {}
        status = obj.get("status") or {}
        if not isinstance(spec, MAPPING):
            raise FieldError("spec", "must be an object")
        if not isinstance(status, MAPPING):
            raise FieldError("status", "must be an object")
        n = Node.__new__(Node)
        n.raw = obj  # type: ignore[assignment]
        n.name = str(name)
        n.uid = str(meta.get("uid") or name)
        labels = meta.get("labels") or {}
        if not isinstance(labels, MAPPING):
            raise FieldError("metadata.labels", "must be a map of strings")
        n.labels = {str(k): str(v) for k, v in labels.items()}
        n.taints = parse_taints(spec.get("taints"), "spec.taints")
        n.unschedulable = bool(spec.get("unschedulable"))
        # A node that reports no allocatable falls back to capacity (kubelet sets both).
        alloc_raw = status.get("allocatable")
        field = "status.allocatable"
        if alloc_raw is None:
            alloc_raw, field = status.get("capacity"), "status.capacity"
        n.allocatable = Resource.from_list(parse_resource_list(alloc_raw, field))
        images = []
        for i, img in enumerate(status.get("images") or []):
            if not isinstance(img, MAPPING):
                raise FieldError(f"status.images[{i}]", "must be an object")
            images.append(
                ImageState(
                    tuple(str(x) for x in img.get("names") or []), int(img.get("sizeBytes") or 0)
                )
            )
        n.images = tuple(images)
        n.declared_features = tuple(str(f) for f in status.get("declaredFeatures") or [])
        region = n.labels.get(REGION_LABEL) or n.labels.get(_REGION_LABEL_BETA) or ""
        zone = n.labels.get(ZONE_LABEL) or n.labels.get(_ZONE_LABEL_BETA) or ""
        n.zone_key = f"{region}:\x00:{zone}" if region or zone else ""
        return n
    except FieldError as exc:
        raise InputError(exc.message, file=source, obj=ref, field=exc.field) from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"malformed node: {exc}", file=source, obj=ref) from None
