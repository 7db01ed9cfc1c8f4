"""Load: logged-in people browsing pages and API clients asking for explanations at once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_pages \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/load.py \\
        [--cluster bench-pages --web-processes 2 --users 50 --clients 10 --seconds 60 \\
         --think 0 --client-think 0 --ramp 0 --shared-socket]

Needs a cluster already loaded (``benchmarks/pages.py`` loads ``bench-pages``,
5,000 nodes / 50,000 pods). Starts --web-processes Daphne processes as
production does (``python -m schedlab.serve``: a listening socket each, or one
shared by all with --shared-socket; dev settings, explanation prewarm on) on
127.0.0.1, waits until every one has prewarmed,
then for --seconds runs --users threads, each a logged-in session walking the
cluster's pages in turn, and --clients threads, each with an API token asking
for the explanation of a pending pod (a different one each time).

--think and --client-think are the mean pause (exponentially distributed,
seeded) between a user's pages and between a client's requests: 0 is a
closed loop (the next request the moment the last answer arrived), a pause
makes the arrival rate what people and scripts ask, which the report prints
(requests/s offered over the run). --ramp spreads the users' and clients'
first requests uniformly over its seconds (a load tool's spawn rate); without
it all of them ask at the same instant at the start. Wall times from the client, over HTTP; any
status but 200 or any exception counts as an error. Also printed: the CPU
the web processes used (so requests/s per core), each one's share of it, and
their RSS.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import common  # noqa: E402

common.django_env("schedlab_bench_pages", "127.0.0.1,localhost,testserver", redis=True, debug=False)


@dataclass
class Plan:
    """What the load asks for: the pages a user walks, the pods clients explain, credentials."""

    pages: list[str]
    explanations: list[str]
    cookies: list[str]
    cookie_name: str
    token: str


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    times: dict[str, list[float]] = field(default_factory=lambda: {"page": [], "explanation": []})
    errors: list[str] = field(default_factory=list)

    def add(self, kind: str, seconds: float, error: str = "") -> None:
        with self.lock:
            self.times[kind].append(seconds)
            if error:
                self.errors.append(error)


@dataclass
class Web:
    """The supervisor and its Daphne children, with what their log says."""

    proc: subprocess.Popen
    base: str
    children: list[int] = field(default_factory=list)
    warm: int = 0

    def pids(self) -> list[int]:
        return [self.proc.pid, *self.children]

    def cpu_seconds(self) -> float:
        return sum(self.cpu_by_pid().values())

    def cpu_by_pid(self) -> dict[int, float]:
        out = {}
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(") ", 1)[1].split()
                out[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
            except (FileNotFoundError, IndexError):
                pass
        return out


def parse_args() -> argparse.Namespace:
    return common.arguments(
        __doc__,
        cluster="bench-pages",
        web_processes=(2, "Daphne processes (schedlab.serve)"),
        shared_socket=(False, "one socket shared by the web processes (no SO_REUSEPORT)"),
        users=(50, "logged-in people walking the pages"),
        clients=(10, "API clients asking for explanations"),
        seconds=(60.0, "how long the load lasts"),
        think=(0.0, "mean seconds between a user's pages"),
        client_think=(0.0, "mean seconds between a client's requests"),
        ramp=(0.0, "seconds over which the users and clients arrive (0: all at once)"),
    ).parse_args()


def prepare(args: argparse.Namespace) -> tuple[Plan, int]:
    """The plan (pages, pods, a session per user, an API token) and the web processes' count."""
    common.setup_django()
    from django.conf import settings
    from rest_framework.authtoken.models import Token

    from dashboard.cluster.models import Cluster, Pod

    cluster = Cluster.objects.get(name=args.cluster)
    c, name = cluster.pk, cluster.name  # the API by id, the pages by name
    pending = list(
        Pod.objects.filter(cluster=cluster, node_name="")
        .order_by("namespace", "name")
        .values_list("namespace", "name")[:500]
    )
    assert pending, "no pending pod to explain"
    pages = [
        f"/clusters/{name}/",
        f"/clusters/{name}/overview.json",
        f"/clusters/{name}/pending/",
        f"/clusters/{name}/pending/?page=20",
        f"/clusters/{name}/nodes/",
        f"/clusters/{name}/nodes/rows/?page=40",
        "/dry-runs/",
        f"/profiles/?cluster={name}",
    ] + [f"/clusters/{name}/pods/{ns}/{pod}/" for ns, pod in pending[:20]]
    explanations = [f"/api/v1/clusters/{c}/pods/{ns}/{pod}/explanation/" for ns, pod in pending]
    user = common.superuser("bench-load")
    token, _ = Token.objects.get_or_create(user=user)
    cookie = settings.SESSION_COOKIE_NAME
    # a session row of its own per user, as a browser login makes
    cookies = [common.logged_in_client(user).cookies[cookie].value for _ in range(args.users)]
    return Plan(pages, explanations, cookies, cookie, token.key), args.web_processes


