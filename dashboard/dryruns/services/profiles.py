"""Profiles: immutable versions validated by the engine, diffs, apply and rollback."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max

from dashboard import conf
from dashboard.cluster.kube import KubeError
from dashboard.cluster.kube.configmaps import apply_configmap
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.clusters import kube_source
from scheduler_engine import ConfigError, SchedulerConfig, load_config, validate_config
from scheduler_engine.config import extender_warnings
from scheduler_engine.config.json_schema import editor_schema as _editor_schema
from scheduler_engine.documents import parse_documents
from scheduler_engine.errors import InputError

from ..models import Application, ApplyTarget, DryRun, Profile, ProfileVersion
from .errors import ApplyGuardError, BadInput, ConfigMapWriteError

__all__ = [
    "ConfigProblem",
    "apply_version",
    "create_profile",
    "create_version",
    "default_engine_config",
    "diff_documents",
    "diff_versions",
    "document_warnings",
    "editor_schema",
    "parse_config",
    "rollback",
    "rollback_target",
    "run_warnings",
    "validate_document",
]


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    field: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


def _problem(exc: ConfigError, prefix: str) -> ConfigProblem:
    path = f"{prefix}.{exc.field}" if exc.field else prefix
    return ConfigProblem(path, exc.message)


def _document(text: str) -> dict[str, Any]:
    if len(text) > conf.max_config_bytes() or len(text.encode()) > conf.max_config_bytes():
        raise ConfigError(
            f"document is larger than {conf.max_config_bytes()} bytes (SCHEDLAB_MAX_CONFIG_BYTES)"
        )
    try:
        docs = parse_documents(text, source="document")
    except InputError as exc:
        raise ConfigError(exc.message) from None
    if len(docs) != 1:
        raise ConfigError(f"expected exactly one KubeSchedulerConfiguration, found {len(docs)}")
    return docs[0]


def validate_document(text: str, prefix: str = "document") -> list[ConfigProblem]:
    """Every problem the engine finds, each with the field path under ``prefix``."""
    try:
        doc = _document(text)
    except ConfigError as exc:
        return [_problem(exc, prefix)]
    return [_problem(e, prefix) for e in validate_config(doc, **conf.engine_config_kwargs())]


def document_warnings(text: str) -> list[str]:
    """What a dry-run of the document leaves out: one line per extender it declares.

    Empty for a document that does not parse (its errors say enough).
    """
    # most documents never name extenders: skip parsing them (the run list asks per run)
    if "extenders" not in text:
        return []
    try:
        return extender_warnings(_document(text))
    except ConfigError:
        return []


def run_warnings(*runs: DryRun) -> list[str]:
    """:func:`document_warnings` of the runs' configurations, each line once (upstream's
    default has none)."""
    lines: list[str] = []
    for run in runs:
        if run.profile_version_id is not None:
            lines += document_warnings(run.profile_version.document)
        else:
            lines += document_warnings(run.inline_config)
    return list(dict.fromkeys(lines))


def parse_config(
    text: str, prefix: str = "document", feature_gates: dict[str, bool] | None = None
) -> SchedulerConfig:
    """The engine's configuration, or :class:`BadInput` naming every bad field.

    ``feature_gates`` (every gate's value) default to the deployment's.
    """
    problems = validate_document(text, prefix)
    if problems:
        raise BadInput.many([(p.field, p.message) for p in problems], len(problems))
    gates = conf.feature_gates() if feature_gates is None else feature_gates
    try:
        return load_config(_document(text), feature_gates=gates, **conf.engine_config_kwargs())
    except ConfigError as exc:
        raise BadInput.one(_problem(exc, prefix).field, exc.message) from None


def default_engine_config(feature_gates: dict[str, bool] | None = None) -> SchedulerConfig:
    """Upstream's default configuration, under ``feature_gates`` (default: the deployment's)."""
    gates = conf.feature_gates() if feature_gates is None else feature_gates
    return load_config(None, feature_gates=gates, **conf.engine_config_kwargs())


def create_profile(
    *,
    name: str,
    document: str,
    cluster: Cluster | None = None,
    author: AbstractBaseUser | None = None,
    message: str = "",
) -> ProfileVersion:
    """A new profile with its first version; nothing is written if the document is invalid."""
    parse_config(document)
    with transaction.atomic():
        if Profile.objects.filter(cluster=cluster, name=name).exists():
            raise BadInput.one("name", f'a profile named "{name}" already exists')
        profile = Profile.objects.create(cluster=cluster, name=name)
        return _insert_version(profile, document, author, message or "created")


def create_version(
    profile: Profile, *, document: str, author: AbstractBaseUser | None = None, message: str = ""
) -> ProfileVersion:
    parse_config(document)
    with transaction.atomic():
        # serialise version numbers per profile
        Profile.objects.select_for_update().get(pk=profile.pk)
        return _insert_version(profile, document, author, message)


def _insert_version(
    profile: Profile, document: str, author: AbstractBaseUser | None, message: str
) -> ProfileVersion:
    last = profile.versions.aggregate(n=Max("number"))["n"] or 0
    return ProfileVersion.objects.create(
        profile=profile,
        number=last + 1,
        document=document,
        author=author if author is not None and author.is_authenticated else None,
        message=message,
    )


def editor_schema() -> dict[str, Any]:
    """What the profile editor completes from: the engine's config schema and its registry."""
    registry = conf.engine_registry()
    schema = _editor_schema(registry.capabilities())
    # plugins of one's own (SCHEDLAB_PLUGINS, entry points) bring their args' schema
    schema["pluginArgs"].update(registry.args_schemas())
    return schema


