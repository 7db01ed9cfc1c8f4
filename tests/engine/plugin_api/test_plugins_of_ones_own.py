"""Plugins of one's own: loaded by MODULE:CLASS and by entry point, args checked, errors contained."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

import scheduler_engine
from scheduler_engine import build_cluster, load_cluster, load_config, simulate, validate_config
from scheduler_engine.cli import main
from scheduler_engine.plugin_loader import PluginError, build_registry, clear_cache
from scheduler_engine.scheduler.requeue import POD_ADD, POD_DELETE, worth_requeuing

ROOT = Path(__file__).resolve().parents[3]
DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"
SAMPLES = "tests.engine.plugin_api.sample_plugins"
GPU_MEMORY = "examples.plugins.gpu_memory_score:GPUMemoryScore"


def profile(*enabled, args=None, point="multiPoint"):
    prof = {
        "schedulerName": "default-scheduler",
        "plugins": {point: {"enabled": [{"name": n} for n in enabled]}},
    }
    if args:
        prof["pluginConfig"] = [{"name": n, "args": a} for n, a in args.items()]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [prof],
    }


def write(tmp_path, doc, name="sched.yaml"):
    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc))
    return str(p)


def node(name, labels=None):
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}},
    }


def pod(name):
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }


def test_a_plugin_named_on_the_command_line_filters(tmp_path, capsys):
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump_all([node("a", {"picky/reject": ""}), node("b"), pod("p")]))
    cfg = write(tmp_path, profile("Picky"))
    rc = main(
        [
            "simulate",
            "--snapshot",
            str(snap),
            "--config",
            cfg,
            "--plugin",
            f"{SAMPLES}:Picky",
            "--explain",
        ]
    )
    assert rc == 0
    [r] = json.loads(capsys.readouterr().out)["results"]
    assert r["node"] == "b"
    assert r["filterFailures"]["a"] == {"plugin": "Picky", "reason": "node(s) were picked against"}


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            {"maxPods": -1},
            "profiles[0].pluginConfig[0].args.maxPods: Invalid value: -1: must be non-negative",
        ),
        (
            {"maxPods": "ten"},
            'profiles[0].pluginConfig[0].args.maxPods: Invalid value: "ten": must be an integer',
        ),
        (
            {"rejectLabels": "x"},
            'profiles[0].pluginConfig[0].args.rejectLabels: Invalid value: "x": unknown field '
            "(known: maxPods, ratio, rejectLabel)",
        ),
    ],
)
def test_bad_args_are_named_by_field(tmp_path, capsys, args, line):
    cfg = write(tmp_path, profile("Picky", args={"Picky": args}))
    rc = main(["validate-config", cfg, "--plugin", f"{SAMPLES}:Picky"])
    assert rc == 2
    assert capsys.readouterr().err.strip() == f"{cfg}: KubeSchedulerConfiguration: {line}"


def test_good_args_are_typed_and_defaulted():
    reg = build_registry([f"{SAMPLES}:Picky"])
    cfg = load_config(profile("Picky", args={"Picky": {"ratio": 1}}), **reg.config_kwargs())
    assert cfg.profiles[0].plugin_args["Picky"] == {
        "rejectLabel": "picky/reject",
        "maxPods": 10,
        "ratio": 1.0,
    }


def test_unknown_plugins_are_named(tmp_path, capsys):
    cfg = write(tmp_path, profile("GPUMemoryScore"))
    assert main(["validate-config", cfg]) == 2
    assert '"GPUMemoryScore" does not exist' in capsys.readouterr().err
    assert main(["validate-config", cfg, "--plugin", GPU_MEMORY]) == 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nope_module:X", "plugin nope_module:X: cannot import nope_module"),
        (f"{SAMPLES}:Missing", f"plugin {SAMPLES}:Missing: {SAMPLES} has no Missing"),
        (f"{SAMPLES}:NoPoints", "NoPoints implements no extension point"),
        (f"{SAMPLES}:Clash", "a plugin named NodeResourcesFit already exists (in-tree)"),
        ("not a spec", "must be MODULE:CLASS"),
    ],
)
def test_plugins_that_cannot_load_exit_2_with_one_line(tmp_path, capsys, spec, message):
    cfg = write(tmp_path, profile("NodeName"))
    assert main(["validate-config", cfg, "--plugin", spec]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_plugin_whose_constructor_raises_is_a_bad_input(tmp_path, capsys):
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump_all([node("a"), pod("p")]))
    cfg = write(tmp_path, profile("BrokenInit"))
    rc = main(
        ["simulate", "--snapshot", str(snap), "--config", cfg, "--plugin", f"{SAMPLES}:BrokenInit"]
    )
    assert rc == 2
    assert capsys.readouterr().err.strip() == (
        "plugin BrokenInit: initializing plugin BrokenInit: RuntimeError: no GPU inventory service"
    )


def test_a_plugin_that_raises_is_that_plugins_error_on_that_pod():
    reg = build_registry([f"{SAMPLES}:Exploding"])
    cfg = load_config(profile("Exploding"), **reg.config_kwargs())
    objs = [node("a"), node("b")]
    objs += [pod(n) for n in ("fine-0", "boom-filter", "boom-score", "boom-normalize", "fine-1")]
    out = simulate(build_cluster(objs), cfg, registry=reg).to_dict()
    by_pod = {r["pod"].split("/")[1]: r for r in out["results"]}
    assert by_pod["fine-0"]["status"] == by_pod["fine-1"]["status"] == "Scheduled"
    for name, exc in [
        ("boom-filter", "RuntimeError: filter blew up"),
        ("boom-score", "KeyError: 'score blew up'"),
        ("boom-normalize", "ZeroDivisionError: normalize blew up"),
    ]:
        r = by_pod[name]
        assert r["status"] == "Error", r
        assert "Exploding" in r["message"] and exc in r["message"], r["message"]


def test_requeue_events_come_from_the_plugin():
    reg = build_registry([f"{SAMPLES}:Picky"])
    assert reg.requeue_events() == {"Picky": frozenset()}
    events = reg.requeue_events()
    assert not worth_requeuing({"Picky"}, {POD_ADD, POD_DELETE}, events)
    # a plugin that says nothing is retried after any pod event
    assert worth_requeuing({"Other"}, {POD_ADD}, events)


def test_gpu_memory_score_changes_the_demo_placement_as_documented():
    reg = build_registry([GPU_MEMORY])
    cluster = load_cluster(DEMO)
    default = {r["pod"]: r for r in simulate(cluster, registry=reg).to_dict()["results"]}
    cfg = load_config(profile("GPUMemoryScore"), **reg.config_kwargs())
    mine = simulate(cluster, cfg, registry=reg, explain=True).to_dict()["results"]
    mine = {r["pod"]: r for r in mine}
    nb = "ml-training/notebook-alice"
    assert default[nb]["node"] == "a100-c-1"
    assert mine[nb]["node"] == "a100-c-2"
    scores = mine[nb]["pluginScores"]
    # a100-c-1: 4 free GPUs of 40960 MiB; a100-c-2: 3 free GPUs of 81920 MiB
    assert scores["a100-c-1"]["GPUMemoryScore"]["raw"] == 4 * 40960
    assert scores["a100-c-2"]["GPUMemoryScore"]["raw"] == 3 * 81920
    assert scores["a100-c-2"]["GPUMemoryScore"]["normalized"] == 100
    assert scores["a100-c-1"]["GPUMemoryScore"]["normalized"] == 4 * 40960 * 100 // (3 * 81920)
    # pods without GPUs are not scored by it (PreScore Skip)
    assert "GPUMemoryScore" not in mine["web/frontend-6"]["pluginScores"]["cpu-b-3"]
    changed = {p for p in mine if mine[p]["node"] != default[p]["node"]}
    assert nb in changed


def test_a_plugin_installed_under_the_entry_point_group_is_found(tmp_path):
    pkg = tmp_path / "acme_sched"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        textwrap.dedent(
            """
            class Quota:
                NAME = "AcmeQuota"
                def __init__(self, args, handle):
                    pass
                def filter(self, state, pod, node_info):
                    return None
            """
        )
    )
    dist = tmp_path / "acme_sched-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-sched\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[schedlab.plugins]\nAcmeQuota = acme_sched:Quota\n")
    cfg = write(tmp_path, profile("AcmeQuota"))
    # in a fresh process, as an installed package is found
    out = subprocess.run(
        [sys.executable, "-m", "scheduler_engine", "validate-config", cfg],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert (out.returncode, out.stdout.strip()) == (0, f"{cfg}: valid"), out.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        clear_cache()
        reg = build_registry()
        assert reg.origins["AcmeQuota"] == "entry point AcmeQuota = acme_sched:Quota"
        assert validate_config(profile("AcmeQuota"), **reg.config_kwargs()) == []
    finally:
        sys.path.remove(str(tmp_path))
        clear_cache()


def test_nothing_from_a_profile_is_executed(tmp_path):
    # a profile can only name registered plugins; a MODULE:CLASS in it is just an unknown name
    reg = build_registry()
    errs = validate_config(profile("os:system"), **reg.config_kwargs())
    assert errs and '"os:system" does not exist' in errs[0].one_line()
    with pytest.raises(PluginError):
        build_registry(["os:system"])  # a function, not a plugin class