def start_web(processes: int, shared_socket: bool) -> Web:
    """Start the web processes and wait until each has built its warm explanation state."""
    port = common.free_port()
    env = {**os.environ, "SCHEDLAB_EXPLAIN_PREWARM": "1", "LOG_LEVEL": "INFO"}
    extra = ["--shared-socket"] if shared_socket else []
    proc = common.start_daphne(port, env, processes=processes, extra=extra)
    web = Web(proc, f"http://127.0.0.1:{port}")
    all_warm = threading.Event()

    def read_log() -> None:
        for line in web.proc.stderr:  # type: ignore[union-attr]
            m = re.search(r"web process \d+/\d+ started, pid (\d+)", line)
            if m:
                web.children.append(int(m[1]))
            if "listening on" in line:
                print(line.strip(), flush=True)
            if "explanation prewarm" in line:
                web.warm += 1
                if web.warm >= processes:
                    all_warm.set()

    threading.Thread(target=read_log, daemon=True).start()
    t0 = time.monotonic()
    while True:
        try:
            requests.get(f"{web.base}/livez", timeout=2)
            break
        except requests.RequestException:
            time.sleep(0.1)
    print(f"{processes} web process(es) up in {time.monotonic() - t0:.1f} s", flush=True)
    all_warm.wait(600)
    print(f"prewarm done in {web.warm} at {time.monotonic() - t0:.1f} s", flush=True)
    return web


def _timed(tally: Tally, kind: str, session: requests.Session, url: str) -> None:
    t = time.perf_counter()
    try:
        r = session.get(url, timeout=60)
        err = "" if r.status_code == 200 else f"{r.status_code} {url}"
    except requests.RequestException as exc:
        err = f"{type(exc).__name__} {url}"
    tally.add(kind, time.perf_counter() - t, err)


def run_load(plan: Plan, web: Web, args: argparse.Namespace) -> tuple[Tally, float]:
    """Run the users and clients for --seconds; the tally and the seconds it really took."""
    tally = Tally()
    end = time.monotonic() + args.seconds

    def loop(kind: str, session: requests.Session, urls: list[str], start: int, think: float):
        rng = random.Random(start)
        n = start
        if args.ramp:  # arrive at a random moment of the ramp, as people do
            time.sleep(rng.uniform(0.0, args.ramp))
        while time.monotonic() < end:
            _timed(tally, kind, session, web.base + urls[n % len(urls)])
            n += 1
            if think:
                time.sleep(min(rng.expovariate(1 / think), max(0.0, end - time.monotonic())))

    threads = []
    for i in range(args.users):
        s = requests.Session()
        s.cookies.set(plan.cookie_name, plan.cookies[i])
        threads.append(threading.Thread(target=loop, args=("page", s, plan.pages, i, args.think)))
    for i in range(args.clients):
        s = requests.Session()
        s.headers["Authorization"] = f"Token {plan.token}"
        target_args = ("explanation", s, plan.explanations, 1000 + i * 37, args.client_think)
        threads.append(threading.Thread(target=loop, args=target_args))
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally, time.monotonic() - t0


def report(
    tally: Tally, took: float, cpu: float, rss: list[int], shares: list[float], processes: int
) -> None:
    total = 0
    for kind, xs in tally.times.items():
        if not xs:
            continue
        total += len(xs)
        xs.sort()
        print(
            f"{kind}: {len(xs)} requests ({len(xs) / took:.1f}/s), "
            f"p50 {1000 * common.pct(xs, 0.5):.0f} ms, p95 {1000 * common.pct(xs, 0.95):.0f} ms, "
            f"max {1000 * xs[-1]:.0f} ms",
            flush=True,
        )
    print(
        f"all: {total} requests in {took:.1f} s = {total / took:.1f}/s; web CPU {cpu:.1f} s "
        f"= {cpu / took:.2f} cores busy, {total / cpu if cpu else 0:.1f} requests per CPU second; "
        f"per web process {' + '.join(f'{s / took:.2f}' for s in shares)} cores",
        flush=True,
    )
    print(
        f"errors: {len(tally.errors)} {tally.errors[:5]}; {processes} web process(es), "
        f"RSS {' + '.join(map(str, rss))} = {sum(rss)} MiB; "
        f"load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> int:
    args = parse_args()
    plan, processes = prepare(args)
    web = start_web(processes, args.shared_socket)
    try:
        cpu0 = web.cpu_by_pid()
        print(f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
        tally, took = run_load(plan, web, args)
        cpu1 = web.cpu_by_pid()
        rss = [common.rss_mib(pid) for pid in web.children]
    finally:
        web.proc.terminate()
        web.proc.wait(60)
    spent = {pid: cpu1.get(pid, 0.0) - cpu0.get(pid, 0.0) for pid in cpu0}
    shares = [spent.get(pid, 0.0) for pid in web.children]
    report(tally, took, sum(spent.values()), rss, shares, processes)
    return 1 if tally.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
