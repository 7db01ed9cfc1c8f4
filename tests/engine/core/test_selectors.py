from __future__ import annotations

import pytest

from scheduler_engine.objects.selectors import (
    SelectorError,
    parse_label_selector,
    parse_node_selector,
)


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        (None, {"a": "b"}, False),
        ({}, {"a": "b"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "b"}, True),
        ({"matchLabels": {"a": "b"}}, {"a": "c"}, False),
        (
            {"matchExpressions": [{"key": "a", "operator": "In", "values": ["x", "y"]}]},
            {"a": "y"},
            True,
        ),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["x"]}]}, {}, True),
        (
            {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["x"]}]},
            {"a": "x"},
            False,
        ),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": ""}, False),
    ],
    ids=[
        "nil-selects-nothing",
        "empty-selects-everything",
        "match-labels",
        "match-labels-mismatch",
        "in",
        "notin-missing-key",
        "notin-present",
        "exists",
        "does-not-exist",
    ],
)
def test_label_selector_semantics(selector, labels, expected):
    assert parse_label_selector(selector).matches(labels) is expected


def test_label_selector_rejects_gt_and_names_the_field():
    with pytest.raises(SelectorError) as exc:
        parse_label_selector(
            {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}
        )
    assert exc.value.field == "labelSelector.matchExpressions[0].operator"


def _ns(*terms):
    return parse_node_selector({"nodeSelectorTerms": list(terms)}, "required")


@pytest.mark.parametrize(
    ("terms", "labels", "name", "expected"),
    [
        ([{}], {"a": "1"}, "n1", False),
        (
            [{"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["4"]}]}],
            {"gpu": "8"},
            "n1",
            True,
        ),
        (
            [{"matchExpressions": [{"key": "gpu", "operator": "Lt", "values": ["4"]}]}],
            {"gpu": "8"},
            "n1",
            False,
        ),
        (
            [{"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["4"]}]}],
            {"gpu": "many"},
            "n1",
            False,
        ),
        (
            [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}],
            {},
            "n1",
            True,
        ),
        (
            [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}],
            {},
            "n2",
            False,
        ),
        (
            [{"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}],
            {},
            "n2",
            True,
        ),
        (
            [
                {"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]},
                {"matchExpressions": [{"key": "z", "operator": "In", "values": ["b"]}]},
            ],
            {"z": "b"},
            "n",
            True,
        ),
    ],
    ids=[
        "empty-term-matches-nothing",
        "gt",
        "lt",
        "gt-non-integer-label",
        "field-in",
        "field-in-other",
        "field-notin",
        "terms-are-ored",
    ],
)
def test_node_selector_semantics(terms, labels, name, expected):
    assert _ns(*terms).matches(labels, name) is expected


@pytest.mark.parametrize("label", ["1_000", " 5", "5.0", "99999999999999999999"])
def test_gt_reads_labels_as_go_parses_int64(label):
    assert not _ns({"matchExpressions": [{"key": "n", "operator": "Gt", "values": ["1"]}]}).matches(
        {"n": label}, "x"
    )
