"""The initial sync's fast paths compute exactly what the general code does.

* ``pod_requests`` of a one-container pod without init containers, pod-level
  resources or overhead skips the sidecar-aware aggregation;
* the mirror rounds Fractions up with integer arithmetic instead of
  ``value``/``milli_value``;
* list pages and watch lines are parsed by orjson, falling back to json.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.cluster.kinds import _ceil
from dashboard.cluster.kube.client import loads
from scheduler_engine.errors import FieldError
from scheduler_engine.objects.pod import pod_requests
from scheduler_engine.quantity import milli_value, value

QUANTITIES = st.one_of(
    st.sampled_from(["1", "250m", "1.5", "32Gi", "100Mi", "0", "1e3", "2k", "0.1m", "-1", "1n"]),
    st.integers(-5, 10**12),
    st.floats(0, 1e6, allow_nan=False),
    st.sampled_from(["", "abc", "1Gb", True, None, [1]]),  # malformed
)
RESOURCE_LIST = st.one_of(
    st.none(),
    st.dictionaries(
        st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "amd.com/gpu", "hugepages-2Mi"]),
        QUANTITIES,
        max_size=4,
    ),
    st.sampled_from(["not a map", 3]),
)
RESOURCES = st.one_of(
    st.none(),
    st.fixed_dictionaries({}, optional={"requests": RESOURCE_LIST, "limits": RESOURCE_LIST}),
    st.just("not an object"),
)


def _outcome(spec: dict) -> object:
    try:
        return ("ok", pod_requests(spec))
    except FieldError as exc:
        return ("error", exc.field, exc.message)
    except (TypeError, AttributeError, ValueError) as exc:
        return ("raised", type(exc), str(exc))


@settings(max_examples=400, deadline=None)
@given(resources=RESOURCES)
def test_one_container_fast_path_equals_the_general_path(resources):
    container = {"name": "c"} if resources is None else {"name": "c", "resources": resources}
    spec = {"containers": [container]}
    # An empty overhead changes nothing but takes the general (aggregating) path.
    general = {**spec, "overhead": {}}
    fast, slow = _outcome(spec), _outcome(general)
    assert fast == slow
    if fast[0] == "ok":
        assert all(type(v) is Fraction for v in fast[1].values())
        assert list(fast[1]) == list(slow[1])  # same keys, same order


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "1"}}}]},
        {
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
            "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2"}}}],
        },
        {
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
            "resources": {"requests": {"cpu": "3"}},
        },
        {
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
            "overhead": {"cpu": "250m"},
        },
    ],
    ids=["two containers", "init container", "pod-level resources", "overhead"],
)
def test_other_pods_still_take_the_general_path(spec):
    expected = {
        "two containers": {"cpu": Fraction(1)},
        "init container": {"cpu": Fraction(2)},
        "pod-level resources": {"cpu": Fraction(3)},
        "overhead": {"cpu": Fraction(5, 4)},
    }
    assert pod_requests(spec) in expected.values()


def test_a_malformed_container_is_named_the_same_way():
    spec = {"containers": [{"name": "c", "resources": {"limits": {"cpu": "lots"}}}]}
    with pytest.raises(FieldError) as fast:
        pod_requests(spec)
    with pytest.raises(FieldError) as slow:
        pod_requests({**spec, "overhead": {}})
    assert (fast.value.field, fast.value.message) == (slow.value.field, slow.value.message)
    assert fast.value.field == "spec.containers[0].resources.limits.cpu"


@given(
    st.one_of(
        st.fractions(),
        st.integers(-(10**20), 10**20),
        st.integers(-(10**20), 10**20).map(Fraction),
    )
)
def test_integer_rounding_equals_value_and_milli_value(q):
    assert _ceil(q) == value(q)
    assert _ceil(q, 1000) == milli_value(q)


@pytest.mark.parametrize(
    "doc",
    [
        b'{"items": [{"a": 1, "b": "\\u00e9", "c": [1.5, -0.0, null, true]}]}',
        b'{"a": 1, "a": 2}',
        b'{"a": NaN, "b": Infinity}',  # json only
        b'"\\ud800"',  # a lone surrogate: json only
        '{"a": "é"}',
    ],
)
def test_list_bodies_parse_as_json_would(doc):
    expected = json.loads(doc)
    got = loads(doc)
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)


def test_what_is_not_json_still_raises():
    with pytest.raises(ValueError):
        loads(b"[1, 2")
