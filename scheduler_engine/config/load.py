"""Load, default, validate and resolve a ``KubeSchedulerConfiguration`` (v1).

The pipeline follows kube-scheduler v1.36 step by step:

1. strict decoding (``LoadConfigFromFile``: unknown fields and wrong types fail),
   including each typed plugin args object (``PluginConfig.decodeNestedObjects``);
2. defaulting (``SetDefaults_KubeSchedulerConfiguration``: the default profile,
   ``mergePlugins`` with the default multiPoint set, args defaults and default
   args for every enabled plugin that has an args kind);
3. validation (``ValidateKubeSchedulerConfiguration``), all errors collected;
4. building each profile's framework (``runtime.NewFramework``): plugin args
   checked by the plugin constructors, the explicit extension points, then
   ``expandMultiPointPlugins`` and the weight rules of ``getValidScoreWeights``.

The result is the resolved :class:`~scheduler_engine.config.types.SchedulerConfig`.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..documents import parse_documents
from ..errors import ConfigError, InputError
from ..features import resolve_feature_gates
from .defaults import (
    API_VERSION,
    DEFAULT_CAPABILITIES,
    DEFAULT_MULTIPOINT,
    DEFAULT_SCHEDULER_NAME,
    FRAMEWORK_POINT_ORDER,
    INTERFACE_NAMES,
    KIND,
    MergedEntry,
    MergedSet,
    default_args,
    default_multipoint,
    merge_plugin_set,
)
from .fielderr import FieldError, invalid
from .schema import ARGS_SCHEMAS, CONFIG_SCHEMA, PLUGIN_SET_FIELDS, decode
from .types import EXTENSION_POINTS, PluginRef, ProfileConfig, SchedulerConfig
from .validation import validate_args, validate_document

__all__ = [
    "config_to_dict",
    "default_config",
    "dump_config",
    "load_config",
    "load_config_text",
    "validate_config",
]

OBJ = KIND
_MAX_SCORE = 100
_MAX_TOTAL_SCORE = 2**63 - 1

Source = str | os.PathLike[str] | Mapping[str, Any] | None
Capabilities = Mapping[str, frozenset[str]]
# a plugin's own args check: raw args → (defaulted args, [(field, value, message)])
ArgsCheck = Callable[[Mapping[str, Any]], tuple[dict[str, Any], list[tuple[str, Any, str]]]]


# --- public API ---------------------------------------------------------------------


def load_config(
    source: Source,
    *,
    capabilities: Capabilities | None = None,
    file: str | None = None,
    feature_gates: Mapping[str, bool] | None = None,
    args_checks: Mapping[str, ArgsCheck] | None = None,
) -> SchedulerConfig:
    """The resolved configuration, or :class:`ConfigError` for the first problem.

    ``feature_gates`` (gate → value, over v1.36's defaults) decide the default
    plugins, as kube-scheduler's ``--feature-gates`` does, and are checked as it
    checks them (:func:`scheduler_engine.features.resolve_feature_gates`): an
    unknown gate, a value other than a bool, a gate without the one it needs or a
    locked gate set against its value is an :class:`InputError` naming
    ``feature_gates``.

    ``source`` is a path to a YAML/JSON file, an already parsed document, or
    None for upstream's default configuration (one ``default-scheduler``
    profile).  ``capabilities`` is the plugin registry: plugin name -> the
    extension points it implements (default: :data:`DEFAULT_CAPABILITIES`).
    ``args_checks`` are the args checks of plugins that bring their own
    (``Registry.args_checks()``): plugin name -> check.
    """
    if feature_gates is not None:
        feature_gates = resolve_feature_gates(feature_gates, field="feature_gates")
    doc, label = _read(source, file)
    errors, cfg = _run(
        doc, capabilities, label, stop_early=True, args_checks=args_checks, gates=feature_gates
    )
    if errors:
        first = errors[0]
        first.errors = errors  # type: ignore[attr-defined]
        raise first
    assert cfg is not None
    return cfg


def load_config_text(
    text: str,
    *,
    capabilities: Capabilities | None = None,
    file: str | None = None,
    args_checks: Mapping[str, ArgsCheck] | None = None,
) -> SchedulerConfig:
    """Like :func:`load_config` for YAML or JSON text (the profile editor's input)."""
    return load_config(
        _parse_text(text, file or "<input>"),
        capabilities=capabilities,
        file=file,
        args_checks=args_checks,
    )


def validate_config(
    source: Source,
    *,
    capabilities: Capabilities | None = None,
    file: str | None = None,
    args_checks: Mapping[str, ArgsCheck] | None = None,
) -> list[ConfigError]:
    """Every problem found, in upstream's order; empty when the configuration is usable.

    Decoding and validation errors are all reported (upstream aggregates them);
    once those pass, the first framework error of each profile is reported.
    """
    try:
        doc, label = _read(source, file)
    except ConfigError as exc:
        return [exc]
    errors, _ = _run(doc, capabilities, label, stop_early=False, args_checks=args_checks)
    return errors


def default_config() -> SchedulerConfig:
    """Upstream's default configuration: one ``default-scheduler`` profile."""
    return load_config(None)


def dump_config(cfg: SchedulerConfig) -> dict[str, Any]:
    """The effective (defaulted) configuration as a v1 document.

    Like ``kube-scheduler --write-config-to``: plugin sets are the merged sets
    (``multiPoint`` plus explicit points), before multiPoint expansion, and every
    enabled plugin with an args kind has its defaulted args.  A configuration
    built without a source is written with each point listed explicitly.
    """
    if cfg.source is not None:
        decoded, errors = _decode(cfg.source)
        if not errors:
            doc, _ = _apply_defaults(decoded)
            return _with_args_type_meta(doc)
    return _explicit_document(cfg)


def config_to_dict(cfg: SchedulerConfig) -> dict[str, Any]:
    """The resolved configuration as JSON-able data (ordered plugins per point)."""
    return {
        "parallelism": cfg.parallelism,
        "percentageOfNodesToScore": cfg.percentage_of_nodes_to_score,
        "podInitialBackoffSeconds": cfg.pod_initial_backoff_seconds,
        "podMaxBackoffSeconds": cfg.pod_max_backoff_seconds,
        "profiles": [
            {
                "schedulerName": p.scheduler_name,
                "percentageOfNodesToScore": p.percentage_of_nodes_to_score,
                "plugins": {
                    point: [{"name": r.name, "weight": r.weight} for r in refs]
                    for point, refs in p.plugins.items()
                },
                "pluginArgs": copy.deepcopy(dict(p.plugin_args)),
            }
            for p in cfg.profiles
        ],
    }


# --- reading ------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _error(fe: FieldError, file: str | None) -> ConfigError:
    return ConfigError(_one_line(fe.body()), file=file, obj=OBJ, field=fe.field or None)


def _parse_text(text: str, label: str) -> dict[str, Any]:
    try:
        docs = parse_documents(text, source=label)
    except InputError as exc:
        raise ConfigError(_one_line(exc.message), file=label) from None
    if len(docs) != 1:
        raise ConfigError(f"expected exactly one {KIND} document, found {len(docs)}", file=label)
    return docs[0]


def _read(source: Source, file: str | None) -> tuple[dict[str, Any], str | None]:
    if source is None:
        return {"apiVersion": API_VERSION, "kind": KIND}, file
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source)), file
    path = Path(source)
    label = file or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot read: {_one_line(reason)}", file=label) from None
    return _parse_text(text, label), label


