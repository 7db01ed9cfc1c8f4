"""Kubernetes resource quantities ("500m", "16Gi", "1e3") as integers.

The engine has its own exact arithmetic; the mirror only needs whole numbers
for indexed columns (milli-CPU, bytes, device counts).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

__all__ = ["GPU_RESOURCE_PREFIXES", "is_gpu_resource", "parse_quantity", "to_int", "to_milli"]

_SUFFIXES: dict[str, Decimal] = {
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
}

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


def parse_quantity(value: object) -> Decimal:
    """A quantity as a Decimal; raises ValueError naming the bad value."""
    if isinstance(value, bool):
        raise ValueError(f"not a quantity: {value!r}")
    if isinstance(value, int | float):
        return Decimal(str(value))
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"not a quantity: {value!r}")
    text = value.strip()
    for suffix in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
        if text.endswith(suffix):
            number, mult = text[: -len(suffix)], _SUFFIXES[suffix]
            break
    else:
        if text[-1] in "numkMGTPE" and not text[:-1].lower().endswith("e"):
            number, mult = text[:-1], _SUFFIXES[text[-1]]
        else:
            number, mult = text, Decimal(1)
    try:
        return Decimal(number) * mult
    except InvalidOperation:
        raise ValueError(f"not a quantity: {value!r}") from None


def to_milli(value: object) -> int:
    return int((parse_quantity(value) * 1000).to_integral_value(rounding="ROUND_CEILING"))


def to_int(value: object) -> int:
    return int(parse_quantity(value).to_integral_value(rounding="ROUND_CEILING"))
