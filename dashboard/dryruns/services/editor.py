"""The profile editor's form: read the common knobs of a document, write changes back.

The knobs are what operators change most: plugins on/off per extension point,
score weights, NodeResourcesFit's scoring strategy and percentageOfNodesToScore.
Reading goes through the engine (the *resolved* plugin lists, so the form shows
what would really run); writing edits the user's own document as little as
possible (an entry in ``disabled``, an ``enabled`` entry with a weight, one
``pluginConfig`` field) and then lets the engine check the result.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml
from django.contrib.auth.models import AbstractBaseUser

from dashboard import conf
from dashboard.cluster.models import Cluster
from scheduler_engine import ConfigError, load_config
from scheduler_engine.config.defaults import DEFAULT_CAPABILITIES
from scheduler_engine.config.types import EXTENSION_POINTS
from scheduler_engine.documents import parse_documents
from scheduler_engine.errors import InputError

from .. import codec
from ..models import DryRun, ProfileVersion
from .dryruns import create_dry_run
from .errors import BadInput
from .profiles import validate_document

__all__ = [
    "SCORING_STRATEGIES",
    "apply_knobs",
    "baseline_for",
    "dump_document",
    "read_knobs",
]

SCORING_STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
_DEFAULT_SHAPE = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


def _parse(text: str) -> dict[str, Any]:
    problems = validate_document(text)
    if problems:
        raise BadInput.many([(p.field, p.message) for p in problems], len(problems))
    try:
        return parse_documents(text, source="document")[0]
    except InputError as exc:  # pragma: no cover - validate_document saw it first
        raise BadInput.one("document", exc.message) from None


def dump_document(doc: dict[str, Any]) -> str:
    """YAML as people write it: keys in document order, block style."""
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=100)


def _knobs_of(doc: dict[str, Any]) -> dict[str, Any]:
    try:
        cfg = load_config(copy.deepcopy(doc), **conf.engine_config_kwargs())
    except ConfigError as exc:
        field = f"document.{exc.field}" if exc.field else "document"
        raise BadInput.one(field, exc.message) from None
    profiles = []
    for prof in cfg.profiles:
        points: dict[str, list[dict[str, Any]]] = {}
        for point in EXTENSION_POINTS:
            enabled = prof.enabled(point)
            names = [r.name for r in enabled]
            rows = [
                {"name": r.name, "enabled": True, "weight": r.weight if point == "score" else None}
                for r in enabled
            ]
            others = sorted(
                n for n, caps in DEFAULT_CAPABILITIES.items() if point in caps and n not in names
            )
            rows += [
                {"name": n, "enabled": False, "weight": 1 if point == "score" else None}
                for n in others
            ]
            points[point] = rows
        fit = prof.plugin_args.get("NodeResourcesFit") or {}
        strategy = (fit.get("scoringStrategy") or {}).get("type", "LeastAllocated")
        profiles.append(
            {
                "schedulerName": prof.scheduler_name,
                "percentageOfNodesToScore": prof.percentage_of_nodes_to_score,
                "scoringStrategy": strategy,
                "points": points,
            }
        )
    top = cfg.percentage_of_nodes_to_score
    return {"percentageOfNodesToScore": top or None, "profiles": profiles}


def read_knobs(text: str) -> dict[str, Any]:
    """The form's values for a valid document; :class:`BadInput` naming the field if not."""
    return _knobs_of(_parse(text))