# --- the pipeline -------------------------------------------------------------------


def _run(
    doc: dict[str, Any],
    capabilities: Capabilities | None,
    file: str | None,
    *,
    stop_early: bool,
    gates: Mapping[str, bool] | None = None,
    args_checks: Mapping[str, ArgsCheck] | None = None,
) -> tuple[list[ConfigError], SchedulerConfig | None]:
    type_errs = _check_type_meta(doc)
    if type_errs:
        return [_error(type_errs[0], file)], None
    decoded, errs = _decode(doc)
    if errs:
        return [_error(e, file) for e in errs], None
    defaulted, merged = _apply_defaults(decoded, gates)
    errs = validate_document(defaulted)
    if errs:
        return [_error(e, file) for e in errs], None
    caps = DEFAULT_CAPABILITIES if capabilities is None else capabilities
    profiles: list[ProfileConfig] = []
    errors: list[ConfigError] = []
    for i, prof in enumerate(defaulted["profiles"]):
        result = _build_profile(i, prof, merged[i], caps, args_checks or {})
        if isinstance(result, FieldError):
            errors.append(_error(result, file))
            if stop_early:
                break
        else:
            profiles.append(result)
    if errors:
        return errors, None
    cfg = SchedulerConfig(
        profiles=tuple(profiles),
        percentage_of_nodes_to_score=defaulted["percentageOfNodesToScore"],
        parallelism=defaulted["parallelism"],
        pod_initial_backoff_seconds=defaulted["podInitialBackoffSeconds"],
        pod_max_backoff_seconds=defaulted["podMaxBackoffSeconds"],
        source=doc,
        feature_gates=dict(gates) if gates else {},
    )
    return [], cfg


