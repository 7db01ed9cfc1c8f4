"""A small Kubernetes API server for tests: the real wire protocol, in-memory state.

It serves what the mirror uses, for the mirrored kinds (the volume and DRA
kinds too, by their resource paths): list with
``resourceVersion`` and pagination (``limit``/``continue``, HTTP 410 for an
expired continue token), chunked watch streams of ADDED / MODIFIED / DELETED /
BOOKMARK events, a watch ``ERROR`` event with a 410 ``Status`` for a
resourceVersion older than the retained history, ``fieldSelector`` on events'
``reason``, bearer-token auth, and faults on demand: dropped connections,
compaction, restarts, malformed objects and garbage lines; and API groups
switched off (:meth:`KubeServer.disable_group`: 404 ``page not found``, as a
cluster without DRA answers for ``resource.k8s.io``).

The real ``kubernetes`` client talks to it through a kubeconfig written by
:meth:`KubeServer.write_kubeconfig`.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import yaml

from . import kubeserver_apply
from .kubestatus import status_body as _status

__all__ = ["RESOURCES", "KubeServer", "Resource"]


@dataclass(frozen=True, slots=True)
class Resource:
    key: str
    kind: str
    api_version: str
    namespaced: bool
    path: str


def _resource(key: str, kind: str, api_version: str, namespaced: bool) -> Resource:
    prefix = "/api" if api_version == "v1" else "/apis"
    return Resource(key, kind, api_version, namespaced, f"{prefix}/{api_version}/{key}")


RESOURCES: dict[str, Resource] = {
    r.key: r
    for r in (
        Resource("namespaces", "Namespace", "v1", False, "/api/v1/namespaces"),
        Resource("nodes", "Node", "v1", False, "/api/v1/nodes"),
        Resource("pods", "Pod", "v1", True, "/api/v1/pods"),
        Resource("events", "Event", "v1", True, "/api/v1/events"),
        Resource(
            "priorityclasses",
            "PriorityClass",
            "scheduling.k8s.io/v1",
            False,
            "/apis/scheduling.k8s.io/v1/priorityclasses",
        ),
        Resource(
            "poddisruptionbudgets",
            "PodDisruptionBudget",
            "policy/v1",
            True,
            "/apis/policy/v1/poddisruptionbudgets",
        ),
        _resource("persistentvolumes", "PersistentVolume", "v1", False),
        _resource("persistentvolumeclaims", "PersistentVolumeClaim", "v1", True),
        _resource("storageclasses", "StorageClass", "storage.k8s.io/v1", False),
        _resource("csinodes", "CSINode", "storage.k8s.io/v1", False),
        _resource("csidrivers", "CSIDriver", "storage.k8s.io/v1", False),
        _resource("deviceclasses", "DeviceClass", "resource.k8s.io/v1", False),
        _resource("resourceslices", "ResourceSlice", "resource.k8s.io/v1", False),
        _resource("resourceclaims", "ResourceClaim", "resource.k8s.io/v1", True),
        _resource("resourceclaimtemplates", "ResourceClaimTemplate", "resource.k8s.io/v1", True),
        _resource(
            "noderesourcetopologies", "NodeResourceTopology", "topology.node.k8s.io/v1alpha2", False
        ),
        _resource("podgroups", "PodGroup", "scheduling.k8s.io/v1alpha2", True),
        _resource("workloads", "Workload", "scheduling.k8s.io/v1alpha2", True),
        # scheduler-plugins' PodGroup CRD: the same kind in another group
        Resource(
            "podgroups.scheduling.x-k8s.io",
            "PodGroup",
            "scheduling.x-k8s.io/v1alpha1",
            True,
            "/apis/scheduling.x-k8s.io/v1alpha1/podgroups",
        ),
    )
}
_BY_PATH = {r.path: r for r in RESOURCES.values()}
_BY_KIND: dict[str, Resource] = {}
for _r in RESOURCES.values():
    _BY_KIND.setdefault(_r.kind, _r)  # the first group listed serves the bare kind name
_BY_GROUP_KIND = {(r.api_version.rpartition("/")[0], r.kind): r for r in RESOURCES.values()}


@dataclass(slots=True)
class _Item:
    body: bytes  # the object as JSON, serialised once
    reason: str  # for fieldSelector=reason=... on events


@dataclass(slots=True)
class _Change:
    rv: int
    resource: str
    type: str
    line: bytes  # the whole watch line, newline included
    reason: str = ""


class _Store:
    def __init__(self, max_history: int) -> None:
        lock = threading.RLock()
        self.cond = threading.Condition(lock)
        # Watchers wait on their resource's condition (same lock): a change
        # wakes only the watches it concerns, however many kinds are served.
        self.wakeups = {k: threading.Condition(lock) for k in RESOURCES}
        self.rv = 1000
        self.items: dict[str, dict[tuple[str, str], _Item]] = {k: {} for k in RESOURCES}
        self.history: list[_Change] = []
        self.history_base = 0  # absolute index of history[0]
        self.compacted_rv = 0  # watches from below this get 410
        self.max_history = max_history
        self.snapshots: dict[str, tuple[int, list[bytes]]] = {}

    def _append(self, change: _Change) -> None:
        self.history.append(change)
        if len(self.history) > self.max_history:
            drop = len(self.history) - self.max_history
            self.compacted_rv = self.history[drop - 1].rv
            del self.history[:drop]
            self.history_base += drop
        self.wakeups[change.resource].notify_all()

    def wake_all(self) -> None:
        for wakeup in self.wakeups.values():
            wakeup.notify_all()
        self.cond.notify_all()


class KubeServer:
    """Start with :meth:`start`; mutate with :meth:`apply` / :meth:`delete`."""

    def __init__(
        self,
        *,
        port: int = 0,
        token: str | None = None,
        bookmark_interval: float = 1.0,
        max_history: int = 100_000,
    ) -> None:
        self.port = port
        self.token = token
        self.bookmark_interval = bookmark_interval
        self.store = _Store(max_history)
        self.requests: list[str] = []  # "GET /api/v1/pods?..." for assertions
        # ConfigMaps written by server-side apply (see kubeserver_apply)
        self.configmaps: dict[tuple[str, str], dict[str, Any]] = {}
        self.forbid_writes = False
        # API groups this server does not serve ("resource.k8s.io"): 404 for their paths
        self.disabled_groups: set[str] = set()
        # /readyz answers 500 while True: a server shutting down keeps its watches open
        self.shutting_down = False
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._watch_sockets: set[socket.socket] = set()
        # every open client connection (keep-alive ones too): a stopped server cuts them
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()

    # -- lifecycle --------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> KubeServer:
        handler = type("Handler", (_Handler,), {"kube": self})
        server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="kubeserver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut every open connection, like a crashed API server.

        Keep-alive connections too: left open, their handler threads would go on
        answering (``/readyz`` 200) for a server that is gone.
        """
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self.drop_watches()
        with self._lock:
            connections = list(self._connections)
        for sock in connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def restart(self, *, compact: bool = True, down_for: float = 0.0) -> None:
        """Stop, wait, start on the same port; by default old resourceVersions expire."""
        self.stop()
        if compact:
            self.compact()
        time.sleep(down_for)
        self.start()

    def drop_watches(self) -> None:
        """Cut open watch connections mid-stream (no terminating chunk)."""
        with self._lock:
            sockets = list(self._watch_sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def compact(self) -> None:
        """Forget the event history: watches from any earlier version get 410 Gone."""
        with self.store.cond:
            self.store.history_base += len(self.store.history)
            self.store.history.clear()
            self.store.compacted_rv = self.store.rv
            self.store.snapshots.clear()  # continue tokens expire too
            self.store.wake_all()

    def write_kubeconfig(
        self, path: str | Path, *, token: str | None = None, context: str = "test"
    ) -> Path:
        token = token if token is not None else self.token
        user: dict[str, Any] = {"token": token} if token else {}
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "kubeserver", "cluster": {"server": self.url}}],
            "users": [{"name": "tester", "user": user}],
            "contexts": [{"name": context, "context": {"cluster": "kubeserver", "user": "tester"}}],
            "current-context": context,
        }
        path = Path(path)
        path.write_text(yaml.safe_dump(config))
        return path

    def disable_group(self, group: str) -> None:
        """Stop serving an API group, or one version of it (404), like a cluster where it is not enabled.

        Open watches of its kinds are cut, as when the API server restarts
        without it.
        """
        self.disabled_groups.add(group)
        self.drop_watches()

    # -- state ------------------------------------------------------------

    def _resource_for(self, obj: dict[str, Any]) -> Resource:
        api = obj.get("apiVersion")
        if api:
            return _BY_GROUP_KIND[(str(api).rpartition("/")[0], obj["kind"])]
        return _BY_KIND[obj["kind"]]

    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create or replace ``obj`` (needs kind and metadata.name); returns the stored copy."""
        res = self._resource_for(obj)
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        key = (meta.get("namespace", "") if res.namespaced else "", meta["name"])
        with self.store.cond:
            self.store.rv += 1
            existing = self.store.items[res.key].get(key)
            meta.setdefault("uid", str(uuid.uuid4()))
            meta.setdefault("creationTimestamp", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            meta["resourceVersion"] = str(self.store.rv)
            body = json.dumps(obj, separators=(",", ":")).encode()
            reason = str(obj.get("reason") or "")
            self.store.items[res.key][key] = _Item(body, reason)
            etype = "MODIFIED" if existing else "ADDED"
            self.store._append(
                _Change(self.store.rv, res.key, etype, _event_line(etype, body), reason)
            )
        return obj

    def delete(self, kind: str, name: str, namespace: str = "", api_version: str = "") -> None:
        res = self._resource_for({"kind": kind, "apiVersion": api_version})
        key = (namespace if res.namespaced else "", name)
        with self.store.cond:
            item = self.store.items[res.key].pop(key)
            self.store.rv += 1
            obj = json.loads(item.body)
            obj["metadata"]["resourceVersion"] = str(self.store.rv)
            body = json.dumps(obj, separators=(",", ":")).encode()
            self.store._append(
                _Change(
                    self.store.rv, res.key, "DELETED", _event_line("DELETED", body), item.reason
                )
            )

    def put_raw(self, resource: str, body: bytes | dict[str, Any], key: tuple[str, str]) -> None:
        """Store any JSON (e.g. a malformed object) as-is; it is listed and watched."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        with self.store.cond:
            self.store.rv += 1
            self.store.items[resource][key] = _Item(raw, "")
            self.store._append(_Change(self.store.rv, resource, "ADDED", _event_line("ADDED", raw)))

    def inject_watch_line(self, resource: str, line: bytes) -> None:
        """Send a raw line (e.g. garbage) to watchers of ``resource``."""
        with self.store.cond:
            self.store._append(_Change(self.store.rv, resource, "RAW", line.rstrip(b"\n") + b"\n"))

    def load(self, objects: Iterable[dict[str, Any]]) -> None:
        """Bulk-create objects without watch events (fast set-up for large clusters)."""
        with self.store.cond:
            for obj in objects:
                res = self._resource_for(obj)
                meta = obj.setdefault("metadata", {})
                self.store.rv += 1
                meta.setdefault("uid", str(uuid.uuid4()))
                meta["resourceVersion"] = str(self.store.rv)
                key = (meta.get("namespace", "") if res.namespaced else "", meta["name"])
                body = json.dumps(obj, separators=(",", ":")).encode()
                self.store.items[res.key][key] = _Item(body, str(obj.get("reason") or ""))
            # Nothing before now can be watched from: this was not history.
            self.store.compacted_rv = max(self.store.compacted_rv, self.store.rv - 1)

    def count(self, resource: str) -> int:
        with self.store.cond:
            return len(self.store.items[resource])

    def _track(self, sock: socket.socket, add: bool) -> None:
        with self._lock:
            (self._watch_sockets.add if add else self._watch_sockets.discard)(sock)