def _plugin_list(section: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = section.get(key)
    if not isinstance(value, list):
        value = []
        section[key] = value
    return value


def _point_set(profile: dict[str, Any], point: str) -> dict[str, Any]:
    plugins = profile.setdefault("plugins", {})
    return plugins.setdefault(point, {})


def _tidy(profile: dict[str, Any]) -> None:
    """Drop the empty lists and sections the edits may have left behind."""
    plugins = profile.get("plugins")
    if not isinstance(plugins, dict):
        return
    for point in list(plugins):
        ps = plugins[point]
        if not isinstance(ps, dict):
            continue
        for key in ("enabled", "disabled"):
            if key in ps and not ps[key]:
                del ps[key]
        if not ps:
            del plugins[point]
    if not plugins:
        del profile["plugins"]


def _set_enabled(doc: dict[str, Any], i: int, point: str, name: str, on: bool) -> None:
    profile = doc["profiles"][i]
    ps = _point_set(profile, point)
    if not on:
        ps["enabled"] = [e for e in _plugin_list(ps, "enabled") if e.get("name") != name]
        disabled = _plugin_list(ps, "disabled")
        if not any(d.get("name") in (name, "*") for d in disabled):
            disabled.append({"name": name})
        _tidy(profile)
        return
    ps["disabled"] = [d for d in _plugin_list(ps, "disabled") if d.get("name") != name]
    _tidy(profile)
    if _enabled_at(doc, i, point, name):
        return  # multiPoint brings it back
    ps = _point_set(profile, point)
    _plugin_list(ps, "enabled").append({"name": name})


def _enabled_at(doc: dict[str, Any], i: int, point: str, name: str) -> bool:
    try:
        cfg = load_config(copy.deepcopy(doc), **conf.engine_config_kwargs())
    except ConfigError:
        return False
    return any(r.name == name for r in cfg.profiles[i].enabled(point))


def _set_weight(doc: dict[str, Any], i: int, name: str, weight: int) -> None:
    profile = doc["profiles"][i]
    plugins = profile.get("plugins") or {}
    for point in ("score", "multiPoint"):
        for entry in (plugins.get(point) or {}).get("enabled") or ():
            if entry.get("name") == name:
                entry["weight"] = weight
                if point == "score":
                    return
                # an explicit score entry overrides multiPoint's weight; keep looking
    score = plugins.get("score") or {}
    if any(e.get("name") == name for e in score.get("enabled") or ()):
        return
    if any(e.get("name") == name for e in (plugins.get("multiPoint") or {}).get("enabled") or ()):
        return
    ps = _point_set(profile, "score")
    _plugin_list(ps, "enabled").append({"name": name, "weight": weight})


def _set_strategy(doc: dict[str, Any], i: int, strategy: str) -> None:
    if strategy not in SCORING_STRATEGIES:
        raise BadInput.one(
            f"knobs.profiles[{i}].scoringStrategy",
            f"must be one of {', '.join(SCORING_STRATEGIES)}",
        )
    profile = doc["profiles"][i]
    configs = profile.get("pluginConfig")
    if not isinstance(configs, list):
        configs = profile["pluginConfig"] = []
    entry = next((c for c in configs if c.get("name") == "NodeResourcesFit"), None)
    if entry is None:
        entry = {"name": "NodeResourcesFit", "args": {}}
        configs.append(entry)
    args = entry.get("args")
    if not isinstance(args, dict):
        args = entry["args"] = {}
    current = args.get("scoringStrategy")
    current = dict(current) if isinstance(current, dict) else {}
    current["type"] = strategy
    if strategy == "RequestedToCapacityRatio":
        current.setdefault("requestedToCapacityRatio", {"shape": copy.deepcopy(_DEFAULT_SHAPE)})
    else:
        current.pop("requestedToCapacityRatio", None)
    args["scoringStrategy"] = current


def _percentage(value: Any, field: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise BadInput.one(field, "must be a whole number between 0 and 100") from None
    if not 0 <= n <= 100:
        raise BadInput.one(field, "must be between 0 and 100")
    return n


def _set_percentage(target: dict[str, Any], value: int | None) -> None:
    if value is None:
        target.pop("percentageOfNodesToScore", None)
    else:
        target["percentageOfNodesToScore"] = value


def apply_knobs(text: str, knobs: dict[str, Any]) -> dict[str, Any]:
    """Apply the form's values to the document; ``{"document", "knobs"}`` afterwards.

    Only what differs from the document's current values is written, so a
    form submitted unchanged leaves the document as it was (apart from layout).
    """
    doc = _parse(text)
    current = _knobs_of(doc)
    if not isinstance(knobs, dict):
        raise BadInput.one("knobs", "expected an object")
    changed = False
    want_top = _percentage(knobs.get("percentageOfNodesToScore"), "knobs.percentageOfNodesToScore")
    if want_top != current["percentageOfNodesToScore"]:
        _set_percentage(doc, want_top)
        changed = True
    if not isinstance(doc.get("profiles"), list) or not doc["profiles"]:
        # the default profile, written out so that it can be edited
        doc["profiles"] = [{"schedulerName": current["profiles"][0]["schedulerName"]}]
    wanted = knobs.get("profiles") or []
    for i, (have, want) in enumerate(zip(current["profiles"], wanted, strict=False)):
        if not isinstance(want, dict):
            continue
        where = f"knobs.profiles[{i}]"
        pct = _percentage(want.get("percentageOfNodesToScore"), f"{where}.percentageOfNodesToScore")
        if pct != have["percentageOfNodesToScore"]:
            _set_percentage(doc["profiles"][i], pct)
            changed = True
        strategy = want.get("scoringStrategy")
        if strategy and strategy != have["scoringStrategy"]:
            _set_strategy(doc, i, strategy)
            changed = True
        points = want.get("points") or {}
        for point in EXTENSION_POINTS:
            before = {r["name"]: r for r in have["points"][point]}
            for row in points.get(point) or ():
                name = row.get("name") if isinstance(row, dict) else None
                if name not in before:
                    continue
                on = bool(row.get("enabled"))
                if on != before[name]["enabled"]:
                    _set_enabled(doc, i, point, name, on)
                    changed = True
                if point == "score" and on and row.get("weight") not in (None, ""):
                    try:
                        weight = int(row["weight"])
                    except (TypeError, ValueError):
                        raise BadInput.one(
                            f"{where}.points.score.{name}.weight", "must be a whole number"
                        ) from None
                    if weight != before[name]["weight"]:
                        _set_weight(doc, i, name, weight)
                        changed = True
    out = dump_document(doc) if changed else text
    return {"document": out, "knobs": read_knobs(out), "changed": changed}


def baseline_for(
    run: DryRun, active_version: ProfileVersion | None, user: AbstractBaseUser | None = None
) -> DryRun:
    """The run of the active profile on exactly ``run``'s frozen state, found or queued.

    With no active profile, the baseline is upstream's default configuration.
    """
    cluster: Cluster = run.cluster
    existing = (
        DryRun.objects.filter(
            cluster=cluster,
            snapshot_sha256=run.snapshot_sha256,
            profile_version=active_version,
            inline_config="",
        )
        .filter(
            **(
                {"feature_gates__isnull": True}
                if run.feature_gates is None
                else {"feature_gates": run.feature_gates}
            )
        )
        .exclude(pk=run.pk)
        .exclude(status__in=[DryRun.Status.FAILED, DryRun.Status.CANCELLED])
        .defer("snapshot")
        .order_by("-id")
        .first()
    )
    if existing is not None:
        return existing
    objects = codec.unpack(DryRun.objects.values_list("snapshot", flat=True).get(pk=run.pk))
    return create_dry_run(
        cluster,
        profile_version=active_version,
        source=DryRun.Source.SNAPSHOT,
        snapshot=objects,
        seed=run.seed,
        explain=run.explain,
        feature_gates=run.feature_gates,
        user=user,
    )
