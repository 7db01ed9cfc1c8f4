"""The controllers a dry-run stands in for (``simulate(controllers=True)``, ``--controllers``).

Without them the engine is a bare scheduler: a pod whose claim template has
no claim yet is held back (``Skipped``) and an unbound Immediate PVC fails
the pod.  With them the resourceclaim controller's claim and the PV
controller's binding exist before scheduling, and the summary says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from scheduler_engine import build_cluster, simulate
from scheduler_engine.cli import main as cli_main
from scheduler_engine.controllers import claim_generate_name

from .builders import make_node, make_pod
from .plugins.storage_objects import pv, pvc, storage_class
from .plugins.test_dynamicresources import GPU, dclass, gpus


def template(name: str, count: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "metadata": {"labels": {"team": "ml"}},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": GPU,
                                "allocationMode": "ExactCount",
                                "count": count,
                            },
                        }
                    ]
                }
            },
        },
    }


def template_pod(name: str = "train", tmpl: str = "one-gpu") -> dict[str, Any]:
    p = make_pod(name).req(cpu="100m").obj()
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": tmpl}]
    return p


def dra_cluster() -> list[dict[str, Any]]:
    return [
        dclass(GPU, f'device.driver == "{GPU}"'),
        make_node("cpu").cap(cpu="8", memory="32Gi", pods=110).obj(),
        make_node("gpu").cap(cpu="8", memory="32Gi", pods=110).obj(),
        gpus("gpu", 2),
        template("one-gpu"),
    ]


def run(objs: list[dict[str, Any]], controllers: bool) -> dict[str, Any]:
    return simulate(build_cluster(objs), seed=1, controllers=controllers).to_dict()


def test_without_controllers_the_template_claim_is_missing_and_the_pod_skipped() -> None:
    doc = run([*dra_cluster(), template_pod()], controllers=False)
    [r] = doc["results"]
    assert r["status"] == "Skipped" and r["message"] is None
    assert "controllers" not in doc["summary"]


def test_the_resourceclaim_controller_makes_the_claim_and_the_pod_gets_its_device() -> None:
    doc = run([*dra_cluster(), template_pod()], controllers=True)
    [r] = doc["results"]
    assert r["status"] == "Scheduled" and r["node"] == "gpu"
    [made] = doc["summary"]["controllers"]["resourceClaims"]
    assert made["pod"] == "default/train" and made["template"] == "one-gpu"
    name = made["claim"].split("/", 1)[1]
    assert name.startswith("train-gpu-") and len(name) == len("train-gpu-") + 5
    [alloc] = r["allocations"]
    assert alloc["claim"] == made["claim"] and alloc["allocatedNow"] is True


def test_claims_are_named_the_same_on_every_run_and_per_pod() -> None:
    objs = [*dra_cluster(), template_pod("a"), template_pod("b")]
    first = run(objs, controllers=True)["summary"]["controllers"]["resourceClaims"]
    again = run(objs, controllers=True)["summary"]["controllers"]["resourceClaims"]
    assert first == again and len({c["claim"] for c in first}) == 2


def test_a_missing_template_is_reported_and_the_pod_stays_held_back() -> None:
    doc = run([*dra_cluster(), template_pod(tmpl="nope")], controllers=True)
    [r] = doc["results"]
    assert r["status"] == "Skipped"
    assert doc["summary"]["controllers"]["problems"] == [
        {
            "pod": "default/train",
            "message": 'resource claim template "nope": '
            'resourceclaimtemplate.resource.k8s.io "nope" not found',
        }
    ]


def test_long_names_are_cut_in_proportion() -> None:
    assert claim_generate_name("p", "gpu") == "p-gpu-"
    long = claim_generate_name("x" * 50, "y" * 20)
    # 72 characters: each part keeps len * 57 // 72 of itself
    assert long == "x" * 39 + "-" + "y" * 15


def pvc_pod(claim: str) -> dict[str, Any]:
    return make_pod("db").req(cpu="100m").pvc(claim).obj()


def storage(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        make_node("n").cap(cpu="8", memory="32Gi", pods=110).obj(),
        storage_class("fast", mode="Immediate"),
        storage_class("local", mode="WaitForFirstConsumer"),
        *extra,
    ]


def test_an_unbound_immediate_claim_fails_the_bare_scheduler() -> None:
    objs = storage(pvc("data", "fast", request="5Gi"), pv("big", "fast", capacity="10Gi"))
    r = run([*objs, pvc_pod("data")], controllers=False)["results"][0]
    assert r["status"] == "Unschedulable"
    assert "pod has unbound immediate PersistentVolumeClaims" in r["message"]


def test_the_pv_controller_binds_the_smallest_matching_volume() -> None:
    objs = storage(
        pvc("data", "fast", request="5Gi"),
        pvc("later", "local", request="1Gi"),
        pv("big", "fast", capacity="100Gi"),
        pv("small", "fast", capacity="6Gi"),
        pv("tiny", "fast", capacity="1Gi"),
        pv("rwx-only", "fast", capacity="5Gi", modes=("ReadWriteMany",)),
        pv("other-class", "slow", capacity="5Gi"),
        pv("local-1", "local", capacity="1Gi"),
    )
    doc = run([*objs, pvc_pod("data")], controllers=True)
    assert doc["results"][0]["status"] == "Scheduled"
    # WaitForFirstConsumer claims are the scheduler's to bind, not the controller's
    assert doc["summary"]["controllers"]["volumeBindings"] == [
        {"claim": "default/data", "volume": "small"}
    ]


def test_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump_all([*dra_cluster(), template_pod()]))
    base = ["simulate", "--snapshot", str(snap)]
    assert cli_main(base) == 0
    bare = json.loads(capsys.readouterr().out)
    assert cli_main([*base, "--controllers"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert bare["results"][0]["status"] == "Skipped" and "controllers" not in bare["summary"]
    assert doc["results"][0]["status"] == "Scheduled"
    assert len(doc["summary"]["controllers"]["resourceClaims"]) == 1
