"""The live mirror: informer threads list and watch, one writer stores in batches."""

from __future__ import annotations

from .runner import Mirror, tune_gc
from .shared import MirrorOptions

__all__ = ["Mirror", "MirrorOptions", "tune_gc"]
