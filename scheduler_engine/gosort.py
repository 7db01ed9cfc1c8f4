"""Go's ``sort.Slice``, step for step: where equal elements end up is part of upstream's answer.

``sort.Slice`` is not stable. It runs pattern-defeating quicksort
(``pdqsort_func`` in Go's ``sort/zsortfunc.go``): insertion sort for up to 12
elements, otherwise a pivot by median of three (or Tukey's ninther from 50
elements), a partition that moves equal elements across the pivot, a
partial insertion sort when the slice looks sorted, pattern breaking with a
xorshift generator seeded by the length after an unbalanced partition, and
heapsort once too many partitions were unbalanced. It is deterministic, so
the order it leaves equal elements in (victims of one priority that started
in the same second, say) can be reproduced exactly, and it calls ``less`` in
the same sequence, which matters when ``less`` is not a strict weak order
(upstream's MoreImportantPod for pods without a start time).

``sort.Sort`` over a ``sort.Interface`` runs the same pdqsort (Go's
``zsortinterface.go``), so this serves it too. ``less(a, b)`` takes the
elements, not their indices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["go_sort_by_key", "go_sort_slice"]

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_SHORTEST_SHIFTING = 50
_MAX_STEPS = 5
_MASK64 = (1 << 64) - 1
# Go's sort.xorshift shifts (sort/sort.go, Go 1.22 and later)
XORSHIFT = (13, 7, 17)

_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2


def go_sort_slice(items: list[Any], less: Callable[[Any, Any], bool]) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.Slice(items, less)`` does."""
    n = len(items)
    if n <= _MAX_INSERTION:
        _insertion_sort(items, less, 0, n)
        return
    _pdqsort(items, less, 0, n, n.bit_length())


def go_sort_by_key(items: list[Any], key: Callable[[Any], Any]) -> None:
    """``go_sort_slice(items, lambda a, b: key(a) < key(b))``, each key computed once.

    ``key``'s values must be ordered by ``<`` as a strict weak order (numbers,
    strings, tuples of them). Up to 12 elements Go's insertion sort is then
    stable, as Python's sort is; longer slices run pdqsort over the keys.
    """
    n = len(items)
    if n <= _MAX_INSERTION:
        items.sort(key=key)
        return
    keys = [key(x) for x in items]
    order = list(range(n))
    _pdqsort(order, lambda i, j: keys[i] < keys[j], 0, n, n.bit_length())
    items[:] = [items[i] for i in order]


def _insertion_sort(x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(x[j], x[j - 1]):
            x[j], x[j - 1] = x[j - 1], x[j]
            j -= 1


def _sift_down(
    x: list[Any], less: Callable[[Any, Any], bool], lo: int, hi: int, first: int
) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and less(x[first + child], x[first + child + 1]):
            child += 1
        if not less(x[first + root], x[first + child]):
            return
        x[first + root], x[first + child] = x[first + child], x[first + root]
        root = child


def _heap_sort(x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int) -> None:
    hi = b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(x, less, i, hi, a)
    for i in range(hi - 1, -1, -1):
        x[a], x[a + i] = x[a + i], x[a]
        _sift_down(x, less, 0, i, a)


def _pdqsort(x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int, limit: int) -> None:
    was_balanced = was_partitioned = True
    while True:
        length = b - a
        if length <= _MAX_INSERTION:
            _insertion_sort(x, less, a, b)
            return
        if limit == 0:
            _heap_sort(x, less, a, b)
            return
        if not was_balanced:
            _break_patterns(x, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(x, less, a, b)
        if hint == _DECREASING:
            x[a:b] = x[a:b][::-1]
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        if (
            was_balanced
            and was_partitioned
            and hint == _INCREASING
            and _partial_insertion_sort(x, less, a, b)
        ):
            return
        if a > 0 and not less(x[a - 1], x[pivot]):
            a = _partition_equal(x, less, a, b, pivot)
            continue
        mid, was_partitioned = _partition(x, less, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            was_balanced = left >= threshold
            _pdqsort(x, less, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right >= threshold
            _pdqsort(x, less, mid + 1, b, limit)
            b = mid


def _partition(
    x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int, pivot: int
) -> tuple[int, bool]:
    x[a], x[pivot] = x[pivot], x[a]
    p = x[a]
    i, j = a + 1, b - 1
    while i <= j and less(x[i], p):
        i += 1
    while i <= j and not less(x[j], p):
        j -= 1
    if i > j:
        x[j], x[a] = x[a], x[j]
        return j, True
    x[i], x[j] = x[j], x[i]
    i += 1
    j -= 1
    while True:
        while i <= j and less(x[i], p):
            i += 1
        while i <= j and not less(x[j], p):
            j -= 1
        if i > j:
            break
        x[i], x[j] = x[j], x[i]
        i += 1
        j -= 1
    x[j], x[a] = x[a], x[j]
    return j, False


def _partition_equal(
    x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int, pivot: int
) -> int:
    x[a], x[pivot] = x[pivot], x[a]
    p = x[a]
    i, j = a + 1, b - 1
    while True:
        while i <= j and not less(p, x[i]):
            i += 1
        while i <= j and less(p, x[j]):
            j -= 1
        if i > j:
            return i
        x[i], x[j] = x[j], x[i]
        i += 1
        j -= 1


def _partial_insertion_sort(x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int) -> bool:
    i = a + 1
    for _ in range(_MAX_STEPS):
        while i < b and not less(x[i], x[i - 1]):
            i += 1
        if i == b:
            return True
        if b - a < _SHORTEST_SHIFTING:
            return False
        x[i], x[i - 1] = x[i - 1], x[i]
        # the smaller one to the left (Go's loop runs down to index 1, not to a)
        if i - a >= 2:
            j = i - 1
            while j >= 1 and less(x[j], x[j - 1]):
                x[j], x[j - 1] = x[j - 1], x[j]
                j -= 1
        # the greater one to the right
        if b - i >= 2:
            j = i + 1
            while j < b and less(x[j], x[j - 1]):
                x[j], x[j - 1] = x[j - 1], x[j]
                j += 1
    return False


def _break_patterns(x: list[Any], a: int, b: int) -> None:
    length = b - a
    if length < 8:
        return
    s1, s2, s3 = XORSHIFT
    r = length
    modulus = 1 << length.bit_length()
    for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
        r ^= (r << s1) & _MASK64
        r ^= r >> s2
        r ^= (r << s3) & _MASK64
        other = r & (modulus - 1)
        if other >= length:
            other -= length
        x[idx], x[a + other] = x[a + other], x[idx]


def _choose_pivot(
    x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int
) -> tuple[int, int]:
    n = b - a
    swaps = [0]
    i, j, k = a + n // 4 * 1, a + n // 4 * 2, a + n // 4 * 3
    if n >= 8:
        if n >= _SHORTEST_NINTHER:
            i = _median(x, less, i - 1, i, i + 1, swaps)
            j = _median(x, less, j - 1, j, j + 1, swaps)
            k = _median(x, less, k - 1, k, k + 1, swaps)
        j = _median(x, less, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == _MAX_SWAPS:
        return j, _DECREASING
    return j, _UNKNOWN


def _median(
    x: list[Any], less: Callable[[Any, Any], bool], a: int, b: int, c: int, swaps: list[int]
) -> int:
    """The index of the median of x[a], x[b], x[c], counting swaps (Go's ``median_func``)."""
    if less(x[b], x[a]):
        swaps[0] += 1
        a, b = b, a
    if less(x[c], x[b]):
        swaps[0] += 1
        b, c = c, b
    if less(x[b], x[a]):
        swaps[0] += 1
        a, b = b, a
    return b
