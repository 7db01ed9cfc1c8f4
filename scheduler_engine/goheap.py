"""Go's ``container/heap``, step for step: which of equally scored nodes kube-scheduler binds to.

Upstream's host selection (``newSortedNodeScores`` then ``Pop`` in
``schedule_one.go``) runs ``heap.Init`` over the scored nodes in the order
filtering found them and pops the root; ``Less`` is "higher total score"
(then a random number that only extenders' scores get). Which of several
top-scored nodes ends at the root is set by ``heap.Init``'s sift-downs:
deterministic, not uniform. ``heap_init`` and ``heap_pop`` are the port;
``heap_top`` gives the same answer for a vector of scores without moving
anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import numpy as np

__all__ = ["GoHeap", "heap_init", "heap_pop", "heap_top", "heap_top_of_ties"]

T = TypeVar("T")


class GoHeap(Generic[T]):
    """A heap over ``items`` ordered by ``less``: ``heap.Init`` when made, then ``heap.Pop``."""

    __slots__ = ("_h", "_less")

    def __init__(self, items: list[T], less: Callable[[T, T], bool]) -> None:
        self._h = list(items)
        self._less = less
        heap_init(self._h, less)

    def __len__(self) -> int:
        return len(self._h)

    def pop(self) -> T:
        return heap_pop(self._h, self._less)


def heap_init(h: list[T], less: Callable[[T, T], bool]) -> None:
    """Go's ``heap.Init``: sift down every inner node, the last first."""
    n = len(h)
    for i in range(n // 2 - 1, -1, -1):
        _down(h, less, i, n)


def heap_pop(h: list[T], less: Callable[[T, T], bool]) -> T:
    """Go's ``heap.Pop``: the root moves to the end, the new root sifts down, the end is taken."""
    n = len(h) - 1
    h[0], h[n] = h[n], h[0]
    _down(h, less, 0, n)
    return h.pop()


def _down(h: list[T], less: Callable[[T, T], bool], i0: int, n: int) -> None:
    i = i0
    while True:
        j1 = 2 * i + 1
        if j1 >= n:
            return
        j = j1
        j2 = j1 + 1
        if j2 < n and less(h[j2], h[j1]):
            j = j2
        if not less(h[j], h[i]):
            return
        h[i], h[j] = h[j], h[i]
        i = j


def heap_top(totals: np.ndarray) -> int:
    """The index ``heap_pop`` returns after ``heap_init`` over ``totals``, ``less`` = greater."""
    return heap_top_of_ties(np.flatnonzero(totals == totals.max()))


def heap_top_of_ties(ties: np.ndarray) -> int:
    """``heap_top`` given the indices of the top scores, ascending.

    After ``heap.Init`` a subtree's root is its own first element when that is
    the subtree's maximum, else its left child's root when the left subtree
    holds the maximum, else its right child's. So the root is the top-scored
    index whose path from the root (the binary digits of index + 1 after the
    leading one: 0 left, 1 right) is least, a path before its extensions.
    That is the least mantissa of index + 1 (``frexp``: exact below 2**53),
    the smallest index among equal ones (a path before its extensions).
    """
    if len(ties) == 1 or ties[0] == 0:
        return int(ties[0])
    return int(ties[np.argmin(np.frexp(ties + 1)[0])])
