"""``go_sort_slice`` leaves elements where Go's ``sort.Slice`` leaves them, ties and all.

The cases were sorted by Go's own ``sort.Slice`` (``oracle.go`` beside this
file, Go 1.19.8): victims as MoreImportantPod orders them, with few
priorities and start times (so many ties, which an unstable sort may
reorder), pods without a start time (which compare as "now", so ``less``
holds both ways), and sorted, reversed and organ-pipe inputs that take
pdqsort's other branches (partial insertion sort, reversal, pattern breaking,
heapsort).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduler_engine import gosort
from scheduler_engine.gosort import go_sort_by_key, go_sort_slice

CASES = json.loads((Path(__file__).parent / "go119_sort_slice.json").read_text())
NOW = 1_000_000_000


def _less(elems: list[list[int]]) -> Any:
    """MoreImportantPod over (priority, start) with start < 0 for "no start time"."""

    def less(i: int, j: int) -> bool:
        (pa, ta), (pb, tb) = elems[i], elems[j]
        if pa != pb:
            return pa > pb
        if ta < 0:
            return tb < 0 or tb > NOW
        if tb < 0:
            return ta <= NOW
        return ta < tb

    return less


def _sorted(elems: list[list[int]]) -> list[int]:
    idx = list(range(len(elems)))
    go_sort_slice(idx, _less(elems))
    return idx


def test_every_case_is_left_as_go_left_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gosort, "XORSHIFT", tuple(CASES["xorshift"]))
    wrong = [len(c["elems"]) for c in CASES["cases"] if _sorted(c["elems"]) != c["sorted"]]
    assert not wrong, f"{len(wrong)} of {len(CASES['cases'])} cases differ (lengths {wrong[:10]})"


def test_the_cases_reach_every_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: set[str] = set()
    for name in ("_heap_sort", "_break_patterns", "_partition_equal", "_partial_insertion_sort"):
        real = getattr(gosort, name)

        def spy(*args: Any, _real: Any = real, _name: str = name) -> Any:
            seen.add(_name)
            return _real(*args)

        monkeypatch.setattr(gosort, name, spy)
    monkeypatch.setattr(gosort, "XORSHIFT", tuple(CASES["xorshift"]))
    for c in CASES["cases"]:
        _sorted(c["elems"])
    assert seen == {"_heap_sort", "_break_patterns", "_partition_equal", "_partial_insertion_sort"}


def test_ties_are_not_kept_in_order_as_a_stable_sort_would() -> None:
    """The reason for all this: a stable sort differs from Go on most long cases with ties."""
    differ = 0
    for c in CASES["cases"]:
        elems = c["elems"]
        if len(elems) > 12 and all(t >= 0 for _, t in elems):
            stable = sorted(range(len(elems)), key=lambda i: (-elems[i][0], elems[i][1]))
            differ += stable != c["sorted"]
    assert differ > 20


def test_short_slices_are_insertion_sorted_whatever_the_shifts() -> None:
    """Up to 12 elements Go runs insertion sort: stable for a strict weak order."""
    for c in CASES["cases"]:
        if len(c["elems"]) <= 12:
            assert _sorted(c["elems"]) == c["sorted"]


def test_sorting_by_a_key_leaves_what_go_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """``go_sort_by_key`` (a key per element, then pdqsort over the keys) on the cases
    whose order is a strict weak one: every pod with a start time."""
    monkeypatch.setattr(gosort, "XORSHIFT", tuple(CASES["xorshift"]))
    checked = 0
    for c in CASES["cases"]:
        elems = c["elems"]
        if any(t < 0 for _, t in elems):
            continue
        idx = list(range(len(elems)))
        go_sort_by_key(idx, lambda i, e=elems: (-e[i][0], e[i][1]))
        assert idx == c["sorted"]
        checked += len(elems) > 12
    assert checked > 20
