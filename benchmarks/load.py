"""Load: logged-in people browsing pages and API clients asking for explanations at once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_pages \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/load.py \
        [--cluster bench-pages --users 50 --clients 10 --seconds 60]

Needs a cluster already loaded (``benchmarks/pages.py`` loads ``bench-pages``,
5,000 nodes / 50,000 pods). Starts one Daphne (dev settings, explanation
prewarm on) on 127.0.0.1, waits for the prewarm, then for --seconds runs
--users threads, each a logged-in session walking the cluster's pages in turn,
and --clients threads, each with an API token asking for the explanation of a
pending pod (a different one each time); --think makes each user wait between\npages (0: closed loop, a page the moment the last one arrived). Wall times from the client, over
HTTP; any status but 200 or any exception counts as an error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.common import django_env, free_port, pct, rss_mib  # noqa: E402

django_env("schedlab_bench_pages", "127.0.0.1,localhost,testserver", redis=True, debug=False)


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = {"page": [], "explanation": []}
        self.errors: list[str] = []

    def add(self, kind: str, seconds: float, error: str = "") -> None:
        with self.lock:
            self.times[kind].append(seconds)
            if error:
                self.errors.append(error)


def _get(session: requests.Session, url: str) -> str:
    r = session.get(url, timeout=30)
    return "" if r.status_code == 200 else f"{r.status_code} {url}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cluster", default="bench-pages")
    ap.add_argument("--users", type=int, default=50)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument(
        "--think", type=float, default=0.0, help="seconds a user waits between two pages"
    )
    args = ap.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from dashboard.cluster.models import Cluster, Pod

    call_command("migrate", verbosity=0)
    cluster = Cluster.objects.get(name=args.cluster)
    c, name_ = cluster.pk, cluster.name  # the API by id, the pages by name
    pending = list(
        Pod.objects.filter(cluster=cluster, node_name="")
        .order_by("namespace", "name")
        .values_list("namespace", "name")[:500]
    )
    assert pending, "no pending pod to explain"
    pages = [
        f"/clusters/{name_}/",
        f"/clusters/{name_}/overview.json",
        f"/clusters/{name_}/pending/",
        f"/clusters/{name_}/pending/?page=20",
        f"/clusters/{name_}/nodes/",
        f"/clusters/{name_}/nodes/rows/?page=40",
        "/dry-runs/",
        f"/profiles/?cluster={name_}",
    ] + [f"/clusters/{name_}/pods/{ns}/{name}/" for ns, name in pending[:20]]
    user, _ = User.objects.get_or_create(username="bench-load", defaults={"is_superuser": True})
    token, _ = Token.objects.get_or_create(user=user)
    cookies = []
    for _ in range(args.users):
        client = Client()
        client.force_login(user)  # a session row of its own, as a browser login makes
        cookies.append(client.cookies[settings.SESSION_COOKIE_NAME].value)

    port = free_port()
    env = {**os.environ, "SCHEDLAB_EXPLAIN_PREWARM": "1", "LOG_LEVEL": "INFO"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "schedlab.asgi:application",
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    warm = threading.Event()

    def read_log() -> None:
        for line in server.stderr:  # type: ignore[union-attr]
            if "explanation prewarm" in line:
                warm.set()

    threading.Thread(target=read_log, daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    tally = Tally()
    try:
        t0 = time.monotonic()
        while True:
            try:
                requests.get(f"{base}/healthz", timeout=2)
                break
            except requests.RequestException:
                time.sleep(0.1)
        print(f"server up in {time.monotonic() - t0:.1f} s", flush=True)
        warm.wait(300)
        print(f"prewarm done at {time.monotonic() - t0:.1f} s", flush=True)
        end = time.monotonic() + args.seconds

        def browse(i: int) -> None:
            s = requests.Session()
            s.cookies.set(settings.SESSION_COOKIE_NAME, cookies[i])
            n = i
            while time.monotonic() < end:
                url = base + pages[n % len(pages)]
                n += 1
                t = time.perf_counter()
                try:
                    err = _get(s, url)
                except requests.RequestException as exc:
                    err = f"{type(exc).__name__} {url}"
                tally.add("page", time.perf_counter() - t, err)
                if args.think:
                    time.sleep(args.think)

        def explain(i: int) -> None:
            s = requests.Session()
            s.headers["Authorization"] = f"Token {token.key}"
            n = i * 37
            while time.monotonic() < end:
                ns, name = pending[n % len(pending)]
                n += 1
                url = f"{base}/api/v1/clusters/{c}/pods/{ns}/{name}/explanation/"
                t = time.perf_counter()
                try:
                    err = _get(s, url)
                except requests.RequestException as exc:
                    err = f"{type(exc).__name__} {url}"
                tally.add("explanation", time.perf_counter() - t, err)

        threads = [threading.Thread(target=browse, args=(i,)) for i in range(args.users)]
        threads += [threading.Thread(target=explain, args=(i,)) for i in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        rss = rss_mib(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    for kind, xs in tally.times.items():
        if not xs:
            continue
        xs.sort()
        print(
            f"{kind}: {len(xs)} requests, p50 {1000 * pct(xs, 0.5):.0f} ms, "
            f"p95 {1000 * pct(xs, 0.95):.0f} ms, max {1000 * xs[-1]:.0f} ms",
            flush=True,
        )
    print(f"errors: {len(tally.errors)} {tally.errors[:5]}; server RSS {rss} MiB", flush=True)
    return 1 if tally.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
