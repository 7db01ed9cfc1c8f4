"""Exponential backoff with full jitter, as client-go uses against a struggling API server."""

from __future__ import annotations

import random

__all__ = ["Backoff"]


class Backoff:
    def __init__(self, base: float, cap: float, rng: random.Random | None = None) -> None:
        self.base, self.cap = base, cap
        self.attempt = 0
        self._rng = rng or random.Random()

    def next(self) -> float:
        """Seconds to wait before the next attempt: uniform in [0, min(cap, base*2^n)]."""
        ceiling = min(self.cap, self.base * (2**self.attempt))
        self.attempt = min(self.attempt + 1, 30)
        return self._rng.uniform(ceiling / 2, ceiling)

    def reset(self) -> None:
        self.attempt = 0