def _check_type_meta(doc: Mapping[str, Any]) -> list[FieldError]:
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not kind:
        return [FieldError("kind", "Required value", f'must be "{KIND}"')]
    if not api_version:
        return [FieldError("apiVersion", "Required value", f'must be "{API_VERSION}"')]
    if api_version != API_VERSION:
        return [
            FieldError(
                "apiVersion",
                f'no kind "{kind}" is registered for version "{api_version}"'
                f' (kube-scheduler v1.36 reads only "{API_VERSION}")',
            )
        ]
    if kind != KIND:
        return [
            FieldError(
                "kind",
                f'no kind "{kind}" is registered for version "{api_version}" (expected "{KIND}")',
            )
        ]
    return []


def _decode(doc: Mapping[str, Any]) -> tuple[dict[str, Any], list[FieldError]]:
    errs: list[FieldError] = []
    out = decode(doc, CONFIG_SCHEMA, "", errs)
    for i, prof in enumerate(out.get("profiles", ())):
        for j, pc in enumerate(prof.get("pluginConfig", ())):
            name = pc.get("name", "")
            if name not in ARGS_SCHEMAS:
                continue  # out-of-tree or args-less plugin: kept as given (runtime.Unknown)
            path = f"profiles[{i}].pluginConfig[{j}].args"
            raw = pc.get("args")
            if raw is None:
                raw = {}
            args = decode(raw, ARGS_SCHEMAS[name], path, errs)
            want = f"{name}Args"
            if args.get("kind", want) != want:
                errs.append(
                    FieldError(
                        f"{path}.kind",
                        f"args for plugin {name} were not of type {want}.kubescheduler.config.k8s.io,"
                        f" got {args['kind']}.kubescheduler.config.k8s.io",
                    )
                )
            elif args.get("apiVersion", API_VERSION) != API_VERSION:
                errs.append(
                    FieldError(
                        f"{path}.apiVersion",
                        f'no kind "{want}" is registered for version "{args["apiVersion"]}"',
                    )
                )
            pc["args"] = args
    return out, errs


def _v1_plugin(entry: MergedEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"name": entry.name}
    if entry.weight is not None:
        out["weight"] = entry.weight
    return out


def _apply_defaults(
    decoded: Mapping[str, Any], gates: Mapping[str, bool] | None = None
) -> tuple[dict[str, Any], list[dict[str, MergedSet]]]:
    """The defaulted v1 document, and each profile's merged plugin sets (with origins)."""
    doc = copy.deepcopy(dict(decoded))
    doc.setdefault("parallelism", 16)
    profiles = doc.get("profiles") or [{}]
    if len(profiles) == 1 and "schedulerName" not in profiles[0]:
        profiles[0]["schedulerName"] = DEFAULT_SCHEDULER_NAME
    merged_all: list[dict[str, MergedSet]] = []
    for i, prof in enumerate(profiles):
        custom = prof.get("plugins", {})
        merged: dict[str, MergedSet] = {}
        v1_plugins: dict[str, Any] = {}
        for point in PLUGIN_SET_FIELDS:
            defaults = (
                tuple(
                    MergedEntry(n, w, None)
                    for n, w in (default_multipoint(gates) if gates else DEFAULT_MULTIPOINT)
                )
                if point == "multiPoint"
                else ()
            )
            ms = merge_plugin_set(defaults, custom.get(point), f"profiles[{i}].plugins.{point}")
            merged[point] = ms
            if ms.enabled or ms.disabled:
                ps: dict[str, Any] = {}
                if ms.enabled:
                    ps["enabled"] = [_v1_plugin(e) for e in ms.enabled]
                if ms.disabled:
                    ps["disabled"] = [{"name": n} for n in ms.disabled]
                v1_plugins[point] = ps
        prof["plugins"] = v1_plugins
        configs = prof.get("pluginConfig", [])
        existing = set()
        for pc in configs:
            existing.add(pc.get("name", ""))
            if pc.get("name") in ARGS_SCHEMAS:
                pc["args"] = default_args(pc["name"], pc.get("args") or {})
        enabled_names = sorted({e.name for ms in merged.values() for e in ms.enabled})
        for name in enabled_names:
            if name not in existing and name in ARGS_SCHEMAS:
                configs.append({"name": name, "args": default_args(name, {})})
        prof["pluginConfig"] = configs
        merged_all.append(merged)
    doc["profiles"] = profiles
    doc.setdefault("percentageOfNodesToScore", 0)
    le = doc.setdefault("leaderElection", {})
    le.setdefault("leaderElect", True)
    for key, value in (
        ("leaseDuration", "15s"),
        ("renewDeadline", "10s"),
        ("retryPeriod", "2s"),
        ("resourceLock", "leases"),
        ("resourceName", "kube-scheduler"),
        ("resourceNamespace", "kube-system"),
    ):
        if not le.get(key) or le.get(key) == "0s":
            le[key] = value
    cc = doc.setdefault("clientConnection", {})
    cc.setdefault("kubeconfig", "")
    cc.setdefault("acceptContentTypes", "")
    if not cc.get("contentType"):
        cc["contentType"] = "application/vnd.kubernetes.protobuf"
    if not cc.get("qps"):
        cc["qps"] = 50.0
    if not cc.get("burst"):
        cc["burst"] = 100
    doc.setdefault("podInitialBackoffSeconds", 1)
    doc.setdefault("podMaxBackoffSeconds", 10)
    doc.setdefault("enableProfiling", True)
    if doc["enableProfiling"]:
        doc.setdefault("enableContentionProfiling", True)
    return doc, merged_all


