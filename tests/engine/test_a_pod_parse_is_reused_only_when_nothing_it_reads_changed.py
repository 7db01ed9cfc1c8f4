"""``reparse_pod``: a new version of a pod reuses the old parse only when parse_pod would
give the same pod (the warm state's refresh rests on it).

What parse_pod reads is an explicit list (the whole spec, ``PARSED_METADATA``,
``PARSED_STATUS``); the first test holds parse_pod to it, so a parser that
starts reading another field fails here until the list names it.
"""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import scheduler_engine
from scheduler_engine.documents import read_objects
from scheduler_engine.objects import Pod, Resource, parse_pod
from scheduler_engine.objects.pod import PARSED_METADATA, PARSED_STATUS, reparse_pod
from tests.engine.randomgen import random_cluster

DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"
CLASSES = {"hi": {"metadata": {"name": "hi"}, "value": 1000, "preemptionPolicy": "Never"}}


class Recording(Mapping[str, Any]):
    """A mapping that notes every key read from it."""

    def __init__(self, data: Mapping[str, Any], seen: set[str]) -> None:
        self._data, self._seen = data, seen

    def __getitem__(self, key: str) -> Any:
        self._seen.add(key)
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        self._seen.add("*")  # reading every key
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _pods() -> list[dict[str, Any]]:
    return copy.deepcopy(_made())


@functools.cache
def _made() -> list[dict[str, Any]]:
    pods = [o for o in read_objects(DEMO) if o.get("kind") == "Pod"]
    for seed in (1, 2, 3, 4):
        pods += [o for o in random_cluster(random.Random(seed)) if o.get("kind") == "Pod"]
    full = copy.deepcopy(pods[0])
    full["metadata"].update(
        uid="u-1",
        deletionTimestamp="2026-01-02T00:00:00Z",
        ownerReferences=[{"uid": "rs-1", "controller": True, "kind": "ReplicaSet"}],
        annotations={"a": "b"},
        resourceVersion="7",
    )
    full["spec"]["priorityClassName"] = "hi"
    full["status"] = {
        "phase": "Running",
        "startTime": "2026-01-01T00:00:00Z",
        "nominatedNodeName": "node-a",
        "conditions": [{"type": "Ready", "status": "True"}],
        "podIP": "10.0.0.1",
    }
    return [*pods, full]


def _fingerprint(pod: Pod) -> dict[str, Any]:
    out = {}
    for name in Pod.__slots__:
        if name in ("raw", "cache"):
            continue
        v = getattr(pod, name)
        out[name] = tuple(getattr(v, s) for s in Resource.__slots__) if name == "requests" else v
    return out


def test_parse_pod_reads_only_the_spec_and_the_listed_fields() -> None:
    meta_seen: set[str] = set()
    status_seen: set[str] = set()
    top_seen: set[str] = set()
    for obj in _pods():
        wrapped = {
            **obj,
            "metadata": Recording(obj["metadata"], meta_seen),
            "status": Recording(obj.get("status") or {}, status_seen),
        }
        parse_pod(Recording(wrapped, top_seen), CLASSES)
    assert top_seen <= {"metadata", "spec", "status"}
    assert meta_seen <= set(PARSED_METADATA)
    assert status_seen <= set(PARSED_STATUS)
    # the pods cover what the lists name (else the check above proves little)
    assert {"labels", "ownerReferences", "deletionTimestamp"} <= meta_seen
    assert set(PARSED_STATUS) <= status_seen


