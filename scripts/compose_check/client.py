"""What `make compose-check` asks of the running stack, as a user and a script would.

Over the published HTTP port: log in through the login form, see the mirrored
cluster on the cluster list and in the REST API, follow the mirror's live
changes over a websocket, submit a dry-run through the REST API and follow
its progress over a second websocket until a worker reports success.

Prints one JSON document of timings and facts on stdout; exits 1 with the
reason on stderr when a step fails. Runs in the Schedlab image (requests and
websocket-client come with the kubernetes client).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import requests
import websocket

CLUSTER = "demo-live"
# Small pods beside the demo's own: a run long enough for several progress messages.
WORKLOAD = [
    {
        "kind": "Job",
        "name": "compose-check",
        "namespace": "default",
        "replicas": 600,
        "podTemplate": {
            "spec": {
                "containers": [
                    {
                        "name": "c",
                        "image": "x",
                        "resources": {"requests": {"cpu": "10m", "memory": "8Mi"}},
                    }
                ]
            }
        },
    }
]


class CheckFailed(Exception):
    pass


def wait_until(what: str, timeout: float, probe: Any) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.5)
    raise CheckFailed(f"{what}: not within {timeout:.0f}s (last: {last!r})")


class Stack:
    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.http.get(self.url + path, timeout=30, allow_redirects=False, **kw)

    def post(self, path: str, **kw: Any) -> requests.Response:
        headers = {"X-CSRFToken": self.http.cookies.get("csrftoken", ""), "Referer": self.url}
        return self.http.post(
            self.url + path, timeout=30, allow_redirects=False, headers=headers, **kw
        )

    def log_in(self, user: str, password: str) -> None:
        form = self.get("/login/")
        if form.status_code != 200 or "csrftoken" not in self.http.cookies:
            raise CheckFailed(f"GET /login/: HTTP {form.status_code}, no CSRF cookie")
        answer = self.post(
            "/login/",
            data={
                "username": user,
                "password": password,
                "csrfmiddlewaretoken": self.http.cookies["csrftoken"],
            },
        )
        if answer.status_code != 302 or "sessionid" not in self.http.cookies:
            raise CheckFailed(f"POST /login/: HTTP {answer.status_code}, no session")

    def socket(self, path: str) -> websocket.WebSocket:
        ws_url = "ws" + self.url.removeprefix("http") + path
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        ws = websocket.create_connection(ws_url, timeout=10, cookie=cookie, origin=self.url)
        hello = json.loads(ws.recv())
        if hello.get("type") != "hello":
            raise CheckFailed(f"{path}: first frame is not hello: {hello}")
        return ws

    def cluster(self) -> dict[str, Any] | None:
        page = self.get("/api/v1/clusters/").json()
        return next((c for c in page["results"] if c["name"] == CLUSTER), None)


def frames_until(ws: websocket.WebSocket, timeout: float, done: Any) -> list[dict[str, Any]]:
    """Frames received until ``done(frame)`` or ``timeout``; raises CheckFailed on timeout."""
    frames: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ws.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            frame = json.loads(ws.recv())
        except websocket.WebSocketTimeoutException:
            break
        frames.append(frame)
        if done(frame):
            return frames
    raise CheckFailed(f"no closing frame within {timeout:.0f}s; got {frames[-3:]}")


def run(url: str, user: str, password: str) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    stack = Stack(url)
    start = time.monotonic()

    stack.log_in(user, password)
    page = stack.get("/")
    if page.status_code != 200 or CLUSTER not in page.text:
        raise CheckFailed(f"GET / after login: HTTP {page.status_code}, {CLUSTER} not listed")
    facts["login_seconds"] = round(time.monotonic() - start, 2)

    cluster = wait_until(
        f"cluster {CLUSTER} watching and connected",
        120,
        lambda: (
            (c := stack.cluster()) and c["mirror_status"] == "watching" and c["connected"] and c
        ),
    )
    nodes = stack.get(f"/api/v1/nodes/?cluster={cluster['id']}&limit=1").json()["count"]
    pods = stack.get(f"/api/v1/pods/?cluster={cluster['id']}&limit=1").json()["count"]
    if nodes != 20 or pods < 43:
        raise CheckFailed(f"mirrored {nodes} nodes and {pods} pods; the demo has 20 and 43+")
    facts["mirrored"] = {"nodes": nodes, "pods": pods, "status": cluster["mirror_status"]}

    # Live changes: the test API server modifies a pod every 2 s.
    live = stack.socket(f"/ws/clusters/{CLUSTER}/?kinds=pods")
    t0 = time.monotonic()
    deltas = frames_until(live, 30, lambda f: f.get("type") == "mirror.delta")
    live.close()
    facts["websocket_mirror_delta_seconds"] = round(time.monotonic() - t0, 2)
    facts["websocket_mirror_delta"] = {k: deltas[-1].get(k) for k in ("type", "kind")}

    t0 = time.monotonic()
    created = stack.post(
        "/api/v1/dry-runs/", json={"cluster": cluster["id"], "workload": WORKLOAD, "seed": 1}
    )
    if created.status_code != 202:  # accepted: queued for a worker
        raise CheckFailed(f"POST /api/v1/dry-runs/: HTTP {created.status_code} {created.text}")
    run_id = created.json()["id"]
    progress = stack.socket(f"/ws/dry-runs/{run_id}/")
    frames = frames_until(
        progress,
        180,
        lambda f: (
            f.get("type") == "dryrun.progress"
            and f.get("status") in ("succeeded", "failed", "cancelled")
        ),
    )
    progress.close()
    final = stack.get(f"/api/v1/dry-runs/{run_id}/").json()
    if final["status"] != "succeeded":
        raise CheckFailed(f"dry-run {run_id}: {final['status']}: {final.get('error')}")
    facts["dry_run"] = {
        "id": run_id,
        "status": final["status"],
        "pods_total": final["pods_total"],
        "pods_placed": final["pods_placed"],
        "seconds_submit_to_success": round(time.monotonic() - t0, 2),
        "engine_seconds": final["engine_seconds"],
        "websocket_progress_frames": sum(f.get("type") == "dryrun.progress" for f in frames),
        "websocket_statuses": sorted({f["status"] for f in frames if "status" in f}),
    }
    facts["client_seconds"] = round(time.monotonic() - start, 2)
    return facts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    try:
        facts = run(args.url, args.user, args.password)
    except (CheckFailed, requests.RequestException, websocket.WebSocketException, OSError) as exc:
        print(f"compose-check client: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
