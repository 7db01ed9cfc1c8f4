"""VolumeBinding matches a pod's unbound claims in the order upstream's ``sort.Sort(byPVCSize)`` leaves them.

``sort.Sort`` is Go's pdqsort, the algorithm of ``sort.Slice``: up to 12
claims it is an insertion sort (stable), beyond that claims of equal size
may change places. Which claim is matched first decides which PV it gets
(the smallest that fits), and so whether a claim with a selector still finds
one: a Filter verdict.
"""

from __future__ import annotations

import random
from typing import Any

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.status import Code
from scheduler_engine.gosort import go_sort_slice
from scheduler_engine.plugins import volumebinding as vb
from tests.engine.builders import make_node, make_pod

from .storage_objects import FakeHandle, pv, pvc, storage_class

WAIT = storage_class("wait-sc")
SIZES = ("1Gi", "2Gi", "3Gi")


def _gi(size: str) -> int:
    return int(size.removesuffix("Gi"))


def _go_order(sizes: list[str]) -> list[int]:
    """Claim indices as Go's pdqsort orders them by size."""
    order = list(range(len(sizes)))
    go_sort_slice(order, lambda a, b: _gi(sizes[a]) < _gi(sizes[b]))
    return order


def _stable_order(sizes: list[str]) -> list[int]:
    return sorted(range(len(sizes)), key=lambda i: _gi(sizes[i]))


def _filter(objects: list[dict[str, Any]], n: int) -> tuple[Any, CycleState]:
    h = FakeHandle([WAIT, make_node("node-a").obj(), *objects])
    pl = vb.new({}, h)
    builder = make_pod("p")
    for i in range(n):
        builder = builder.pvc(f"c{i}")
    p = builder.pod()
    state = CycleState()
    _, st = pl.pre_filter(state, p, h.snapshot().node_info_list)
    assert st is None
    return pl.filter(state, p, h.snapshot().get("node-a")), state


def test_claims_are_matched_in_go_order_with_ties_moved() -> None:
    rng = random.Random(7)
    differ = 0
    for _ in range(40):
        n = rng.randint(13, 40)
        sizes = [rng.choice(SIZES) for _ in range(n)]
        claims = [pvc(f"c{i}", "wait-sc", request=s) for i, s in enumerate(sizes)]
        # one PV per claim, each a different size: every claim finds one
        pvs = [pv(f"pv-{i:02d}", "wait-sc", capacity=f"{10 + i}Gi") for i in range(n)]
        st, state = _filter([*claims, *pvs], n)
        assert st is None
        found = state.read(vb.STATE_KEY).pod_volumes_by_node["node-a"]
        got = [int(c.name[1:]) for _, c in found.static_bindings]
        assert got == _go_order(sizes)
        differ += got != _stable_order(sizes)
    assert differ > 10  # ties do move: a stable sort would fail here


def test_the_order_decides_whether_a_selective_claim_finds_its_pv() -> None:
    """The first 1Gi claim in Go's order gets the one 1Gi PV; give that PV to a selective claim."""
    rng = random.Random(3)
    while True:
        sizes = [rng.choice(SIZES[:2]) for _ in range(20)]
        go_first = next(i for i in _go_order(sizes) if sizes[i] == "1Gi")
        stable_first = next(i for i in _stable_order(sizes) if sizes[i] == "1Gi")
        if go_first != stable_first:
            break
    claims = [pvc(f"c{i}", "wait-sc", request=s) for i, s in enumerate(sizes)]
    # c{go_first} takes only the labelled 1Gi PV; the others fit anywhere
    claims[go_first]["spec"]["selector"] = {"matchLabels": {"disk": "fast"}}
    pvs = [pv("pv-fast", "wait-sc", capacity="1Gi", labels={"disk": "fast"})]
    pvs += [pv(f"pv-{i:02d}", "wait-sc", capacity=f"{10 + i}Gi") for i in range(19)]
    st, state = _filter([*claims, *pvs], len(sizes))
    assert st is None, st
    found = state.read(vb.STATE_KEY).pod_volumes_by_node["node-a"]
    assert (f"c{go_first}", "pv-fast") in [(c.name, v.name) for v, c in found.static_bindings]


def test_a_short_list_keeps_equal_claims_in_pod_order() -> None:
    sizes = ["2Gi", "1Gi", "2Gi", "1Gi", "1Gi"]
    claims = [pvc(f"c{i}", "wait-sc", request=s) for i, s in enumerate(sizes)]
    pvs = [pv(f"pv-{i}", "wait-sc", capacity=f"{10 + i}Gi") for i in range(5)]
    st, state = _filter([*claims, *pvs], 5)
    assert st is None
    found = state.read(vb.STATE_KEY).pod_volumes_by_node["node-a"]
    assert [c.name for _, c in found.static_bindings] == ["c1", "c3", "c4", "c0", "c2"]


def test_a_claim_for_another_node_is_not_matched_at_all() -> None:
    claims = [pvc(f"c{i}", "wait-sc", request="1Gi") for i in range(14)]
    claims[5]["metadata"]["annotations"]["volume.kubernetes.io/selected-node"] = "node-b"
    pvs = [pv(f"pv-{i}", "wait-sc", capacity=f"{10 + i}Gi") for i in range(14)]
    st, _ = _filter([*claims, *pvs], 14)
    assert st is not None and st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert st.reasons == (vb.ERR_REASON_BIND_CONFLICT,)
