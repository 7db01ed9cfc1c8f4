"""The compose services and the Kubernetes workloads run commands, probes and users
that exist in the project and the image."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator

import pytest
import yaml
from django.core.management import get_commands, load_command_class

from schedlab.health import HEALTH_PATHS
from schedlab.probe import main as probe_main
from schedlab.serve import parse_args as serve_args

from .kubernetes import BASE, render
from .support import ROOT

COMPOSE_FILES = sorted(ROOT.glob("docker-compose*.yml"))
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def _check_command(command: list[str], where: str) -> None:
    """The command starts something the project has, with arguments it accepts."""
    if command[:2] == ["python", "manage.py"]:
        name, args = command[2], command[3:]
        assert name in get_commands(), f"{where}: no management command {name}"
        parser = load_command_class(get_commands()[name], name).create_parser("manage.py", name)
        # $(VAR) (Kubernetes) and ${VAR} (compose) are filled in at run time
        parser.parse_args([re.sub(r"\$[({][^)}]*[)}]", "x", a) for a in args])
    elif command[:3] == ["python", "-m", "schedlab.probe"]:
        with pytest.raises(SystemExit) as exc:  # --help: parses, prints, exits 0
            probe_main([*command[3:], "--help"])
        assert exc.value.code == 0, f"{where}: {command}"
    elif command[:3] == ["python", "-m", "schedlab.serve"]:
        # ${VAR} (compose) is filled in at run time
        args, daphne_args = serve_args([re.sub(r"\$\{[^}]*\}", "2", a) for a in command[3:]])
        assert args.processes >= 1, where
        _check_command(["daphne", *daphne_args], where)
    elif command[0] == "celery":
        app = command[command.index("-A") + 1]
        assert importlib.import_module(app).celery_app.main == "schedlab", where
        assert "worker" in command, where
    elif command[0] == "daphne":
        module, attr = command[-1].split(":")
        assert callable(getattr(importlib.import_module(module), attr)), where
    elif command[:2] == ["sh", "-c"]:
        for part in re.findall(r"python manage\.py [^;|&>]+", command[2]):
            _check_command(part.split(), where)
    else:
        pytest.fail(f"{where}: unexpected command {command}")


def _compose_services() -> Iterator[tuple[str, dict]]:
    for path in COMPOSE_FILES:
        for name, service in (yaml.safe_load(path.read_text())["services"]).items():
            yield f"{path.name}: {name}", service


def test_every_compose_command_and_health_check_exists():
    checked = 0
    for where, service in _compose_services():
        if service.get("image", "").startswith(("postgres", "redis", "schedlab/")):
            continue
        if "command" in service:
            command = service["command"]
            if command[:2] == ["python", "/src/scripts/compose_check/kubeapi.py"]:
                assert (ROOT / command[1].removeprefix("/src/")).exists()
            else:
                _check_command(command, where)
            checked += 1
        test = (service.get("healthcheck") or {}).get("test")
        if test and test[0] == "CMD" and test[1:4] == ["python", "-m", "schedlab.probe"]:
            _check_command(test[1:], where)
    assert checked >= 5  # migrate, web, worker, mirror, kubeapi


def _containers(objects, *, serving: bool = False) -> Iterator[tuple[str, dict, dict]]:
    """Every container of the workloads; ``serving``: only Deployments' main containers."""
    for obj in objects:
        if obj["kind"] in ("Deployment", "Job"):
            pod = obj["spec"]["template"]["spec"]
            containers = pod["containers"]
            if not serving:
                containers = pod.get("initContainers", []) + containers
            elif obj["kind"] != "Deployment":
                continue
            for container in containers:
                yield f"{obj['kind']} {obj['metadata']['name']}/{container['name']}", pod, container


def test_every_kubernetes_command_and_probe_exists():
    for where, _, container in _containers(render(BASE)):
        _check_command(container["command"], where)
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            spec = container.get(probe)
            if not spec:
                continue
            if "httpGet" in spec:
                assert spec["httpGet"]["path"] in HEALTH_PATHS, where
            else:
                _check_command(spec["exec"]["command"], f"{where} {probe}")


def test_long_running_containers_have_probes_resources_and_no_root():
    user = re.search(r"^USER (\d+):(\d+)$", DOCKERFILE, re.M)
    assert user, "the Dockerfile runs as a numeric user"
    for where, pod, container in _containers(render(BASE)):
        security = pod["securityContext"]
        assert security["runAsNonRoot"] is True
        assert (security["runAsUser"], security["runAsGroup"]) == tuple(map(int, user.groups()))
        assert security["seccompProfile"] == {"type": "RuntimeDefault"}
        c = container["securityContext"]
        assert c["allowPrivilegeEscalation"] is False and c["readOnlyRootFilesystem"] is True
        assert c["capabilities"] == {"drop": ["ALL"]}
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]), where
        assert "memory" in container["resources"]["limits"], where
        assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"], where
    serving = list(_containers(render(BASE), serving=True))
    assert len(serving) == 3  # web, worker, mirror
    for where, _, container in serving:
        assert "livenessProbe" in container, where


def test_the_image_is_what_the_workloads_run():
    for where, _, container in _containers(render(BASE)):
        assert container["image"] == "schedlab:latest", where
    for name in ("manage.py", "schedlab", "dashboard", "scheduler_engine", "templates", "static"):
        assert f"COPY {name} " in DOCKERFILE and (ROOT / name).exists()
        assert f"!{name}" in (ROOT / ".dockerignore").read_text()
    assert "HEALTHCHECK" in DOCKERFILE and "collectstatic" in DOCKERFILE
    assert "check --deploy --fail-level WARNING" in DOCKERFILE
