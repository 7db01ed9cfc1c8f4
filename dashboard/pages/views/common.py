"""Helpers the page views share: role checks, query parameters, errors by field."""

from __future__ import annotations

from typing import Any

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboard.cluster.models import Cluster
from dashboard.dryruns.models import ProfileVersion
from dashboard.dryruns.services import profiles as profile_services
from dashboard.dryruns.services.errors import BadInput
from dashboard.roles import has_role

NO_PROFILE = "no profile (the cluster's own config)"

__all__ = [
    "NO_PROFILE",
    "cluster_param",
    "confirm_change",
    "diff_lines",
    "editor_bundle",
    "field_errors",
    "int_param",
    "require_role",
]


def require_role(request: HttpRequest, role: str) -> None:
    if not has_role(request.user, role):
        raise PermissionDenied(f"your role does not allow this (needs {role})")


def int_param(value: str | None, default: int = 0) -> int:
    """A non-negative integer from a query or form value; ``default`` if it is not one."""
    try:
        return max(int(value or default), 0)
    except ValueError:
        return default


def cluster_param(request: HttpRequest) -> Cluster | None:
    """The cluster named by ``?cluster=`` (or the form's ``cluster``), if any."""
    name = request.GET.get("cluster") or request.POST.get("cluster")
    return Cluster.objects.filter(name=name).first() if name else None


def field_errors(exc: BadInput) -> list[dict[str, str]]:
    return [{"field": f, "message": m} for f, ms in exc.errors.items() for m in ms]


def diff_lines(diff: str) -> list[dict[str, str]]:
    """A unified diff's lines, each with its kind (meta, add, del, same) for colouring."""

    def kind(line: str) -> str:
        if line.startswith(("---", "+++", "@@")):
            return "meta"
        return {"+": "add", "-": "del"}.get(line[:1], "same")

    return [{"text": line.rstrip("\n"), "kind": kind(line)} for line in diff.splitlines(True)]


def confirm_change(
    request: HttpRequest,
    cluster: Cluster,
    action: str,
    before: ProfileVersion | None,
    version: ProfileVersion | None,
    **context: Any,
) -> HttpResponse:
    """The page that confirms an apply or a rollback: the diff from the version active
    (``before``) to ``version`` (None: no profile), the extenders of ``version`` that the
    scheduler will call and no dry-run did, and whatever ``context`` adds."""
    diff = profile_services.diff_documents(
        before.document if before else "",
        version.document if version else "",
        str(before) if before else NO_PROFILE,
        str(version) if version else NO_PROFILE,
    )
    return render(
        request,
        "dryruns/confirm_apply.html",
        {
            "nav": "profiles",
            "cluster": cluster,
            "action": action,
            "before": before,
            "version": version,
            "lines": diff_lines(diff),
            "warnings": profile_services.document_warnings(version.document) if version else [],
            **context,
        },
    )


def editor_bundle() -> bool:
    """Whether ``make install`` built the CodeMirror bundle (static/build/editor.js)."""
    if finders.find("build/editor.js"):
        return True
    try:
        return staticfiles_storage.exists("build/editor.js")
    except Exception:  # a storage without the file system (none here) answers no
        return False