# (what changes, whether the old parse may serve)
CHANGES = [
    ("annotation", lambda o: o["metadata"].setdefault("annotations", {}).update(x="1"), True),
    ("resourceVersion", lambda o: o["metadata"].update(resourceVersion="999"), True),
    ("managedFields", lambda o: o["metadata"].update(managedFields=[{"manager": "k"}]), True),
    (
        "status condition",
        lambda o: o.setdefault("status", {}).update(conditions=[{"type": "Ready"}]),
        True,
    ),
    ("container statuses", lambda o: o.setdefault("status", {}).update(podIP="10.1.1.1"), True),
    ("label", lambda o: o["metadata"].setdefault("labels", {}).update(app="other"), False),
    ("phase", lambda o: o.setdefault("status", {}).update(phase="Succeeded"), False),
    (
        "startTime",
        lambda o: o.setdefault("status", {}).update(startTime="2026-02-01T00:00:00Z"),
        False,
    ),
    (
        "nominatedNodeName",
        lambda o: o.setdefault("status", {}).update(nominatedNodeName="elsewhere"),
        False,
    ),
    (
        "deletionTimestamp",
        lambda o: o["metadata"].update(deletionTimestamp="2026-03-01T00:00:00Z"),
        False,
    ),
    (
        "owner",
        lambda o: o["metadata"].update(ownerReferences=[{"uid": "x", "controller": True}]),
        False,
    ),
    ("uid", lambda o: o["metadata"].update(uid="another"), False),
    (
        "request",
        lambda o: o["spec"]["containers"][0].update(resources={"requests": {"cpu": "3"}}),
        False,
    ),
    ("priority class", lambda o: o["spec"].update(priorityClassName="other"), False),
    ("toleration", lambda o: o["spec"].update(tolerations=[{"operator": "Exists"}]), False),
    ("node", lambda o: o["spec"].update(nodeName="node-zz"), False),
    ("a spec field no plugin reads", lambda o: o["spec"].update(dnsPolicy="None"), False),
    # equal as Python values, not as JSON: the parse could differ (str(1) != str(1.0))
    ("label 1 -> 1.0", lambda o: o["metadata"].update(labels={"n": 1.0}), False),
    ("priority 5 -> 5.0", lambda o: o["spec"].update(priority=5.0), False),
    ("priority 1 -> True", lambda o: o["spec"].update(priority=True), False),
    # orjson writes NaN as null: the plain comparison must tell them apart
    ("null -> NaN", lambda o: o["spec"].update(x=float("nan")), False),
]


@pytest.mark.parametrize(("what", "change", "reused"), CHANGES, ids=[c[0] for c in CHANGES])
def test_the_old_parse_serves_exactly_when_parse_pod_would_agree(what, change, reused) -> None:
    base = _pods()[-1]
    if what == "label 1 -> 1.0":
        base["metadata"]["labels"] = {"n": 1}
    if what == "null -> NaN":
        base["spec"]["x"] = None
    if what in ("priority 5 -> 5.0", "priority 1 -> True"):
        base["spec"]["priority"] = 5 if "5" in what else 1
    old = parse_pod(base, CLASSES)
    new = copy.deepcopy(base)
    change(new)
    got = reparse_pod(old, new)
    assert (got is not None) is reused
    if got is not None:
        assert got.raw is new and got.cache == {} and got.cache is not old.cache
        assert _fingerprint(got) == _fingerprint(parse_pod(new, CLASSES))


_NEEDS_A_BASE = ("label 1 -> 1.0", "priority 5 -> 5.0", "priority 1 -> True", "null -> NaN")


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_on_random_pods_a_reused_parse_is_the_fresh_parse(seed: int) -> None:
    rng = random.Random(seed)
    reused = 0
    for obj in _pods():
        old = parse_pod(obj, CLASSES)
        for _ in range(3):
            new = copy.deepcopy(obj)
            what, change, _ = rng.choice(CHANGES)
            if what not in _NEEDS_A_BASE:
                change(new)
            got = reparse_pod(old, new)
            if got is not None:
                reused += 1
                assert _fingerprint(got) == _fingerprint(parse_pod(new, CLASSES)), what
    assert reused > 10


def test_objects_outside_plain_json_are_parsed_again() -> None:
    import datetime

    base = _pods()[-1]
    old = parse_pod(base, CLASSES)
    new = copy.deepcopy(base)
    new["metadata"]["creationTimestamp"] = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    assert reparse_pod(old, new) is None
    new = copy.deepcopy(base)
    new["spec"]["priority"] = 2**70
    assert reparse_pod(old, new) is None
