"""``python -m schedlab.probe web|worker|mirror``: the container health checks.

One line on stdout and exit status 0 (healthy) or 1. Used by the image's
HEALTHCHECK (web), docker-compose.yml (worker, mirror) and the Kubernetes
exec probes (deploy/kubernetes/).

- ``web``: ``GET /readyz`` on the local server answers 200.
- ``worker``: this container's Celery node answers a ping through the broker.
- ``mirror``: the database answers (the mirror retries the API server itself;
  its status per cluster is on the cluster's page).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import urllib.error
import urllib.request

__all__ = ["main"]

TIMEOUT = 4.0


def probe_web(port: int) -> tuple[bool, str]:
    url = f"http://127.0.0.1:{port}/readyz"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:
            return True, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return False, f"{url}: HTTP {exc.code} {exc.read().decode(errors='replace')}"
    except OSError as exc:
        return False, f"{url}: {exc}"


def probe_worker(node: str) -> tuple[bool, str]:
    # Imported here: each probe loads only what it checks (they run every few seconds).
    from schedlab.celery import app

    try:
        # limit=1: return at the first (only possible) reply, not at the timeout.
        replies = app.control.ping(destination=[node], timeout=TIMEOUT, limit=1)
    except Exception as exc:  # broker unreachable, refused, ...
        return False, f"{node}: {type(exc).__name__}: {exc}"
    if any(node in reply for reply in replies):
        return True, f"{node}: pong"
    return False, f"{node}: no reply within {TIMEOUT:.0f}s"


def probe_mirror() -> tuple[bool, str]:
    # Settings and a database connection only: no django.setup(), which costs
    # seconds of CPU on a busy node, every time the probe runs.
    from schedlab.health import database_status

    database = database_status()
    if database != "ok":
        return False, f"database {database}"
    return True, "database ok"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m schedlab.probe", description=__doc__)
    parser.add_argument("role", choices=("web", "worker", "mirror"))
    parser.add_argument("--port", type=int, default=8000, help="web: the server's port")
    parser.add_argument(
        "--node",
        default=f"celery@{socket.gethostname()}",
        help="worker: the Celery node name (default celery@HOSTNAME)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.production")
    if args.role == "web":
        ok, message = probe_web(args.port)
    elif args.role == "worker":
        ok, message = probe_worker(args.node)
    else:
        ok, message = probe_mirror()
    print(f"{args.role}: {'healthy' if ok else 'unhealthy'}: {message}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