def diff_documents(a: str, b: str, a_name: str, b_name: str) -> str:
    """A unified diff of two configuration documents ("" when they are the same)."""
    return "".join(
        difflib.unified_diff(
            a.splitlines(keepends=True), b.splitlines(keepends=True), a_name, b_name
        )
    )


def diff_versions(a: ProfileVersion, b: ProfileVersion) -> str:
    """A unified diff of the two documents as saved."""
    return "".join(
        difflib.unified_diff(
            a.document.splitlines(keepends=True),
            b.document.splitlines(keepends=True),
            fromfile=f"{a.profile.name}@v{a.number}",
            tofile=f"{b.profile.name}@v{b.number}",
        )
    )


def _justifying_run(cluster: Cluster, version: ProfileVersion, dry_run: DryRun | None) -> DryRun:
    if dry_run is not None:
        if dry_run.profile_version_id != version.pk or dry_run.cluster_id != cluster.pk:
            raise ApplyGuardError.one(
                "dry_run", f"dry-run {dry_run.pk} did not run this version on this cluster"
            )
        if dry_run.status != DryRun.Status.SUCCEEDED:
            raise ApplyGuardError.one("dry_run", f"dry-run {dry_run.pk} is {dry_run.status}")
        return dry_run
    found = (
        DryRun.objects.filter(
            cluster=cluster, profile_version=version, status=DryRun.Status.SUCCEEDED
        )
        .order_by("-finished_at", "-id")
        .first()
    )
    if found is None:
        raise ApplyGuardError.one(
            "dry_run",
            f"{version} has no successful dry-run on cluster {cluster.name}; "
            "run one first (or an admin may force)",
        )
    return found


def apply_version(
    cluster: Cluster,
    version: ProfileVersion,
    *,
    user: AbstractBaseUser | None = None,
    dry_run: DryRun | None = None,
    force: bool = False,
) -> Application:
    """Make ``version`` active on ``cluster``; guarded by a successful dry-run unless forced.

    ``force`` is only honoured for admins: the API checks the role before calling.
    """
    if version.profile.cluster_id not in (None, cluster.pk):
        raise BadInput.one("cluster", f"{version.profile} belongs to another cluster")
    try:
        justified = _justifying_run(cluster, version, dry_run)
        forced = False
    except ApplyGuardError:
        if not force:
            raise
        justified, forced = dry_run, True
    return _activate(cluster, version, user=user, dry_run=justified, forced=forced)


