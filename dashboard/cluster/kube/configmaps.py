"""Server-side apply of one ConfigMap: how an applied scheduler profile reaches the cluster."""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s

from .client import KubeSource, build_api_client, loads, translate

__all__ = ["FIELD_MANAGER", "apply_configmap"]

FIELD_MANAGER = "schedlab"
TIMEOUT = (5.0, 15.0)  # connect, read: an apply is one small request


def apply_configmap(
    source: KubeSource,
    namespace: str,
    name: str,
    data: dict[str, str],
    *,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``PATCH`` the ConfigMap as an ``application/apply-patch+yaml`` owned by ``schedlab``.

    ``force=true``: Schedlab is the declared owner of these keys, so a field
    another manager set (someone's ``kubectl edit``) is taken over rather than
    failing with a conflict.  Returns the stored object; raises ``KubeError``.
    """
    what = f"apply ConfigMap {namespace}/{name}"
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": labels or {},
            "annotations": annotations or {},
        },
        "data": data,
    }
    api_client = build_api_client(source)
    try:
        resp = k8s.CoreV1Api(api_client).patch_namespaced_config_map(
            name,
            namespace,
            body,
            field_manager=FIELD_MANAGER,
            force=True,
            _content_type="application/apply-patch+yaml",
            _preload_content=False,
            _request_timeout=TIMEOUT,
        )
        return loads(resp.data)
    except Exception as exc:  # translate() re-raises what is not an API/network error
        raise translate(exc, what) from None
    finally:
        api_client.close()