def _event_line(etype: str, body: bytes) -> bytes:
    return b'{"type":"' + etype.encode() + b'","object":' + body + b"}\n"


class _Handler(BaseHTTPRequestHandler):
    kube: KubeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        with self.kube._lock:
            self.kube._connections.add(self.connection)

    def finish(self) -> None:
        with self.kube._lock:
            self.kube._connections.discard(self.connection)
        super().finish()

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        kube = self.kube
        kube.requests.append(f"GET {self.path}")
        if kube.token and self.headers.get("Authorization") != f"Bearer {kube.token}":
            self._send(401, _status(401, "Unauthorized", "Unauthorized"))
            return
        url = urlparse(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if url.path == "/readyz":
            body = b"[-]shutdown failed: reason withheld\nreadyz check failed\n"
            code, body = (500, body) if kube.shutting_down else (200, b"ok")
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        cm = kubeserver_apply.PATH.match(url.path)
        if cm is not None:
            kubeserver_apply.get_configmap(self, cm["ns"], cm["name"])
            return
        res = _BY_PATH.get(url.path)
        if res is not None and (
            res.api_version.rpartition("/")[0] in kube.disabled_groups
            or res.api_version in kube.disabled_groups
        ):
            # what kube-apiserver answers for a group it does not serve: not a Status
            self.send_response(404)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", "19")
            self.end_headers()
            self.wfile.write(b"404 page not found\n")
            return
        if res is None:
            self._send(404, _status(404, "NotFound", f"the server could not find {url.path}"))
            return
        reason = ""
        selector = query.get("fieldSelector", "")
        if selector:
            field, _, value = selector.partition("=")
            if field != "reason":
                self._send(400, _status(400, "BadRequest", f"field label not supported: {field}"))
                return
            reason = value
        if query.get("watch") in ("true", "1"):
            self._watch(res, query, reason)
        else:
            self._list(res, query, reason)

    def do_PATCH(self) -> None:
        """Server-side apply of ConfigMaps only (see kubeserver_apply)."""
        self.kube.requests.append(
            f"PATCH {self.path} {self.headers.get('Content-Type', '')}".rstrip()
        )
        if self.kube.token and self.headers.get("Authorization") != f"Bearer {self.kube.token}":
            self._send(401, _status(401, "Unauthorized", "Unauthorized"))
            return
        kubeserver_apply.patch_configmap(self)

    def _list(self, res: Resource, query: dict[str, str], reason: str) -> None:
        store = self.kube.store
        limit = int(query.get("limit") or 0)
        token = query.get("continue", "")
        with store.cond:
            if token:
                try:
                    ref = json.loads(base64.urlsafe_b64decode(token))
                    rv, items = store.snapshots[ref["id"]]
                    offset = ref["offset"]
                except (ValueError, KeyError):
                    self._send(
                        410,
                        _status(410, "Expired", "The provided continue parameter is too old"),
                    )
                    return
            else:
                rv, offset = store.rv, 0
                items = [
                    item.body
                    for _, item in sorted(store.items[res.key].items())
                    if not reason or item.reason == reason
                ]
        end = offset + limit if limit else len(items)
        next_token = ""
        if end < len(items):
            snap_id = str(uuid.uuid4()) if not token else ref["id"]
            with store.cond:
                store.snapshots[snap_id] = (rv, items)
            next_token = base64.urlsafe_b64encode(
                json.dumps({"id": snap_id, "offset": end}).encode()
            ).decode()
        elif token:
            with store.cond:
                store.snapshots.pop(ref["id"], None)
        meta = {"resourceVersion": str(rv)}
        if next_token:
            meta["continue"] = next_token
        body = (
            b'{"kind":"'
            + res.kind.encode()
            + b'List","apiVersion":"'
            + res.api_version.encode()
            + b'","metadata":'
            + json.dumps(meta).encode()
            + b',"items":['
            + b",".join(items[offset:end])
            + b"]}"
        )
        self._send(200, body)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _watch(self, res: Resource, query: dict[str, str], reason: str) -> None:
        kube, store = self.kube, self.kube.store
        timeout = float(query.get("timeoutSeconds") or 1800)
        bookmarks = query.get("allowWatchBookmarks") in ("true", "1")
        since = query.get("resourceVersion", "")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        kube._track(self.connection, True)
        try:
            with store.cond:
                initial: list[bytes] = []
                if since in ("", "0"):
                    # No version: the current state as ADDED events, then changes.
                    initial = [
                        _event_line("ADDED", item.body)
                        for item in store.items[res.key].values()
                        if not reason or item.reason == reason
                    ]
                    cursor = store.history_base + len(store.history)
                else:
                    n = int(since)
                    if n < store.compacted_rv:
                        cursor = -1
                    else:
                        cursor = store.history_base
                        while (
                            cursor - store.history_base < len(store.history)
                            and store.history[cursor - store.history_base].rv <= n
                        ):
                            cursor += 1
            if cursor < 0:
                self._chunk(
                    _event_line(
                        "ERROR",
                        _status(
                            410,
                            "Expired",
                            f"too old resource version: {since} ({store.compacted_rv})",
                        ),
                    )
                )
                self._chunk(b"")
                return
            for line in initial:
                self._chunk(line)
            deadline = time.monotonic() + timeout
            next_bookmark = time.monotonic() + kube.bookmark_interval
            while True:
                with store.cond:
                    now = time.monotonic()
                    wait = min(deadline, next_bookmark) - now
                    if cursor - store.history_base >= len(store.history) and wait > 0:
                        store.wakeups[res.key].wait(wait)
                    if cursor < store.history_base:
                        # Compacted while we were behind: the client must relist.
                        lines = [
                            _event_line(
                                "ERROR", _status(410, "Expired", "too old resource version")
                            )
                        ]
                        cursor = -1
                    else:
                        changes = store.history[cursor - store.history_base :]
                        cursor += len(changes)
                        lines = [
                            c.line
                            for c in changes
                            if c.resource == res.key
                            and (not reason or c.reason == reason or c.type == "RAW")
                        ]
                    current_rv = store.rv
                for line in lines:
                    self._chunk(line)
                if cursor < 0:
                    break
                now = time.monotonic()
                if now >= deadline:
                    break
                if bookmarks and now >= next_bookmark:
                    bookmark = {
                        "kind": res.kind,
                        "apiVersion": res.api_version,
                        "metadata": {"resourceVersion": str(current_rv)},
                    }
                    self._chunk(_event_line("BOOKMARK", json.dumps(bookmark).encode()))
                    next_bookmark = now + kube.bookmark_interval
            self._chunk(b"")  # clean end of the stream
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            kube._track(self.connection, False)
            self.close_connection = True
