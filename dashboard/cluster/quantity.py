"""Kubernetes resource quantities as the integers the indexed columns hold.

Parsing is the engine's (``scheduler_engine.quantity``), so the mirror and the
scheduler never disagree on what ``"1.5Gi"`` means.
"""

from __future__ import annotations

from scheduler_engine.quantity import QuantityError, milli_value, parse_quantity, value

__all__ = ["GPU_RESOURCE_PREFIXES", "is_gpu_resource", "to_int", "to_milli"]

# Extended resources that are accelerators. Vendors name them differently;
# MIG slices and time-sliced shares count as GPUs for the pages' purposes.
GPU_RESOURCE_PREFIXES = (
    "nvidia.com/gpu",
    "nvidia.com/mig-",
    "amd.com/gpu",
    "gpu.intel.com/",
    "habana.ai/gaudi",
    "aws.amazon.com/neuron",
    "google.com/tpu",
)


def is_gpu_resource(name: str) -> bool:
    return name.startswith(GPU_RESOURCE_PREFIXES)


def _parse(raw: object):
    try:
        return parse_quantity(raw)
    except QuantityError as exc:
        raise ValueError(f"{raw!r}: {exc}") from None


def to_milli(raw: object) -> int:
    """Thousandths, rounded up (``Quantity.MilliValue``)."""
    return milli_value(_parse(raw))


def to_int(raw: object) -> int:
    """Whole units, rounded up (``Quantity.Value``)."""
    return value(_parse(raw))
