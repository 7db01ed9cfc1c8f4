"""``heap_init``/``heap_pop`` pop nodes in the order Go's ``container/heap`` does, ties and all.

The score lists were run through Go's own ``heap.Init`` and ``heap.Pop``
(``oracle.go`` beside this file, Go 1.19.8) with upstream's nodeScoreHeap
``Less`` without extenders (a higher total first): every list tied, few
distinct scores, two scores, a few tied maxima among lower scores, sorted
either way, wide ranges, and lists of 1,000 and 5,000 nodes. ``heap_top``,
the host selection's short cut, must name the first node popped.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine.goheap import GoHeap, heap_init, heap_pop, heap_top

CASES = json.loads((Path(__file__).parent / "go119_heap.json").read_text())["cases"]


def _popped(totals: list[int]) -> list[int]:
    h: list[object] = list(range(len(totals)))

    def less(a: object, b: object) -> bool:
        return totals[a] > totals[b]  # type: ignore[index]

    heap_init(h, less)
    return [heap_pop(h, less) for _ in range(len(totals))]  # type: ignore[misc]


def test_every_list_pops_as_go_pops_it() -> None:
    wrong = [len(c["totals"]) for c in CASES if _popped(c["totals"]) != c["popped"]]
    assert not wrong, f"{len(wrong)} of {len(CASES)} cases differ (lengths {wrong[:10]})"


def test_the_short_cut_names_the_node_go_pops_first() -> None:
    wrong = [
        len(c["totals"])
        for c in CASES
        if heap_top(np.array(c["totals"], dtype=np.int64)) != c["popped"][0]
    ]
    assert not wrong, f"{len(wrong)} of {len(CASES)} cases differ (lengths {wrong[:10]})"


def test_the_first_popped_is_often_not_the_first_top_scored_node() -> None:
    """The reason for the port: the root is not simply the first (or a random) maximum."""
    moved = 0
    for c in CASES:
        t = c["totals"]
        moved += c["popped"][0] != t.index(max(t))
    assert moved > 20


def test_a_tied_list_pops_its_first_node_first() -> None:
    for c in CASES:
        if len(set(c["totals"])) == 1:
            assert c["popped"][0] == 0


def test_a_go_heap_pops_as_go_pops_it() -> None:
    for c in CASES:
        t = c["totals"]
        h = GoHeap(list(range(len(t))), lambda a, b, t=t: t[a] > t[b])
        assert [h.pop() for _ in range(len(t))] == c["popped"]
        assert len(h) == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=600))
def test_the_short_cut_agrees_with_the_port_on_any_list(totals: list[int]) -> None:
    assert heap_top(np.array(totals, dtype=np.int64)) == _popped(totals)[0]
