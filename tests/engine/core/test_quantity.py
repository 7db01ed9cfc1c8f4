from __future__ import annotations

from fractions import Fraction

import pytest

from scheduler_engine.quantity import QuantityError, milli_value, parse_quantity, value


@pytest.mark.parametrize(
    ("raw", "exact", "milli", "units"),
    [
        ("100m", Fraction(1, 10), 100, 1),
        ("1.5", Fraction(3, 2), 1500, 2),
        ("2Gi", 2 * 2**30, 2 * 2**30 * 1000, 2 * 2**30),
        ("1e3", 1000, 1_000_000, 1000),
        ("1E-2", Fraction(1, 100), 10, 1),
        ("500M", 500_000_000, 500_000_000_000, 500_000_000),
        ("7.5Gi", 7680 * 2**20, 7680 * 2**20 * 1000, 7680 * 2**20),
        ("1n", Fraction(1, 10**9), 1, 1),
        ("250u", Fraction(250, 10**6), 1, 1),
        (".5", Fraction(1, 2), 500, 1),
        ("5.", 5, 5000, 5),
        ("+3k", 3000, 3_000_000, 3000),
        (3, 3, 3000, 3),
        (0.5, Fraction(1, 2), 500, 1),
        ("0", 0, 0, 0),
    ],
    ids=lambda v: repr(v),
)
def test_it_parses_quantities_like_the_api_server(raw, exact, milli, units):
    q = parse_quantity(raw)
    assert q == exact
    assert milli_value(q) == milli
    assert value(q) == units


@pytest.mark.parametrize("raw", ["", "abc", "1x", "1.2.3", ".", "Gi", "1 Gi", True, None, [1]])
def test_it_rejects_malformed_quantities(raw):
    with pytest.raises(QuantityError):
        parse_quantity(raw)


def test_cpu_millicores_round_up():
    assert milli_value(parse_quantity("0.0001")) == 1
