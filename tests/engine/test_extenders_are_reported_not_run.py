"""A configuration's extenders are never called: every answer says so, one line per extender."""

from __future__ import annotations

import json

import yaml

from scheduler_engine import load_cluster
from scheduler_engine.collisions import simulate_colliding
from scheduler_engine.config import extender_warnings, load_config
from scheduler_engine.simulate import simulate
from tests.engine.builders import make_node, make_pod
from tests.engine.test_cli import cli, write

HAMI = {
    "urlPrefix": "http://hami-scheduler.kube-system:443",
    "filterVerb": "filter",
    "bindVerb": "bind",
    "enableHTTPS": False,
    "nodeCacheCapable": True,
    "managedResources": [
        {"name": "nvidia.com/gpu", "ignoredByScheduler": True},
        {"name": "nvidia.com/gpumem", "ignoredByScheduler": True},
    ],
    "ignorable": False,
}
SCORER = {"urlPrefix": "http://scorer:8080", "prioritizeVerb": "prioritize", "weight": 2}
HAMI_LINE = (
    "extender http://hami-scheduler.kube-system:443 (filter, bind; managedResources "
    "nvidia.com/gpu, nvidia.com/gpumem) is not called: Schedlab's answer shows what "
    "the profile's plugins decide without it"
)
SCORER_LINE = (
    "extender http://scorer:8080 (prioritize) is not called: Schedlab's answer shows what "
    "the profile's plugins decide without it"
)


def config_doc(*extenders: dict, profiles: tuple[str, ...] = ("default-scheduler",)) -> dict:
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": p} for p in profiles],
    }
    if extenders:
        doc["extenders"] = list(extenders)
    return doc


OBJECTS = [make_node("n1").cap(cpu=4, memory="8Gi").obj(), make_pod("p").req(cpu=1).obj()]


def test_it_names_each_extender_its_verbs_and_managed_resources():
    assert extender_warnings(config_doc(HAMI, SCORER)) == [HAMI_LINE, SCORER_LINE]


def test_it_says_an_extender_without_verbs_calls_nothing():
    (line,) = extender_warnings(config_doc({"urlPrefix": "http://idle"}))
    assert line.startswith("extender http://idle (no verbs) is not called")


def test_a_configuration_without_extenders_has_no_warning():
    assert extender_warnings(config_doc()) == []
    assert extender_warnings(None) == []


def test_simulate_puts_the_warnings_in_the_summary_and_only_then(tmp_path):
    cluster = load_cluster(write(tmp_path, OBJECTS))
    with_ext = simulate(cluster, load_config(config_doc(HAMI, SCORER))).to_dict()
    assert with_ext["summary"]["warnings"] == [HAMI_LINE, SCORER_LINE]
    assert "warnings" not in simulate(cluster, load_config(config_doc())).to_dict()["summary"]
    assert "warnings" not in simulate(cluster).to_dict()["summary"]


def test_colliding_schedulers_carry_the_warnings_too(tmp_path):
    cluster = load_cluster(write(tmp_path, OBJECTS))
    config = load_config(config_doc(SCORER, profiles=("a", "b")))
    doc = simulate_colliding(cluster, config, lag_cycles=1)
    assert doc["summary"]["warnings"] == [SCORER_LINE]


def test_the_cli_warns_on_stderr_and_in_the_json(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(config_doc(HAMI)))
    out = cli("simulate", "--snapshot", write(tmp_path, OBJECTS), "--config", str(cfg))
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [f"warning: {HAMI_LINE}"]
    assert json.loads(out.stdout)["summary"]["warnings"] == [HAMI_LINE]


def test_the_cli_is_silent_without_extenders(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(config_doc()))
    out = cli("simulate", "--snapshot", write(tmp_path, OBJECTS), "--config", str(cfg))
    assert out.returncode == 0 and out.stderr == ""
    assert "warnings" not in json.loads(out.stdout)["summary"]


def test_validate_config_warns_after_valid(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(config_doc(HAMI, SCORER)))
    out = cli("validate-config", str(cfg))
    assert out.returncode == 0 and out.stdout == f"{cfg}: valid\n"
    assert out.stderr.splitlines() == [f"warning: {HAMI_LINE}", f"warning: {SCORER_LINE}"]
