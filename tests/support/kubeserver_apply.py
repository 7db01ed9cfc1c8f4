"""ConfigMaps with server-side apply for :mod:`tests.support.kubeserver`.

Only what applying a scheduler profile uses: ``PATCH
/api/v1/namespaces/{ns}/configmaps/{name}`` with ``application/apply-patch+yaml``,
``fieldManager`` (required, as the API server requires it for apply) and
``force``; a field owned by another manager is a 409 conflict unless forced.
``GET`` of the same path reads one back.  Faults: ``kube.forbid_writes`` answers
403 like RBAC without ``patch`` on configmaps.
"""

from __future__ import annotations

import copy
import json
import re
import uuid
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import parse_qs, urlparse

import yaml

from .kubestatus import status_body

__all__ = ["PATH", "get_configmap", "patch_configmap"]

PATH = re.compile(r"^/api/v1/namespaces/(?P<ns>[^/]+)/configmaps/(?P<name>[^/]+)$")
APPLY = "application/apply-patch+yaml"


class Handler(Protocol):
    """What this module uses of the test server's request handler."""

    kube: Any
    path: str
    headers: Any
    rfile: Any

    def _send(self, code: int, body: bytes) -> None: ...


def get_configmap(handler: Handler, ns: str, name: str) -> None:
    obj = handler.kube.configmaps.get((ns, name))
    if obj is None:
        handler._send(404, status_body(404, "NotFound", f'configmaps "{name}" not found'))
    else:
        handler._send(200, json.dumps(obj).encode())


def patch_configmap(handler: Handler) -> None:
    kube = handler.kube
    url = urlparse(handler.path)
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    m = PATH.match(url.path)
    if m is None:
        handler._send(404, status_body(404, "NotFound", f"the server could not find {url.path}"))
        return
    ns, name = m["ns"], m["name"]
    length = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(length)
    if handler.headers.get("Content-Type", "").split(";")[0].strip() != APPLY:
        handler._send(
            415, status_body(415, "UnsupportedMediaType", "only apply patches are served")
        )
        return
    manager = query.get("fieldManager", "")
    if not manager:
        handler._send(
            400, status_body(400, "BadRequest", "fieldManager is required for apply requests")
        )
        return
    if kube.forbid_writes:
        handler._send(
            403,
            status_body(
                403,
                "Forbidden",
                f'configmaps "{name}" is forbidden: User "tester" cannot patch resource '
                f'"configmaps" in API group "" in the namespace "{ns}"',
            ),
        )
        return
    try:
        body = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        handler._send(400, status_body(400, "BadRequest", f"error decoding YAML: {exc}"))
        return
    meta = (body or {}).get("metadata") or {}
    if (
        body.get("kind") != "ConfigMap"
        or meta.get("name") != name
        or (meta.get("namespace", ns) != ns)
    ):
        handler._send(400, status_body(400, "BadRequest", "the body does not name this ConfigMap"))
        return
    force = query.get("force") == "true"
    with kube.store.cond:
        old = kube.configmaps.get((ns, name))
        owners: dict[str, str] = dict((old or {}).get("_owners", {}))
        conflicts = [k for k in (body.get("data") or {}) if owners.get(k, manager) != manager]
        if conflicts and not force:
            who = owners[conflicts[0]]
            handler._send(
                409,
                status_body(
                    409,
                    "Conflict",
                    f'Apply failed with {len(conflicts)} conflict: conflict with "{who}": '
                    f".data.{conflicts[0]}",
                ),
            )
            return
        kube.store.rv += 1
        obj = (
            copy.deepcopy(old)
            if old
            else {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": name,
                    "namespace": ns,
                    "uid": str(uuid.uuid4()),
                    "creationTimestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                },
                "data": {},
            }
        )
        # an apply sets exactly the fields this manager lists; its others go away
        for k, owner in list(owners.items()):
            if owner == manager and k not in (body.get("data") or {}):
                obj["data"].pop(k, None)
                del owners[k]
        for k, v in (body.get("data") or {}).items():
            obj["data"][k] = v
            owners[k] = manager
        for part in ("labels", "annotations"):
            if meta.get(part):
                obj["metadata"].setdefault(part, {}).update(meta[part])
        obj["metadata"]["resourceVersion"] = str(kube.store.rv)
        obj["metadata"]["managedFields"] = [
            {"manager": m, "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1"}
            for m in sorted(set(owners.values()))
        ]
        obj["_owners"] = owners
        kube.configmaps[(ns, name)] = obj
        out = {k: v for k, v in obj.items() if k != "_owners"}
    handler._send(201 if old is None else 200, json.dumps(out).encode())


def put_configmap(kube: Any, ns: str, name: str, data: dict[str, str], manager: str) -> None:
    """Store a ConfigMap as another manager wrote it (for conflict tests)."""
    with kube.store.cond:
        kube.store.rv += 1
        kube.configmaps[(ns, name)] = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns, "resourceVersion": str(kube.store.rv)},
            "data": dict(data),
            "_owners": dict.fromkeys(data, manager),
        }