def _build_profile(
    i: int,
    prof: Mapping[str, Any],
    merged: Mapping[str, MergedSet],
    caps: Capabilities,
    args_checks: Mapping[str, ArgsCheck],
) -> ProfileConfig | FieldError:
    """What ``NewFramework`` does with one defaulted, validated profile."""
    path = f"profiles[{i}]"
    name = prof["schedulerName"]
    needed = {e.name for ms in merged.values() for e in ms.enabled}

    plugin_args = _plugin_args(path, prof, needed, caps, args_checks)
    if isinstance(plugin_args, FieldError):
        return plugin_args
    lists = _point_lists(path, merged, caps)
    if isinstance(lists, FieldError):
        return lists
    if len(lists["queueSort"]) != 1:
        return FieldError(
            f"{path}.plugins.queueSort",
            f'only one queue sort plugin required for profile with scheduler name "{name}",'
            f" but got {len(lists['queueSort'])}",
        )
    if not lists["bind"]:
        return FieldError(
            f"{path}.plugins.bind",
            f'at least one bind plugin is needed for profile with scheduler name "{name}"',
        )
    if len(lists["placementGenerate"]) > 1:
        return FieldError(
            f"{path}.plugins.placementGenerate",
            f'at most one placement generate plugin is allowed for profile with scheduler name "{name}"',
        )

    weights = _score_weights(path, merged, caps)
    if isinstance(weights, FieldError):
        return weights
    plugins: dict[str, tuple[PluginRef, ...]] = {}
    for point in FRAMEWORK_POINT_ORDER:
        w_by_name = weights.get(point, {})
        plugins[point] = tuple(PluginRef(n, w_by_name.get(n, 0)) for n in lists[point])
    ordered = {p: plugins[p] for p in (*EXTENSION_POINTS, "placementGenerate", "placementScore")}
    return ProfileConfig(
        scheduler_name=name,
        plugins=ordered,
        plugin_args=plugin_args,
        percentage_of_nodes_to_score=prof.get("percentageOfNodesToScore"),
    )


def _plugin_args(
    path: str,
    prof: Mapping[str, Any],
    needed: set[str],
    caps: Capabilities,
    args_checks: Mapping[str, ArgsCheck],
) -> dict[str, Any] | FieldError:
    """The args of the profile's plugins, each checked as its constructor would."""
    plugin_args: dict[str, Any] = {}
    for j, pc in enumerate(prof.get("pluginConfig", ())):
        pname = pc.get("name", "")
        if pname not in needed or pname not in caps:
            continue
        args = pc.get("args")
        check = args_checks.get(pname)
        if check is not None:
            if args is not None and not isinstance(args, Mapping):
                return invalid(f"{path}.pluginConfig[{j}].args", args, "must be an object")
            args, problems = check(args or {})
            if problems:
                field, value, msg = problems[0]
                return invalid(f"{path}.pluginConfig[{j}].args.{field}", value, msg)
        errs = validate_args(pname, f"{path}.pluginConfig[{j}].args", args or {})
        if errs:
            return errs[0]
        plugin_args[pname] = args if args is not None else {}

    return plugin_args


