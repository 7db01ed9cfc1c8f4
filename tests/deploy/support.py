"""Running Schedlab's own processes under production settings, as a container would."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# What a deployment must provide; each test removes or spoils one of them.
GOOD_ENV = {
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    "DATABASE_URL": "postgres://schedlab@127.0.0.1:9/schedlab",  # never connected to
    "REDIS_URL": "redis://127.0.0.1:9/0",
    "DJANGO_ALLOWED_HOSTS": "schedlab.example",
}
_OURS = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "LOG_", "CELERY_", "SCHEDLAB_")


def production(
    *args: str, env: dict[str, str] | None = None, settings: str = "schedlab.settings.production"
) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in the project directory with only ``env`` as configuration."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": settings, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_under(env: dict[str, str], names: tuple[str, ...]) -> dict[str, Any]:
    """The values production settings give ``names`` under ``env`` (one process)."""
    code = (
        "import json; from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {list(names)!r}}}))"
    )
    result = production("-c", code, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
