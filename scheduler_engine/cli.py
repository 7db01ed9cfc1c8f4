"""The engine's command line: ``python -m scheduler_engine simulate|validate-config``.

``simulate`` prints the JSON document of the contract in ``DESIGN.md`` (or a
table); bad input — a snapshot or configuration the engine cannot use — exits
with status 2 and one line on stderr naming the file, the object and the
field, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from .cascade import MAX_CASCADE_DEPTH
from .cluster import load_cluster
from .config import extender_warnings, load_config, validate_config
from .errors import ConfigError, InputError
from .features import parse_feature_gates
from .framework.registry import Registry
from .plugin_loader import build_registry
from .plugins.gpupolicies import POLICIES
from .replay.run import MODES, TIE_BREAKS

__all__ = ["main", "render_replay_table", "render_table"]

EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scheduler_engine",
        description="A faithful kube-scheduler (v1.36) simulator.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="schedule the pending pods of a snapshot")
    s.add_argument("--snapshot", required=True, help="YAML/JSON file or directory of objects")
    s.add_argument("--config", help="KubeSchedulerConfiguration (default: upstream's)")
    s.add_argument("--seed", type=int, default=0, help="seed of the random choices (default 0)")
    s.add_argument(
        "--explain",
        action="store_true",
        help="per-node, per-plugin detail; for unschedulable pods, nearest nodes and verified fixes",
    )
    s.add_argument(
        "--controllers",
        action="store_true",
        help="first do what kube-controller-manager would for the pending pods "
        "(ResourceClaims from templates, Immediate PVCs bound)",
    )
    s.add_argument(
        "--cascade",
        type=_depth,
        default=0,
        metavar="DEPTH",
        help="follow preemption's cascade: victims a ReplicaSet, ReplicationController, "
        "StatefulSet, Job or DaemonSet owns come back as pending pods and are scheduled in turn, down to DEPTH levels of "
        "evictions (summary.cascade)",
    )
    s.add_argument("--format", choices=("json", "table"), default="json")
    s.add_argument(
        "--feature-gates",
        default="",
        metavar="A=true,B=false",
        help="feature gates, as kube-scheduler takes them (e.g. GenericWorkload=true,"
        "GangScheduling=true for the native workload API)",
    )
    s.add_argument(
        "--hardware-view",
        action="store_true",
        help="schedule with each GPU node's hardware GPU count (GFD labels, ResourceSlice "
        "devices) instead of nvidia.com/gpu, and report placements on GPUs that do not exist",
    )
    s.add_argument(
        "--scheduler-lag",
        type=int,
        metavar="CYCLES",
        help="run each profile as its own scheduler whose cache sees the others' bindings "
        "CYCLES scheduling cycles late, and report the placements the kubelet refuses "
        "(collisions; needs two or more profiles)",
    )
    r = sub.add_parser("replay", help="replay a workload trace (openb CSV or JSON lines)")
    r.add_argument("--nodes", help="node list: openb CSV, or JSON lines of Node records")
    r.add_argument("--pods", required=True, help="pod list: openb CSV, or a JSON-lines trace")
    r.add_argument(
        "--config", help="KubeSchedulerConfiguration (default: upstream's + OpenGpuShare)"
    )
    r.add_argument("--policy", choices=sorted(POLICIES), help="one of the FGD paper's policies")
    r.add_argument("--seed", type=int, default=42, help="seed of the shuffle, draws and ties (42)")
    r.add_argument("--mode", choices=MODES, default="inflate")
    r.add_argument("--inflate", type=float, default=1.3, help="target GPU requests x capacity")
    r.add_argument(
        "--tie-break",
        choices=TIE_BREAKS,
        help="equal top scores: rank (the FGD simulator, default with --policy), random "
        "(seeded, the default otherwise) or heap (kube-scheduler's)",
    )
    r.add_argument(
        "--percentage-of-nodes-to-score",
        type=int,
        metavar="PCT",
        help="override the configuration's percentageOfNodesToScore (1-100; 0 = adaptive)",
    )
    r.add_argument("--format", choices=("json", "table"), default="json")
    r.add_argument("--no-timeline", action="store_true", help="leave the per-step timeline out")
    r.add_argument(
        "--exact-messages",
        action="store_true",
        help="word failures as kube-scheduler does (slower when many pods fail)",
    )
    r.add_argument("--print-config", action="store_true", help="print the configuration and exit")
    v = sub.add_parser("validate-config", help="check a KubeSchedulerConfiguration")
    v.add_argument("file")
    for cmd in (s, r, v):
        cmd.add_argument(
            "--plugin",
            action="append",
            default=[],
            metavar="MODULE:CLASS",
            help="a plugin class to register beside the in-tree and installed ones (repeatable)",
        )
    return p


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if not 1 <= value <= MAX_CASCADE_DEPTH:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_CASCADE_DEPTH}")
    return value


def _registry(args: argparse.Namespace) -> Registry:
    """In-tree plugins, those installed under ``schedlab.plugins``, and ``--plugin`` ones."""
    return build_registry(args.plugin)


def _config_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return _registry(args).config_kwargs()


def _simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .simulate import simulate

    gates = parse_feature_gates(args.feature_gates) if args.feature_gates else None
    registry = _registry(args)
    cluster = load_cluster(args.snapshot)
    config = (
        load_config(args.config, feature_gates=gates, **registry.config_kwargs())
        if args.config
        else None
    )
    if config is not None:
        _warn(config.source, err)
    kwargs = {
        "seed": args.seed,
        "explain": args.explain,
        "whatif": args.explain,
        "registry": registry,
        "controllers": args.controllers,
        "feature_gates": gates,
    }
    if args.cascade:
        if args.scheduler_lag is not None:
            raise InputError(
                "cannot be combined with --scheduler-lag", obj="simulate", field="--cascade"
            )
        kwargs["cascade_depth"] = args.cascade
    if args.scheduler_lag is not None:
        from .collisions import simulate_colliding

        try:
            doc = simulate_colliding(
                cluster,
                config,
                lag_cycles=args.scheduler_lag,
                seed=args.seed,
                registry=registry,
                feature_gates=gates,
            )
        except InputError as exc:
            if exc.field == "profiles":
                exc.file = args.config or "the default configuration"
            elif exc.field == "lagCycles":
                exc.obj, exc.field = "simulate", "--scheduler-lag"
            raise InputError(exc.message, file=exc.file, obj=exc.obj, field=exc.field) from None
    elif args.hardware_view:
        from .hardware_view import simulate_hardware_view

        doc = simulate_hardware_view(cluster, config, **kwargs)
    else:
        doc = simulate(cluster, config, **kwargs).to_dict()
    if args.format == "table":
        out.write(render_table(doc))
    else:
        json.dump(doc, out, indent=2)
        out.write("\n")
    return 0


def _replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .replay import (
        ReplayOptions,
        default_config_doc,
        policy_config_doc,
        read_trace,
        replay,
        trace_typical_pods,
        with_percentage_of_nodes_to_score,
        with_typical_pods,
    )

    if args.config and args.policy:
        raise InputError("give --config or --policy, not both", obj="replay", field="--policy")
    if args.inflate <= 0:
        raise InputError(f"must be positive, got {args.inflate}", obj="replay", field="--inflate")
    registry = _registry(args)
    if args.config:
        config = load_config(args.config, **registry.config_kwargs())
        _warn(config.source, err)
    else:
        doc = policy_config_doc(args.policy) if args.policy else default_config_doc()
        label = f"--policy {args.policy}" if args.policy else "the default profile"
        config = load_config(doc, file=label, **registry.config_kwargs())
    pct = args.percentage_of_nodes_to_score
    if pct is not None:
        if not 0 <= pct <= 100:
            raise InputError(
                f"must be between 0 and 100, got {pct}",
                obj="replay",
                field="--percentage-of-nodes-to-score",
            )
        config = with_percentage_of_nodes_to_score(config, pct)
    if args.print_config:
        json.dump(dict(config.source or {}), out, indent=2)
        out.write("\n")
        return 0
    trace = read_trace(args.nodes, args.pods)
    typical = trace_typical_pods(trace)
    config = with_typical_pods(config, typical)
    tie = args.tie_break or ("rank" if args.policy else "random")
    options = ReplayOptions(args.mode, args.inflate, args.seed, tie, args.policy)
    doc = replay(
        trace,
        config,
        options,
        registry=registry,
        typical=typical,
        exact_messages=args.exact_messages,
    )
    if args.no_timeline:
        doc.pop("timeline", None)
    if args.format == "table":
        out.write(render_replay_table(doc))
    else:
        json.dump(doc, out, separators=(",", ":") if "timeline" in doc else None)
        out.write("\n")
    return 0


def render_replay_table(doc: dict[str, Any]) -> str:
    """The summary and the unallocated-GPU curve from 80% of arrived workload on."""
    s = doc["summary"]
    lines = [f"{k}: {v}" for k, v in s.items() if k != "failureReasons"]
    lines.append("")
    lines.append("ARRIVED%  UNALLOCATED%")
    for p in doc.get("curve", []):
        if p["arrivedGpuPercent"] >= 80:
            lines.append(f"{p['arrivedGpuPercent']:>8}  {p['unallocatedGpuPercent']:>12}")
    return "\n".join(lines) + "\n"


def _validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    kwargs = _config_kwargs(args)  # the plugins are loaded once, for both steps
    errors = validate_config(args.file, **kwargs)
    if errors:
        for e in errors:
            err.write(e.one_line() + "\n")
        return EXIT_BAD_INPUT
    out.write(f"{args.file}: valid\n")
    _warn(load_config(args.file, **kwargs).source, err)
    return 0


def _warn(doc: Mapping[str, Any] | None, err: TextIO) -> None:
    """What the run leaves out of the configuration, one ``warning:`` line each on stderr."""
    for line in extender_warnings(doc):
        err.write(f"warning: {line}\n")


def render_table(doc: dict[str, Any]) -> str:
    """A readable table of the results, then the summary line."""
    rows = [("POD", "STATUS", "NODE", "NOMINATED", "MESSAGE")]
    for r in doc["results"]:
        msg = r["message"]
        if r["victims"]:
            msg += f" [victims: {', '.join(r['victims'])}]"
        rows.append((r["pod"], r["status"], r["node"] or "-", r["nominatedNode"] or "-", msg))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths, strict=True)) + "  " + row[4]
        for row in rows
    ]
    for p in (doc.get("hardwareView") or {}).get("phantomPlacements", ()):
        lines.append(f"hardware view: {p['message']}")
    for f in (doc.get("collisions") or {}).get("refused", ()):
        lines.append(
            f"kubelet on {f['node']} refuses {f['pod']} ({f['profile']}): {f['reason']}: "
            f"{f['message']}"
        )
    s = doc["summary"]
    counts = ", ".join(f"{k} {v}" for k, v in s.get("counts", {}).items())
    lines.append("")
    lines.append(
        f"{s.get('pods', 0)} pods on {s.get('nodes', 0)} nodes: {counts}; "
        f"seed {s.get('seed')}, profiles {', '.join(s.get('profiles', []))}"
    )
    return "\n".join(line.rstrip() for line in lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "simulate":
            return _simulate(args, sys.stdout, sys.stderr)
        if args.command == "replay":
            return _replay(args, sys.stdout, sys.stderr)
        return _validate(args, sys.stdout, sys.stderr)
    except (InputError, ConfigError) as exc:
        sys.stderr.write(exc.one_line().replace("\n", " ") + "\n")
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
