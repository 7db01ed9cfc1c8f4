"""Helpers the benchmarks share: their options, environment and database, free ports,
RSS, Celery workers, a synthetic cluster loaded once, percentiles, node objects."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# What the options several benchmarks take mean, wherever they appear.
HELP = {
    "cluster": "the cluster to read, by name",
    "nodes": "nodes of the synthetic cluster",
    "pods": "pods of the synthetic cluster",
    "pending": "pending pods",
    "samples": "timed samples",
    "reload": "re-import even if the cluster exists",
}


def arguments(doc: str | None, **options: Any) -> argparse.ArgumentParser:
    """A parser described by ``doc``'s first paragraph, with an option per keyword:
    ``nodes=5000`` is ``--nodes``, an int of 5000 by default; ``reload=False`` a flag;
    ``(default, help)`` a default with its help, else the help is ``HELP``'s.
    ``--help`` shows every default."""
    ap = argparse.ArgumentParser(
        description=doc.strip().split("\n\n")[0] if doc else None,
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    for name, value in options.items():
        default, text = value if isinstance(value, tuple) else (value, HELP.get(name))
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            ap.add_argument(flag, action="store_true", help=text)
        else:
            ap.add_argument(flag, type=type(default), default=default, help=text)
    return ap


def django_env(database: str, hosts: str, *, redis: bool = False, debug: bool = True) -> None:
    """Default the environment of a benchmark on the dev settings: its own PostgreSQL
    database ``database``, the local Redis (when ``redis``), ``hosts`` allowed."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.dev")
    os.environ.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    if redis:
        os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", hosts)
    if not debug:
        os.environ.setdefault("DJANGO_DEBUG", "0")


def ensure_database(*, fresh: bool = False) -> None:
    """Create the database ``DATABASE_URL`` names if the server does not have it yet
    (``fresh``: drop it first, whoever is connected to it)."""
    import psycopg

    url = os.environ["DATABASE_URL"]
    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def setup_django() -> None:
    """Create the benchmark's database if needed (``ensure_database``), set Django up and
    migrate, so a bench database left by an older tree is brought up to date before
    anything reads it."""
    ensure_database()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def superuser(username: str) -> Any:
    """The superuser ``username``, made on first use."""
    from django.contrib.auth.models import User

    return User.objects.get_or_create(username=username, defaults={"is_superuser": True})[0]


def logged_in_client(user: Any) -> Any:
    """Django's test client (middleware, session, templates: the whole server side),
    logged in as ``user``."""
    from django.test import Client

    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    return client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int, *, peak: bool = False) -> int:
    """A process's resident set, MiB (0 once it is gone); ``peak``: its highest so far."""
    field = "VmHWM:" if peak else "VmRSS:"
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) // 1024
    return 0


def start_worker(
    queue: str | None,
    name: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    heartbeat: bool = True,
) -> subprocess.Popen:
    """A Celery worker process (solo pool) on ``queue`` (else the default queue), named
    ``name@host`` when given, ``env`` added to this process's environment; the tests'
    workers (tests/support/fixtures.py) run without heartbeats."""
    args = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "schedlab",
        "worker",
        "--pool=solo",
        "--loglevel=WARNING",
        "--without-gossip",
        "--without-mingle",
    ]
    if not heartbeat:
        args.append("--without-heartbeat")
    if name is not None:
        args += ["-n", f"{name}@%h"]
    if queue is not None:
        args += ["-Q", queue]
    return subprocess.Popen(args, env={**os.environ, **(env or {})}, cwd=ROOT)


def start_daphne(
    port: int, env: Mapping[str, str], processes: int = 0, extra: Sequence[str] = ()
) -> subprocess.Popen:
    """The ASGI server (Daphne) on 127.0.0.1:``port`` with environment ``env``; the access
    log dropped, the application log on a text pipe (``proc.stderr``). With ``processes``,
    that many Daphne processes, a socket each, as production runs them (``schedlab.serve``;
    ``extra``: more of its arguments)."""
    server = ["schedlab.serve", "--processes", str(processes), *extra] if processes else ["daphne"]
    args = [sys.executable, "-m", *server, "-b", "127.0.0.1", "-p", str(port)]
    return subprocess.Popen(
        [*args, "schedlab.asgi:application"],
        env=dict(env),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def synthetic_cluster(
    name: str,
    loaded: Callable[[Any], bool],
    objects: Callable[[], list[dict[str, Any]]],
    *,
    reload: bool = False,
) -> Any:
    """The snapshot cluster ``name``, (re)imported from ``objects()`` unless ``loaded(cluster)``
    says it already holds them (or ``reload``); migrates first, ANALYZEs after."""
    from django.core.management import call_command
    from django.db import connection

    from dashboard.cluster.models import Cluster
    from dashboard.cluster.services.clusters import ensure_snapshot_cluster
    from dashboard.cluster.services.snapshots import import_objects

    call_command("migrate", verbosity=0)
    cluster = ensure_snapshot_cluster(name, "synthetic")
    if reload or not loaded(cluster):
        t0 = time.perf_counter()
        Cluster.objects.filter(pk=cluster.pk).delete()
        cluster = ensure_snapshot_cluster(name, "synthetic")
        objs = objects()
        import_objects(cluster, objs)
        print(f"loaded {len(objs)} objects into {name} in {time.perf_counter() - t0:.1f} s")
    with connection.cursor() as cur:
        cur.execute("ANALYZE")
    return cluster


def zoned_node(
    name: str,
    zone: str,
    resources: Mapping[str, str],
    *,
    taints: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """A Node with its hostname and zone labels, allocatable as large as capacity."""
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
        },
        "status": {"capacity": dict(resources), "allocatable": dict(resources)},
    }
    if taints:
        obj["spec"] = {"taints": taints}
    return obj


def pct(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``xs``, nearest rank."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]