def _point_lists(
    path: str, merged: Mapping[str, MergedSet], caps: Capabilities
) -> dict[str, list[str]] | FieldError:
    """Plugin names per extension point, multiPoint expanded as upstream's ``NewFramework``."""

    def where(entry: MergedEntry, point: str) -> str:
        return entry.origin or f"{path}.plugins.{point}"

    lists: dict[str, list[str]] = {}
    for point in FRAMEWORK_POINT_ORDER:
        iface = INTERFACE_NAMES[point]
        names: list[str] = []
        for e in merged[point].enabled:
            if e.name not in caps:
                return FieldError(where(e, point), f'{iface} "{e.name}" does not exist')
            if point not in caps[e.name]:
                return FieldError(
                    where(e, point), f'plugin "{e.name}" does not extend {iface} plugin'
                )
            if e.name in names:
                return FieldError(
                    where(e, point), f'plugin "{e.name}" already registered as "{iface}"'
                )
            names.append(e.name)
        lists[point] = names

    multi = merged["multiPoint"].enabled
    if multi:
        for point in FRAMEWORK_POINT_ORDER:
            iface = INTERFACE_NAMES[point]
            explicit = lists[point]
            disabled = set(merged[point].disabled)
            if "*" in disabled:
                continue
            from_multi: list[str] = []
            overrides: set[str] = set()
            for e in multi:
                if e.name not in caps:
                    return FieldError(where(e, "multiPoint"), f'{iface} "{e.name}" does not exist')
                if point not in caps[e.name] or e.name in disabled:
                    continue
                if e.name in explicit:
                    overrides.add(e.name)
                    continue
                if e.name in from_multi:
                    return FieldError(
                        where(e, "multiPoint"), f'plugin "{e.name}" already registered as "{iface}"'
                    )
                from_multi.append(e.name)
            lists[point] = (
                [n for n in explicit if n in overrides]
                + from_multi
                + [n for n in explicit if n not in overrides]
            )
    return lists


def _score_weights(
    path: str, merged: Mapping[str, MergedSet], caps: Capabilities
) -> dict[str, dict[str, int]] | FieldError:
    """Score (and placement score) weights by plugin; their total may not overflow."""
    multi = merged["multiPoint"].enabled
    weights: dict[str, dict[str, int]] = {}
    for point, label in (("score", "score plugins"), ("placementScore", "placement score plugins")):
        w_by_name: dict[str, int] = {}
        total = 0
        for e in (*merged[point].enabled, *multi):
            if point not in caps.get(e.name, ()) or e.name in w_by_name:
                continue  # an explicit weight for the point takes precedence
            w = e.weight or 1  # a weight of 0 (or none) means 1
            if w * _MAX_SCORE > _MAX_TOTAL_SCORE - total:
                return FieldError(
                    f"{path}.plugins.{point}",
                    f"{label}: total score of Score plugins could overflow",
                )
            total += w * _MAX_SCORE
            w_by_name[e.name] = w
        weights[point] = w_by_name
    return weights


# --- writing ------------------------------------------------------------------------


def _with_args_type_meta(doc: dict[str, Any]) -> dict[str, Any]:
    for prof in doc.get("profiles", ()):
        for pc in prof.get("pluginConfig", ()):
            if pc.get("name") in ARGS_SCHEMAS:
                pc["args"] = {"apiVersion": API_VERSION, "kind": f"{pc['name']}Args", **pc["args"]}
    return doc


def _explicit_document(cfg: SchedulerConfig) -> dict[str, Any]:
    profiles = []
    for p in cfg.profiles:
        plugins: dict[str, Any] = {"multiPoint": {"disabled": [{"name": "*"}]}}
        for point, refs in p.plugins.items():
            entry: dict[str, Any] = {"disabled": [{"name": "*"}]}
            if refs:
                entry["enabled"] = [
                    {"name": r.name, "weight": r.weight}
                    if point in ("score", "placementScore")
                    else {"name": r.name}
                    for r in refs
                ]
            plugins[point] = entry
        prof: dict[str, Any] = {"schedulerName": p.scheduler_name, "plugins": plugins}
        if p.percentage_of_nodes_to_score is not None:
            prof["percentageOfNodesToScore"] = p.percentage_of_nodes_to_score
        prof["pluginConfig"] = [
            {"name": n, "args": copy.deepcopy(dict(a))} for n, a in sorted(p.plugin_args.items())
        ]
        profiles.append(prof)
    doc: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "parallelism": cfg.parallelism,
        "percentageOfNodesToScore": cfg.percentage_of_nodes_to_score or 0,
        "podInitialBackoffSeconds": cfg.pod_initial_backoff_seconds,
        "podMaxBackoffSeconds": cfg.pod_max_backoff_seconds,
        "profiles": profiles,
    }
    return _with_args_type_meta(doc)
