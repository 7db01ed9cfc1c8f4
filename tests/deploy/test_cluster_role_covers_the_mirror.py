"""The in-cluster RBAC is exactly what Schedlab does against the API, no more.

The mirror's ClusterRole is derived from the kinds table and checked against
every request a real mirror makes of the wire-protocol server; the Role lets
the web server apply the apply target's ConfigMap and nothing else.
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from dashboard.cluster.kinds import KINDS
from dashboard.cluster.kube.client import KubeSource
from dashboard.cluster.kube.configmaps import apply_configmap
from dashboard.cluster.mirror import Mirror, MirrorOptions
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.clusters import ensure_live_cluster
from dashboard.dryruns.models import ApplyTarget
from scheduler_engine.documents import read_objects
from tests.support.kubeserver import KubeServer

from .kubernetes import BASE, Request, allows, find, grants, group_of, render

DEMO = Path(__file__).resolve().parents[2] / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
TARGET_NAMESPACE = ApplyTarget._meta.get_field("namespace").default
TARGET_NAME = ApplyTarget._meta.get_field("name").default


@pytest.fixture(scope="module")
def objects():
    return render(BASE)


def _service_account(objects, deployment: str) -> dict:
    pod = find(objects, "Deployment", deployment)["spec"]["template"]["spec"]
    return find(objects, "ServiceAccount", pod["serviceAccountName"])


def _bound_to(objects, role_kind: str, role_name: str) -> set[tuple[str, str]]:
    binding_kind = "RoleBinding" if role_kind == "Role" else "ClusterRoleBinding"
    return {
        (s["namespace"], s["name"])
        for b in objects
        if b["kind"] == binding_kind
        and b["roleRef"]
        == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": role_kind,
            "name": role_name,
        }
        for s in b["subjects"]
        if s["kind"] == "ServiceAccount"
    }


def test_the_cluster_role_is_list_and_watch_of_every_mirrored_kind(objects):
    role = find(objects, "ClusterRole", "schedlab-mirror")
    needed = {
        (verb, group_of(k.api_version), k.resource_name)
        for k in KINDS
        for verb in ("list", "watch")
    }
    assert grants(role) == needed
    for rule in role["rules"]:
        assert "resourceNames" not in rule


def test_only_the_mirror_has_the_cluster_role(objects):
    account = _service_account(objects, "schedlab-mirror")
    assert _bound_to(objects, "ClusterRole", "schedlab-mirror") == {
        (account["metadata"]["namespace"], account["metadata"]["name"])
    }
    mirror = find(objects, "Deployment", "schedlab-mirror")["spec"]["template"]["spec"]
    assert "--in-cluster" in mirror["containers"][0]["command"]
    assert account.get("automountServiceAccountToken", True)


def _verb(method: str, query: dict[str, list[str]]) -> str:
    if method == "PATCH":
        return "patch"
    return "watch" if query.get("watch") == ["true"] else "list"


# Non-resource URLs every identity may GET through the default ClusterRole
# system:public-info-viewer (the mirror probes /readyz while kinds are failing).
PUBLIC_INFO = {"/healthz", "/livez", "/readyz", "/version"}


def _public_info(line: str) -> bool:
    method, target = line.split()[:2]
    return method == "GET" and urlparse(target).path.rstrip("/") in PUBLIC_INFO


def _as_request(line: str) -> Request:
    """A request the wire-protocol server recorded ("GET /apis/g/v/r?..."), as RBAC sees it."""
    method, target = line.split()[:2]
    url = urlparse(target)
    parts = url.path.strip("/").split("/")
    group = "" if parts[0] == "api" else parts[1]
    rest = parts[2:] if parts[0] == "api" else parts[3:]
    namespace = name = ""
    if rest[0] == "namespaces" and len(rest) > 2:
        namespace, rest = rest[1], rest[2:]
    resource = rest[0]
    if len(rest) > 1:
        name = rest[1]
    return Request(_verb(method, parse_qs(url.query)), group, resource, namespace, name)


def test_every_request_of_a_running_mirror_is_allowed(objects, transactional_db, tmp_path):
    role = find(objects, "ClusterRole", "schedlab-mirror")
    kube = KubeServer(bookmark_interval=0.2).start()
    kube.load(read_objects(DEMO))
    cluster = ensure_live_cluster("rbac", kubeconfig=str(kube.write_kubeconfig(tmp_path / "k")))
    options = MirrorOptions(page_size=10, backoff_base=0.05, backoff_max=0.3, batch_seconds=0.02)
    mirror = Mirror(cluster, options=options).start()
    try:
        deadline = time.monotonic() + 30
        while Cluster.objects.get(pk=cluster.pk).mirror_status != "watching":
            assert time.monotonic() < deadline, "the mirror did not reach watching"
            time.sleep(0.05)
        kube.apply({**read_objects(DEMO)[-1]})  # one change, so watches carry an event
        time.sleep(0.5)
    finally:
        mirror.stop()
        kube.stop()
    requests = [_as_request(line) for line in kube.requests if not _public_info(line)]
    assert {r.verb for r in requests} == {"list", "watch"}
    refused = [r for r in requests if not allows(role, r)]
    assert refused == []
    # every kind was asked for: the role is not broader than what is used
    assert {(r.group, r.resource) for r in requests} == {
        (group_of(k.api_version), k.resource_name) for k in KINDS
    }


def test_the_role_lets_the_web_server_apply_one_configmap_only(objects, tmp_path):
    role = find(objects, "Role", "schedlab-apply")
    assert role["metadata"]["namespace"] == TARGET_NAMESPACE
    assert role["rules"] == [
        {
            "apiGroups": [""],
            "resources": ["configmaps"],
            "resourceNames": [TARGET_NAME],
            "verbs": ["patch", "create"],
        }
    ]
    account = _service_account(objects, "schedlab-web")
    assert _bound_to(objects, "Role", "schedlab-apply") == {
        (account["metadata"]["namespace"], account["metadata"]["name"])
    }

    # What applying a profile really sends: one server-side apply PATCH, which
    # the API server authorizes as `patch`, and as `create` when it makes the object.
    kube = KubeServer().start()
    try:
        source = KubeSource(kubeconfig=str(kube.write_kubeconfig(tmp_path / "k")))
        apply_configmap(source, TARGET_NAMESPACE, TARGET_NAME, {"config.yaml": "x"})
    finally:
        kube.stop()
    (line,) = kube.requests
    assert line.endswith("application/apply-patch+yaml")
    patch = _as_request(line)
    assert patch == Request("patch", "", "configmaps", TARGET_NAMESPACE, TARGET_NAME)
    create = Request("create", "", "configmaps", TARGET_NAMESPACE, TARGET_NAME)
    assert allows(role, patch) and allows(role, create)
    for other in (
        Request("patch", "", "configmaps", TARGET_NAMESPACE, "coredns"),
        Request("patch", "", "configmaps", "default", TARGET_NAME),
        Request("get", "", "configmaps", TARGET_NAMESPACE, TARGET_NAME),
        Request("delete", "", "configmaps", TARGET_NAMESPACE, TARGET_NAME),
        Request("patch", "", "secrets", TARGET_NAMESPACE, TARGET_NAME),
    ):
        assert not allows(role, other), other


def test_workers_and_migrations_carry_no_api_token(objects):
    account = _service_account(objects, "schedlab-worker")
    assert account["automountServiceAccountToken"] is False
    job = find(objects, "Job", "schedlab-migrate")["spec"]["template"]["spec"]
    assert job["serviceAccountName"] == account["metadata"]["name"]
    name = (account["metadata"]["namespace"], account["metadata"]["name"])
    for role_kind in ("Role", "ClusterRole"):
        for role in (o for o in objects if o["kind"] == role_kind):
            assert name not in _bound_to(objects, role_kind, role["metadata"]["name"])
