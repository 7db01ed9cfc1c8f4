"""The first explanation request after a web server starts, with and without the prewarm.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_dryrun \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/explain_prewarm.py

Needs the ``bench-live`` cluster that ``benchmarks/dryrun.py --only-explain`` loads
(5,000 nodes / 50,000 pods).  For each case a fresh Daphne (dev settings) is
started on that database; the first request to the explanation endpoint is sent
either as soon as /healthz answers ("at once": it waits for the build under
way) or once the prewarm thread logged that it is done ("after prewarm"),
then --samples more requests.  Wall times from the client, over HTTP.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import common  # noqa: E402

common.django_env("schedlab_bench_dryrun", "127.0.0.1,localhost", redis=True)


def _case(url_path: str, auth: str, prewarm: bool, at_once: bool, samples: int) -> str:
    port = common.free_port()
    env = {**os.environ, "SCHEDLAB_EXPLAIN_PREWARM": "1" if prewarm else "0", "LOG_LEVEL": "INFO"}
    t0 = time.perf_counter()
    proc = common.start_daphne(port, env)
    done = threading.Event()
    warm_at: list[float] = []

    def read_log() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            if "explanation prewarm" in line:
                warm_at.append(time.perf_counter() - t0)
                done.set()

    threading.Thread(target=read_log, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.05)
        up = time.perf_counter() - t0
        if not at_once and prewarm:
            done.wait(120)

        def get() -> float:
            req = urllib.request.Request(base + url_path, headers={"Authorization": auth})
            t = time.perf_counter()
            with urllib.request.urlopen(req, timeout=120) as r:
                r.read()
                assert r.status == 200
            return time.perf_counter() - t

        sent = time.perf_counter() - t0
        first = get()
        rest = sorted(get() for _ in range(samples))
        rss = common.rss_mib(proc.pid)
        label = f"prewarm {'on' if prewarm else 'off'}, first request {'at once' if at_once else 'after prewarm'}"
        warm_note = f", prewarm done at {warm_at[0]:.1f} s" if warm_at else ""
        return (
            f"{label}: server up {up:.1f} s{warm_note}; first request sent at {sent:.1f} s, "
            f"took {1000 * first:.0f} ms; next {samples}: p50 {1000 * rest[len(rest) // 2]:.0f} ms, "
            f"max {1000 * rest[-1]:.0f} ms; server RSS {rss} MiB"
        )
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> int:
    args = common.arguments(
        __doc__,
        cluster="bench-live",
        pod=("default/pod-49999", "the pod to explain, namespace/name"),
        samples=5,
    ).parse_args()

    import django

    django.setup()
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from dashboard.cluster.models import Cluster

    call_command("migrate", verbosity=0)

    cluster = Cluster.objects.get(name=args.cluster)
    token, _ = Token.objects.get_or_create(user=common.superuser("bench-prewarm"))
    auth = f"Token {token.key}"
    ns, name = args.pod.split("/")
    path = f"/api/v1/clusters/{cluster.pk}/pods/{ns}/{name}/explanation/"
    for prewarm, at_once in ((False, True), (True, True), (True, False)):
        print(_case(path, auth, prewarm, at_once, args.samples), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
