"""The worker's load of a frozen state builds the cluster the engine saw before, exactly.

The load keeps parsed parts by value (container requests, tolerations: pods of
one template share them) and pauses the garbage collector. Each random frozen
state is loaded twice, as the worker does it (packed, unpacked, built with the
memos warm) and with every memo missing (each part parsed afresh, as before),
and compared attribute by attribute and by the whole simulate() document. The
states repeat templates with parts that differ only in type (``1``, ``1.0``,
``"1"``, ``True``; a list where a mapping belongs), the values a memo keyed
loosely would mistake for each other.
"""

from __future__ import annotations

import copy
import gc
import json
import random
from typing import Any

import pytest

from dashboard.dryruns import codec
from scheduler_engine.cluster import build_cluster
from scheduler_engine.errors import InputError
from scheduler_engine.objects import pod as pod_module
from scheduler_engine.objects import taints as taints_module
from scheduler_engine.objects.shapes import Memo
from scheduler_engine.simulate import simulate
from tests.engine.randomgen import random_cluster

TIMINGS = ("seconds", "podsPerSecond")
# a pod's part and values of it that differ only in type (or are no quantity at all)
CPU_FORMS = ("1", 1, 1.0, "1.0", "1000m", True, [1], {"v": 1})
SECONDS_FORMS = (300, 300.0, "300", True, None)


class _Forgetful(Memo):
    """A memo that never has anything: every part is parsed afresh."""

    def get(self, key: Any) -> None:
        return None


def _loaded(objects: list[dict[str, Any]], *, memo: bool) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        if memo:
            # as a worker does it: through the codec, the memos warm from earlier pods
            return build_cluster(codec.unpack(codec.pack(objects)), source="snapshot")
        mp.setattr(pod_module, "_REQUESTS_SEEN", _Forgetful())
        mp.setattr(taints_module, "_TOLERATIONS_SEEN", _Forgetful())
        return build_cluster(copy.deepcopy(objects), source="snapshot")


def _varied(rng: random.Random, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of some pods (a template's replicas) with one part changed in type only."""
    pods = [o for o in objects if o["kind"] == "Pod"]
    out = list(objects)
    for n, template in enumerate(rng.sample(pods, min(len(pods), 6))):
        for k in range(rng.randint(1, 4)):
            p = copy.deepcopy(template)
            p["metadata"]["name"] = f"{p['metadata']['name']}-r{n}-{k}"
            p["metadata"].pop("uid", None)
            spec = p["spec"]
            container = spec["containers"][0]
            if rng.random() < 0.5:
                reqs = container.setdefault("resources", {}).setdefault("requests", {})
                reqs["cpu"] = rng.choice(CPU_FORMS)
            if rng.random() < 0.5:
                tol = {"key": "spot", "operator": "Exists", "effect": "NoExecute"}
                secs = rng.choice(SECONDS_FORMS)
                if secs is not None:
                    tol["tolerationSeconds"] = secs
                spec["tolerations"] = [*spec.get("tolerations", []), tol]
            out.append(p)
    return out


def _slots(obj: Any) -> dict[str, Any]:
    return {s: getattr(obj, s) for s in type(obj).__slots__ if s not in ("raw", "cache")}


def _outcome(objects: list[dict[str, Any]], *, memo: bool) -> Any:
    try:
        return _loaded(objects, memo=memo)
    except InputError as exc:
        return exc.one_line()


def _document(state: Any) -> str:
    doc = simulate(state, seed=3).to_dict()
    for k in TIMINGS:
        doc["summary"].pop(k, None)
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("seed", range(10))
def test_a_random_frozen_state_loads_into_the_same_cluster(seed: int) -> None:
    rng = random.Random(seed)
    objects = _varied(rng, random_cluster(rng))
    warm = _outcome(objects, memo=True)
    cold = _outcome(objects, memo=False)
    if isinstance(cold, str):  # a part of the wrong type: the same refusal both ways
        assert warm == cold
        return
    assert [_slots(p) for p in warm.pods] == [_slots(p) for p in cold.pods]
    assert [_slots(n) for n in warm.nodes] == [_slots(n) for n in cold.nodes]
    assert warm.namespaces == cold.namespaces
    assert warm.priority_classes == cold.priority_classes
    assert _document(warm) == _document(cold)


@pytest.mark.parametrize("value", CPU_FORMS[3:], ids=repr)
def test_a_part_that_differs_in_type_only_is_parsed_for_itself(value: Any) -> None:
    """A replica whose cpu is ``1.0``, ``True`` or a list after replicas with ``"1"``/``1``."""
    rng = random.Random(1)
    objects = random_cluster(rng)
    template = next(o for o in objects if o["kind"] == "Pod")
    replicas = []
    for i, cpu in enumerate(("1", 1, value)):
        p = copy.deepcopy(template)
        p["metadata"]["name"] = f"replica-{i}"
        p["spec"]["containers"][0].setdefault("resources", {})["requests"] = {"cpu": cpu}
        replicas.append(p)
    assert _outcome(objects + replicas, memo=True) is not None
    warm, cold = (_outcome(objects + replicas, memo=m) for m in (True, False))
    if isinstance(cold, str):
        assert warm == cold and "replica-2" in cold
    else:
        assert [_slots(p) for p in warm.pods] == [_slots(p) for p in cold.pods]


def test_a_run_gives_the_frozen_state_back_to_the_collector(demo_cluster, transactional_db):
    """The worker freezes the loaded state (gc.freeze) for the run, and thaws it after;
    a process that kept frozen objects of its own before keeps them frozen."""
    from dashboard.dryruns.models import DryRun
    from dashboard.dryruns.services.runner import run_dry_run
    from tests.support.synthetic import fleet

    def run() -> str | None:
        made = DryRun.objects.create(
            cluster=demo_cluster, snapshot=codec.pack(fleet(3, running=4, pending=2))
        )
        return run_dry_run(made.pk)

    already = gc.get_freeze_count()
    gc.unfreeze()
    try:
        assert run() == "succeeded"
        assert gc.get_freeze_count() == 0  # a worker's: nothing stays out of the collector's sight
        gc.freeze()
        kept = gc.get_freeze_count()
        assert run() == "succeeded"
        assert gc.get_freeze_count() >= kept  # someone else's frozen objects stay frozen
    finally:
        gc.unfreeze()
        if already:
            gc.freeze()
