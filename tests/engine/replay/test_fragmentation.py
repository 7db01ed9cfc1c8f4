"""Typical pods and the fragment amount, against hand-computed cases and the direct definition."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scheduler_engine.plugins.gpupolicies.fragmentation import (
    FragModel,
    PodShape,
    TypicalPod,
    node_frag_amount,
    typical_pods,
)


def test_typical_pods_cover_the_threshold_and_renormalise() -> None:
    a, b, c = PodShape(1000, 1000, 1), PodShape(2000, 500, 1), PodShape(4000, 0, 0)
    shapes = [a] * 6 + [b] * 3 + [c] * 1
    typ = typical_pods(shapes, threshold=85)
    # 6 + 3 = 90% >= 85%: c is left out, frequencies renormalised over 90%
    assert [t.shape for t in typ] == [a, b]
    assert typ[0].freq == pytest.approx(6 / 9)
    assert typ[1].freq == pytest.approx(3 / 9)


def test_typical_pods_rank_equal_counts_larger_shape_first() -> None:
    small, big = PodShape(1000, 1000, 1), PodShape(8000, 1000, 1)
    typ = typical_pods([small, big], threshold=50)
    assert [t.shape for t in typ] == [big]
    assert typ[0].freq == pytest.approx(1.0)


def test_all_typical_pods_when_the_threshold_needs_them_all() -> None:
    typ = typical_pods([PodShape(1, 1000, 1), PodShape(2, 1000, 1)], threshold=100)
    assert sorted(t.freq for t in typ) == [0.5, 0.5]


TYP = [
    TypicalPod(PodShape(4000, 500, 1), 0.5),  # a half GPU with 4 CPUs
    TypicalPod(PodShape(8000, 1000, 2), 0.3),  # two whole GPUs
    TypicalPod(PodShape(2000, 0, 0), 0.2),  # CPU only
]


@pytest.mark.parametrize(
    ("cpu_left", "gpu_left", "expected"),
    [
        # idle 4-GPU node, enough CPU: half-GPU and 2-GPU pods fit, no GPU is below their ask;
        # the CPU-only pod counts every idle GPU as fragment: 0.2 * 4000
        (32000, [1000, 1000, 1000, 1000], 800.0),
        # GPUs with 300 and 200 free: below 500 (half pod) and 1000 (2-GPU pod);
        # 2 whole GPUs left: both fit. half: 0.5*(300+200); 2-GPU: 0.3*(300+200); cpu: 0.2*2500
        (32000, [300, 200, 1000, 1000], 0.5 * 500 + 0.3 * 500 + 0.2 * 2500),
        # only 6 CPUs left: the 2-GPU pod (8 CPUs) cannot run: all 2500 idle is fragment for it
        (6000, [300, 200, 1000, 1000], 0.5 * 500 + 0.3 * 2500 + 0.2 * 2500),
        # one whole GPU: the 2-GPU pod lacks GPUs
        (32000, [1000, 0, 0, 0], 0.5 * 0 + 0.3 * 1000 + 0.2 * 1000),
        # nothing idle, nothing fragmented
        (32000, [0, 0, 0, 0], 0.0),
    ],
)
def test_node_fragment_amount_by_hand(cpu_left: int, gpu_left: list[int], expected: float) -> None:
    assert node_frag_amount(cpu_left, gpu_left, "V100", TYP) == pytest.approx(expected)
    model = FragModel(TYP)
    got = model.amounts(
        np.array([cpu_left]), np.array([gpu_left]), np.array([1]), {0: "", 1: "V100"}
    )
    assert got[0] == pytest.approx(expected)


def test_a_model_the_typical_pod_does_not_accept_is_all_fragment() -> None:
    typ = [TypicalPod(PodShape(1000, 500, 1, "A10|T4"), 1.0)]
    assert node_frag_amount(32000, [1000, 600], "V100", typ) == 1600
    assert node_frag_amount(32000, [1000, 600], "T4", typ) == 0


def test_vectorised_amounts_match_the_definition_on_random_nodes() -> None:
    rng = random.Random(7)
    typ = [
        TypicalPod(
            PodShape(
                rng.choice([1000, 4000, 16000]),
                m := rng.choice([0, 100, 250, 500, 1000]),
                0 if m == 0 else (1 if m < 1000 else rng.choice([1, 2, 4, 8])),
                rng.choice(["", "", "T4", "T4|V100"]),
            ),
            rng.random(),
        )
        for _ in range(12)
    ]
    names = {0: "", 1: "T4", 2: "V100"}
    rows = []
    for _ in range(300):
        count = rng.choice([0, 1, 2, 4, 8])
        left = [rng.choice([0, 100, 250, 400, 500, 750, 1000]) for _ in range(count)]
        rows.append(
            (rng.randrange(0, 96000), left + [0] * (8 - count), rng.choice([0, 1, 2]), left)
        )
    model = FragModel(typ)
    got = model.amounts(
        np.array([r[0] for r in rows]),
        np.array([r[1] for r in rows]),
        np.array([r[2] for r in rows]),
        names,
    )
    for (cpu, _, code, left), g in zip(rows, got, strict=True):
        assert g == pytest.approx(node_frag_amount(cpu, left, names[code], typ))