def _activate(
    cluster: Cluster,
    version: ProfileVersion,
    *,
    user: AbstractBaseUser | None,
    dry_run: DryRun | None,
    forced: bool,
    rolled_back_from: Application | None = None,
) -> Application:
    """Record the application; with an apply target, only a written ConfigMap makes it active.

    The row is committed as ``writing`` (inactive) before the cluster is
    asked, so a crash between the two leaves history, never a half-applied
    profile; the write's outcome then makes it ``written`` (active) or
    ``failed`` (kept, with the error, and ``ConfigMapWriteError`` raised).
    """
    fields: dict[str, Any] = {
        "cluster": cluster,
        "version": version,
        "applied_by": user if user is not None and user.is_authenticated else None,
        "dry_run": dry_run,
        "forced": forced,
        "rolled_back_from": rolled_back_from,
    }
    target = ApplyTarget.objects.filter(cluster=cluster, enabled=True).first()
    if target is None:
        return Application.objects.create(**fields)
    if not cluster.is_live:
        raise BadInput.one(
            "cluster",
            f"{cluster.name} is an imported snapshot: there is no API server to write "
            f"ConfigMap {target.namespace}/{target.name} to (disable its apply target)",
        )
    app = Application.objects.create(
        **fields,
        configmap=f"{target.namespace}/{target.name}",
        configmap_status=Application.ConfigMapStatus.WRITING,
    )
    try:
        obj = apply_configmap(
            kube_source(cluster),
            target.namespace,
            target.name,
            {target.key: version.document},
            labels={"app.kubernetes.io/managed-by": "schedlab"},
            annotations={
                "schedlab.io/profile": version.profile.name,
                "schedlab.io/version": str(version.number),
                "schedlab.io/application": str(app.pk),
            },
        )
    except KubeError as exc:
        app.configmap_status = Application.ConfigMapStatus.FAILED
        app.error = f"writing ConfigMap {app.configmap} failed: {exc}"
        app.save(update_fields=["configmap_status", "error"])
        raise ConfigMapWriteError(app, exc) from None
    app.configmap_status = Application.ConfigMapStatus.WRITTEN
    app.configmap_resource_version = str((obj.get("metadata") or {}).get("resourceVersion", ""))
    app.save(update_fields=["configmap_status", "configmap_resource_version"])
    return app


def rollback_target(cluster: Cluster) -> tuple[Application, Application | None]:
    """(the active application, the one a rollback re-applies); None: back to no profile.

    Rollbacks step back through the applies like an undo stack: each rollback
    undoes the latest apply it has not undone yet, down to the first, and
    rolling that one back leaves no profile applied (the cluster's own
    scheduler configuration, as before Schedlab applied one).
    """
    stack: list[Application] = []
    for app in (
        Application.objects.filter(cluster=cluster)
        .exclude(configmap_status__in=Application.INACTIVE)
        .select_related("dry_run")
        .order_by("id")
    ):
        if app.rolled_back_from_id is None:
            stack.append(app)
            continue
        # a rollback: back to the state below the one it undid
        if stack:
            stack.pop()
        while stack and stack[-1].version_id != app.version_id:
            stack.pop()
    if not stack or stack[-1].version_id is None:
        raise BadInput.one("cluster", f"no profile is applied to {cluster.name}: nothing to undo")
    current = stack[-1]
    below = [a for a in stack[:-1] if a.version_id != current.version_id]
    return current, (below[-1] if below else None)


def rollback(cluster: Cluster, *, user: AbstractBaseUser | None = None) -> Application:
    """Re-apply the version that was active before the current one (recorded as a rollback).

    Before the first application there was none: rolling that back records an
    application of no profile. A cluster with an apply target then keeps its
    ConfigMap as it is and the call fails: what it held before was not Schedlab's.
    """
    with transaction.atomic():
        Cluster.objects.select_for_update().get(pk=cluster.pk)
        current, previous = rollback_target(cluster)
        if previous is None or previous.version is None:
            target = ApplyTarget.objects.filter(cluster=cluster, enabled=True).first()
            if target is not None:
                raise BadInput.one(
                    "cluster",
                    f"{cluster.name} writes applied profiles to ConfigMap "
                    f"{target.namespace}/{target.name}; what it held before the first apply "
                    "is not Schedlab's to restore: edit the ConfigMap, or disable the apply "
                    "target first",
                )
            return Application.objects.create(
                cluster=cluster,
                version=None,
                applied_by=user if user is not None and user.is_authenticated else None,
                rolled_back_from=current,
            )
    return _activate(
        cluster,
        previous.version,
        user=user,
        dry_run=previous.dry_run,
        forced=previous.forced,
        rolled_back_from=current,
    )
