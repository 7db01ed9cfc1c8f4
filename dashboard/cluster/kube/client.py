"""The one place that talks to the Kubernetes API through the official client.

Lists and watches ask for raw JSON (``_preload_content=False``) and parse it
with orjson (``json.loads`` for what orjson refuses and json accepts): the client's model deserialisation costs tens of seconds on 50,000
pods, and the rest of Schedlab wants plain dicts anyway.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import urllib3
import yaml
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from ..kinds import KindSpec
from .errors import (
    KubeApiError,
    KubeAuthError,
    KubeConfigError,
    KubeError,
    KubeGone,
    KubeNotFound,
    KubeUnreachable,
)

__all__ = ["KubeClient", "KubeSource", "ListPage", "WatchEvent", "build_api_client"]

CONNECT_TIMEOUT = 10.0


def loads(data: bytes | str) -> Any:
    """``json.loads``, through orjson when it can (about twice as fast on list pages).

    orjson is stricter (NaN, integers beyond 64 bits, non-UTF-8 bytes); what
    it refuses goes to ``json.loads``, so the same documents parse, with the
    same result.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


@dataclass(frozen=True, slots=True)
class KubeSource:
    """Where a live cluster is: a kubeconfig (path + context) or in-cluster."""

    kubeconfig: str = ""
    context: str = ""
    in_cluster: bool = False

    def describe(self) -> str:
        if self.in_cluster:
            return "in-cluster service account"
        where = self.kubeconfig or "default kubeconfig"
        return f"{where} (context {self.context})" if self.context else where


@dataclass(frozen=True, slots=True)
class ListPage:
    items: list[dict[str, Any]]
    resource_version: str
    continue_token: str


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: str  # ADDED, MODIFIED, DELETED, BOOKMARK
    object: dict[str, Any] = field(default_factory=dict)


def build_api_client(source: KubeSource) -> k8s.ApiClient:
    """An ApiClient for ``source``; raises KubeConfigError with the reason."""
    cfg = k8s.Configuration()
    try:
        if source.in_cluster:
            k8s_config.load_incluster_config(client_configuration=cfg)
        else:
            k8s_config.load_kube_config(
                config_file=source.kubeconfig or None,
                context=source.context or None,
                client_configuration=cfg,
                persist_config=False,
            )
    except (
        ConfigException,
        OSError,
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
        yaml.YAMLError,
    ) as exc:
        # The loader raises a zoo of types for broken files; all mean "fix the kubeconfig".
        raise KubeConfigError(f"{source.describe()}: {exc}") from None
    # Retries are the mirror's job (with backoff and a visible status), not urllib3's.
    cfg.retries = False
    return k8s.ApiClient(cfg)


def translate(exc: BaseException, what: str) -> KubeError:
    """Our error for an exception raised while talking to the API."""
    if isinstance(exc, KubeError):
        return exc
    if isinstance(exc, ApiException):
        code = exc.status or 0
        reason = _status_message(exc)
        if code == 410:
            return KubeGone(f"{what}: {reason}")
        if code in (401, 403):
            return KubeAuthError(f"{what}: HTTP {code} {reason}")
        if code == 0:
            return KubeUnreachable(f"{what}: {reason}")
        if code == 404:
            return KubeNotFound(f"{what}: HTTP 404 {reason}")
        return KubeApiError(f"{what}: HTTP {code} {reason}", code)
    if isinstance(exc, urllib3.exceptions.HTTPError | OSError | socket.timeout):
        return KubeUnreachable(f"{what}: {type(exc).__name__}: {exc}")
    if isinstance(exc, ValueError):
        return KubeApiError(f"{what}: unexpected response: {exc}")
    raise exc


def _status_message(exc: ApiException) -> str:
    body = exc.body
    if body:
        try:
            status = json.loads(body)
            if isinstance(status, dict) and status.get("message"):
                return f"{status.get('reason') or exc.reason}: {status['message']}"
        except (ValueError, TypeError):
            pass
    return str(exc.reason or "")


