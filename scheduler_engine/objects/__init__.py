"""Kubernetes objects parsed into the compact types the engine works on."""

from __future__ import annotations

from .node import ImageState, Node, normalized_image_name, parse_node
from .pod import AffinityTerm, HostPort, Pod, WeightedAffinityTerm, parse_pod, parse_resource_list
from .resources import Resource, is_extended_resource_name, is_scalar_resource_name
from .selectors import LabelSelector, NodeSelector, NodeSelectorTerm, parse_label_selector
from .taints import Taint, Toleration, find_untolerated

__all__ = [
    "AffinityTerm",
    "HostPort",
    "ImageState",
    "LabelSelector",
    "Node",
    "NodeSelector",
    "NodeSelectorTerm",
    "Pod",
    "Resource",
    "Taint",
    "Toleration",
    "WeightedAffinityTerm",
    "find_untolerated",
    "is_extended_resource_name",
    "is_scalar_resource_name",
    "normalized_image_name",
    "parse_label_selector",
    "parse_node",
    "parse_pod",
    "parse_resource_list",
]
