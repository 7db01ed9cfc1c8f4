"""SCHEDLAB_PLUGINS: profile validation, dry-runs and the system check know installed plugins."""

from __future__ import annotations

from django.core.checks import run_checks
from django.test import override_settings

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.results import read_results
from dashboard.dryruns.services.runner import run_dry_run

SPEC = "examples.plugins.gpu_memory_score:GPUMemoryScore"


def _profile(args: str = "") -> str:
    doc = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: GPUMemoryScore
"""
    if args:
        doc += f"""\
  pluginConfig:
  - name: GPUMemoryScore
    args: {args}
"""
    return doc


def _validate(client, document):
    r = client.post("/api/v1/profiles/validate/", {"document": document}, format="json")
    assert r.status_code == 200, r.content
    return r.json()


@override_settings(SCHEDLAB_PLUGINS="")
def test_an_unknown_plugin_is_named(operator, db):
    body = _validate(operator, _profile())
    assert body["valid"] is False
    assert any('"GPUMemoryScore" does not exist' in e["message"] for e in body["errors"]), body


@override_settings(SCHEDLAB_PLUGINS=SPEC)
def test_a_plugin_from_settings_validates_and_bad_args_name_the_field(operator, db):
    assert _validate(operator, _profile())["valid"] is True
    body = _validate(operator, _profile('{resourceName: ""}'))
    assert body["valid"] is False
    [err] = body["errors"]
    assert err["field"] == "document.profiles[0].pluginConfig[0].args.resourceName", err
    assert err["message"] == 'Invalid value: "": must not be empty'
    r = operator.post(
        "/api/v1/profiles/",
        {"name": "gpu-mem", "document": _profile("{memoryLabels: x}")},
        format="json",
    )
    assert r.status_code == 400
    assert "document.profiles[0].pluginConfig[0].args.memoryLabels" in r.json()


@override_settings(SCHEDLAB_PLUGINS=SPEC)
def test_a_dry_run_schedules_with_the_plugin(demo_cluster):
    run = create_dry_run(
        demo_cluster, source=DryRun.Source.MIRROR, inline_config=_profile(), explain=True
    )
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    run = DryRun.objects.get(pk=run.pk)
    results = {r["pod"]: r for r in read_results(run, 0, run.result_count)}
    nb = results["ml-training/notebook-alice"]
    assert nb["node"] == "a100-c-2"
    assert nb["pluginScores"]["a100-c-2"]["GPUMemoryScore"]["normalized"] == 100


@override_settings(SCHEDLAB_PLUGINS="no_such_module:Plugin")
def test_the_system_check_names_a_plugin_that_does_not_load(db):
    errors = [e for e in run_checks() if e.id == "dryruns.E001"]
    assert len(errors) == 1
    assert errors[0].msg.startswith("SCHEDLAB_PLUGINS: plugin no_such_module:Plugin: cannot import")


@override_settings(SCHEDLAB_PLUGINS=SPEC)
def test_live_explanations_run_the_active_profiles_plugin(db):
    from dashboard.cluster.services.clusters import ensure_snapshot_cluster
    from dashboard.cluster.services.snapshots import import_snapshot
    from dashboard.dryruns.services.profiles import apply_version, create_profile
    from dashboard.explain import live
    from tests.support.fixtures import DEMO

    live.forget()
    import_snapshot(DEMO, "gpu-mem")
    cluster = ensure_snapshot_cluster("gpu-mem", str(DEMO))
    assert live.explain_pod(cluster, "ml-training", "notebook-alice")["node"] == "a100-c-1"
    version = create_profile(name="gpu-mem", document=_profile())
    apply_version(cluster, version, force=True)
    live.forget()
    r = live.explain_pod(cluster, "ml-training", "notebook-alice")
    assert r["node"] == "a100-c-2"
    assert r["pluginScores"]["a100-c-2"]["GPUMemoryScore"]["normalized"] == 100


@override_settings(SCHEDLAB_PLUGINS=SPEC)
def test_the_editor_completes_the_plugin_and_its_args(viewer, db):
    r = viewer.get("/api/v1/profiles/schema/")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["plugins"]["GPUMemoryScore"] == ["preScore", "score"]
    args = body["pluginArgs"]["GPUMemoryScore"]
    assert args["additionalProperties"] is False
    assert args["properties"]["resourceName"] == {"type": "string", "default": "nvidia.com/gpu"}
    assert args["properties"]["draDrivers"] == {
        "type": "array",
        "items": {"type": "string"},
        "default": ["gpu.nvidia.com"],
    }