class KubeClient:
    """List and watch the mirrored kinds, returning plain dicts."""

    def __init__(self, api_client: k8s.ApiClient) -> None:
        self.api_client = api_client

    @staticmethod
    def path(spec: KindSpec) -> str:
        """The collection's URL path across namespaces: ``/api/v1/pods``, ``/apis/policy/v1/...``."""
        return spec.api_path

    def _get(self, spec: KindSpec, query: list[tuple[str, Any]], timeout: Any) -> Any:
        """GET the kind's collection; the raw urllib3 response (body not read).

        What ``CoreV1Api.list_pod_for_all_namespaces(..., _preload_content=False)``
        does, through the same ApiClient (configuration, auth, TLS, exec
        plugins, token refresh), minus importing the generated API modules and
        their pydantic models: about a second of CPU at every mirror start.
        """
        if spec.field_selector:
            query.append(("fieldSelector", spec.field_selector))
        request = self.api_client.param_serialize(
            method="GET",
            resource_path=self.path(spec),
            query_params=query,
            header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"],
        )
        resp = self.api_client.call_api(*request, _request_timeout=timeout)
        if not 200 <= resp.status <= 299:
            resp.read()
            raise ApiException.from_response(http_resp=resp, body=None, data=None)
        return resp.response

    def ready(self, timeout: float = 2.0) -> tuple[bool, str]:
        """``GET /readyz``: (True, "") when the API server says it is ready, else (False, why).

        During a graceful shutdown kube-apiserver answers 500 here while it
        still serves the watches it has open.
        """
        try:
            request = self.api_client.param_serialize(
                method="GET",
                resource_path="/readyz",
                header_params={"Accept": "text/plain"},
                auth_settings=["BearerToken"],
            )
            resp = self.api_client.call_api(*request, _request_timeout=(CONNECT_TIMEOUT, timeout))
            body = resp.read()
            if 200 <= resp.status <= 299 or resp.status in (401, 403, 404):
                # 404: a server without /readyz; 401/403: not ours to see: no verdict
                return True, ""
            first = body.decode("utf-8", "replace").strip().splitlines()[:1]
            return False, f"readyz: HTTP {resp.status}" + (f" {first[0]}" if first else "")
        except Exception as exc:
            try:
                error = translate(exc, "readyz")
            except Exception:
                return False, f"readyz: {type(exc).__name__}"
            return False, str(error)

    @classmethod
    def from_source(cls, source: KubeSource) -> KubeClient:
        return cls(build_api_client(source))

    def close(self) -> None:
        self.api_client.close()

    def list_page(
        self, spec: KindSpec, *, limit: int, continue_token: str = "", read_timeout: float = 60.0
    ) -> ListPage:
        query: list[tuple[str, Any]] = [("limit", limit)]
        if continue_token:
            query.append(("continue", continue_token))
        what = f"list {spec.key}"
        try:
            resp = self._get(spec, query, (CONNECT_TIMEOUT, read_timeout))
            try:
                body = loads(resp.data)
            finally:
                resp.release_conn()
        except Exception as exc:
            raise translate(exc, what) from exc
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            raise KubeApiError(f"{what}: response is not a list")
        meta = body.get("metadata") or {}
        return ListPage(
            items=body["items"],
            resource_version=str(meta.get("resourceVersion") or ""),
            continue_token=str(meta.get("continue") or ""),
        )

    def watch(
        self,
        spec: KindSpec,
        *,
        resource_version: str,
        timeout_seconds: int,
        holder: list | None = None,
    ) -> Iterator[WatchEvent]:
        """Events after ``resource_version`` until the server ends the stream.

        ``holder`` receives the open response so another thread can close it
        to stop a watch that is waiting for data. A line that is not JSON is
        reported as an ``ERROR`` event with the raw text, so the caller can
        log it and go on.
        """
        what = f"watch {spec.key}"
        query: list[tuple[str, Any]] = [
            ("allowWatchBookmarks", True),
            ("resourceVersion", resource_version),
            ("timeoutSeconds", timeout_seconds),
            ("watch", True),
        ]
        try:
            # The server ends the watch after timeout_seconds; reading longer
            # than that without a byte means the connection is dead.
            resp = self._get(spec, query, (CONNECT_TIMEOUT, timeout_seconds + 30))
        except Exception as exc:
            raise translate(exc, what) from exc
        if holder is not None:
            holder.append(resp)
        try:
            buffer = b""
            for chunk in resp.stream(amt=None, decode_content=True):
                buffer += chunk
                while True:
                    end = buffer.find(b"\n")
                    if end < 0:
                        break
                    line, buffer = buffer[:end], buffer[end + 1 :]
                    if line.strip():
                        yield _event(line, what)
            if buffer.strip():
                yield _event(buffer, what)
        except KubeError:
            raise
        except Exception as exc:
            raise translate(exc, what) from exc
        finally:
            if holder is not None and resp in holder:
                holder.remove(resp)
            resp.release_conn()


def _event(line: bytes, what: str) -> WatchEvent:
    try:
        event = loads(line)
        etype, obj = event["type"], event["object"]
    except (ValueError, KeyError, TypeError):
        return WatchEvent("ERROR", {"code": 0, "message": f"not a watch event: {line[:200]!r}"})
    if not isinstance(obj, dict):
        return WatchEvent(
            "ERROR", {"code": 0, "message": f"event object is not a mapping: {line[:200]!r}"}
        )
    if etype == "ERROR":
        code = obj.get("code") or 0
        message = f"{what}: {obj.get('reason') or ''}: {obj.get('message') or ''}"
        if code == 410:
            raise KubeGone(message)
        if code in (401, 403):
            raise KubeAuthError(message)
        raise KubeApiError(message, code)
    return WatchEvent(str(etype), obj)
