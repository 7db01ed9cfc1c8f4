"""Viewsets: parse the request, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db.models import Exists, OuterRef, ProtectedError, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from dashboard import conf
from dashboard.cluster.models import Cluster, Event, Node, Pod
from dashboard.dryruns import selectors
from dashboard.dryruns.models import DryRun, Profile, ProfileVersion
from dashboard.dryruns.services import dryruns as dryrun_services
from dashboard.dryruns.services import profiles as profile_services
from dashboard.dryruns.services.errors import BadInput, ConfigMapWriteError, NotCancellable
from dashboard.dryruns.services.results import read_results
from dashboard.explain import hardware
from dashboard.explain.answer import INCLUDE, IncludeError, answer, parse_include
from dashboard.explain.gangs import GangsUnavailable, find_gang, pending_gangs
from dashboard.explain.live import explain_pod
from dashboard.explain.orphans import settings_of, unschedulable, update_settings
from dashboard.roles import ADMIN, OPERATOR

from . import serializers as s
from .gpu_serializers import GpuFleetSerializer, GpuNodeSerializer, InconsistencySerializer
from .params import (
    OFFSET_MAX,
    StrictLimitOffsetPagination,
    bool_param,
    id_param,
    id_schema,
    int_param,
    int_schema,
    parse_int,
    text_param,
)
from .permissions import RolePermission
from .renderers import fast_json_renderers

NATIVE_GANG_API = "scheduling.k8s.io/v1alpha2"
COSCHEDULING_API = "scheduling.x-k8s.io/v1alpha1"
# a node's name as Kubernetes allows it (a DNS subdomain)
NODE_NAME = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
# a namespaced object's namespace (a DNS label) and name, as URL path segments
NAMESPACED = r"(?P<namespace>[a-z0-9]([-a-z0-9]*[a-z0-9])?)/(?P<name>[^/]+)"


def _other_schema(what: str) -> OpenApiParameter:
    """The ``other`` parameter of a comparison of two objects of one kind."""
    return id_schema("other", f"the {what} to compare with", required=True)


class Base(viewsets.GenericViewSet):
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [RolePermission]

    def get_object(self) -> Any:
        """A 404, not a database error, for ids that are not 64-bit integers."""
        lookup = self.kwargs.get(self.lookup_url_kwarg or self.lookup_field)
        try:
            parse_int(lookup, "id", lo=1)
        except ValidationError:
            raise NotFound("No object has this id.") from None
        return super().get_object()

    def with_other(self, others: QuerySet[Any]) -> tuple[Any, Any]:
        """This object and the one ``?other=`` names among ``others`` (400 for a bad id, 404 for
        a missing one)."""
        other = int_param(self.request, "other", lo=1)
        return self.get_object(), get_object_or_404(others, pk=other)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, BadInput):
            exc = ValidationError(exc.errors)
        elif isinstance(exc, NotCancellable | GangsUnavailable):
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        elif isinstance(exc, ConfigMapWriteError):
            # recorded (inactive, with the error); the active profile is unchanged
            return Response(
                {
                    "detail": f"not applied: {exc}; the active profile is unchanged",
                    "application": s.ApplicationSerializer(exc.application).data,
                },
                status=status.HTTP_502_BAD_GATEWAY if exc.upstream else status.HTTP_409_CONFLICT,
            )
        elif isinstance(exc, ProtectedError):
            return Response(
                {"detail": "in use by dry-runs or applications"}, status=status.HTTP_409_CONFLICT
            )
        return super().handle_exception(exc)


class ClusterViewSet(Base, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    queryset = Cluster.objects.all()
    serializer_class = s.ClusterSerializer
    action_roles = {"rollback": ADMIN}

    @extend_schema(
        responses=s.ExplanationSerializer,
        parameters=[
            OpenApiParameter(
                "include",
                {"type": "array", "items": {"type": "string", "enum": list(INCLUDE)}},
                explode=False,
                description="sections to add (comma-separated): `nodes`, every node's record "
                "(scores, filterFailures, allFilterFailures, pluginScores, record, and "
                "beforePreemption's filterFailures, allFilterFailures; megabytes at "
                "thousands of nodes); `whatif`, the nearest nodes and verified changes of a pod "
                "that does not fit (computed only when asked). Without it: the verdict, the "
                "events and nodeSummary.",
            )
        ],
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=rf"pods/{NAMESPACED}/explanation",
        # with include=nodes, every node's record: megabytes at thousands of nodes, by orjson
        renderer_classes=fast_json_renderers(),
    )
    def explanation(self, request: Request, namespace: str, name: str, **kw: Any) -> Response:
        raw = request.query_params.getlist("include")
        try:
            include = parse_include(raw)
        except IncludeError as exc:
            raise ValidationError({"include": [str(exc)]}) from None
        cluster = self.get_object()
        try:
            data = explain_pod(cluster, namespace, name, whatif="whatif" in include)
        except Pod.DoesNotExist as exc:
            raise NotFound(str(exc)) from None
        return Response(answer(data, include))

    @extend_schema(operation_id="clusters_gangs_list", responses=s.GangSerializer(many=True))
    @action(detail=True, methods=["get"], url_path="gangs", pagination_class=None)
    def gangs(self, request: Request, **kw: Any) -> Response:
        """Pod groups (either gang API) with pending members: how many fit and where, what
        blocks the rest by reason, the quorum they lack (the engine, with the active profile).
        409 when the cluster is too large to schedule within a request."""
        return Response(pending_gangs(self.get_object()))

    @extend_schema(
        operation_id="clusters_gangs_retrieve",
        responses=s.GangSerializer,
        parameters=[
            OpenApiParameter(
                "api",
                OpenApiTypes.STR,
                description="the group's API version, when both gang APIs have a group of "
                "this name",
                enum=[NATIVE_GANG_API, COSCHEDULING_API],
            )
        ],
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=rf"gangs/{NAMESPACED}",
    )
    def gang(self, request: Request, namespace: str, name: str, **kw: Any) -> Response:
        """One pod group with pending members, diagnosed as a job."""
        cluster = self.get_object()
        api = request.query_params.get("api")
        if api is not None and api not in (NATIVE_GANG_API, COSCHEDULING_API):
            raise ValidationError(
                {"api": [f"must be {NATIVE_GANG_API} or {COSCHEDULING_API}, not {api!r}"]}
            )
        g = find_gang(cluster, namespace, name, api)
        if g is None:
            raise NotFound(
                f"no pod group {namespace}/{name} with pending members in cluster {cluster.name}"
            )
        return Response(g)

    @extend_schema(
        operation_id="clusters_unschedulable_retrieve", responses=s.UnschedulableSerializer
    )
    @action(detail=True, methods=["get"], url_path="unschedulable", pagination_class=None)
    def unschedulable(self, request: Request, **kw: Any) -> Response:
        """Pending pods nobody will schedule, one finding per reason: a schedulerName no
        profile or declared scheduler serves, a gate no known controller removes, a PodGroup
        (either API) that does not exist, a claim that is never created (docs/orphans.md)."""
        return Response(unschedulable(self.get_object()))

    @extend_schema(
        methods=["GET"],
        operation_id="clusters_unschedulable_settings_retrieve",
        responses=s.UnschedulableSettingsSerializer,
    )
    @extend_schema(
        methods=["PATCH"],
        operation_id="clusters_unschedulable_settings_partial_update",
        request=s.UnschedulableSettingsSerializer,
        responses=s.UnschedulableSettingsSerializer,
    )
    @action(detail=True, methods=["get", "patch"], url_path="unschedulable-settings")
    def unschedulable_settings(self, request: Request, **kw: Any) -> Response:
        """The cluster's declared schedulers and gate-removing controllers; PATCH replaces
        the lists given (operator). A bad name is a 400 naming the field and item."""
        cluster = self.get_object()
        if request.method == "GET":
            return Response(settings_of(cluster))
        return Response(update_settings(cluster, request.data))

    @extend_schema(operation_id="clusters_gpus_retrieve", responses=GpuFleetSerializer)
    @action(detail=True, methods=["get"], url_path="gpus")
    def gpus(self, request: Request, **kw: Any) -> Response:
        """The GPU fleet: free GPUs, whole free 8-GPU nodes and NVLink domains, per node."""
        return Response(hardware.fleet(self.get_object()).to_dict())

    @extend_schema(operation_id="clusters_gpus_node_retrieve", responses=GpuNodeSerializer)
    @action(detail=True, methods=["get"], url_path=rf"gpus/(?P<node>{NODE_NAME})")
    def gpu_node(self, request: Request, node: str, **kw: Any) -> Response:
        """One node's GPUs (DRA devices or device-plugin cells), NUMA zones, inconsistencies."""
        cluster = self.get_object()
        view = hardware.node_view(cluster, node)
        if view is None:
            raise NotFound(f"node {node} of cluster {cluster.name} has no GPUs or does not exist")
        return Response(view.to_dict())

    @extend_schema(responses=InconsistencySerializer(many=True))
    @action(detail=True, methods=["get"], url_path="gpu-inconsistencies", pagination_class=None)
    def gpu_inconsistencies(self, request: Request, **kw: Any) -> Response:
        """Where nvidia.com/gpu allocatable, GFD's count and ResourceSlice devices disagree,
        running pods ask for more than allocatable, or claims hold devices for pods now gone."""
        return Response(hardware.inconsistencies(self.get_object()))

    @extend_schema(request=None, responses=s.AppliedSerializer)
    @action(detail=True, methods=["post"])
    def rollback(self, request: Request, **kw: Any) -> Response:
        app = profile_services.rollback(self.get_object(), user=request.user)
        return Response(s.AppliedSerializer(app).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=s.ApplicationSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=StrictLimitOffsetPagination)
    def applications(self, request: Request, **kw: Any) -> Response:
        apps = selectors.applications(self.get_object()).order_by("-id")
        page = self.paginate_queryset(apps)
        return self.get_paginated_response(s.ApplicationSerializer(page, many=True).data)


class NodeViewSet(Base, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    serializer_class = s.NodeSerializer

    @extend_schema(parameters=[id_schema("cluster", "only this cluster's nodes")])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Node]:
        qs = Node.objects.all().order_by("cluster_id", "name")
        cluster = id_param(self.request, "cluster")
        if cluster is not None:
            qs = qs.filter(cluster_id=cluster)
        return qs


def _text_schema(max_length: int) -> dict[str, Any]:
    """What text_param accepts: no NUL characters (PostgreSQL text cannot hold them)."""
    return {"type": "string", "maxLength": max_length, "pattern": "^[^\\u0000]*$"}


class PodViewSet(Base, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    serializer_class = s.PodSerializer

    @extend_schema(
        parameters=[
            id_schema("cluster", "only this cluster's pods"),
            OpenApiParameter("namespace", _text_schema(253)),
            OpenApiParameter("pending", bool),
            OpenApiParameter(
                "reason", _text_schema(1024), description="text of the FailedScheduling message"
            ),
        ]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Pod]:
        qs = Pod.objects.all().order_by("cluster_id", "namespace", "name")
        cluster = id_param(self.request, "cluster")
        if cluster is not None:
            qs = qs.filter(cluster_id=cluster)
        namespace = text_param(self.request, "namespace", max_length=253)
        if namespace:
            qs = qs.filter(namespace=namespace)
        if bool_param(self.request, "pending"):
            qs = qs.filter(phase="Pending", node_name="")
        reason = text_param(self.request, "reason")
        if reason:
            events = Event.objects.filter(
                cluster_id=OuterRef("cluster_id"),
                involved_namespace=OuterRef("namespace"),
                involved_name=OuterRef("name"),
                message__icontains=reason,
            )
            qs = qs.filter(Exists(events))
        return qs


class ProfileViewSet(
    Base, mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin
):
    queryset = Profile.objects.select_related("cluster")
    serializer_class = s.ProfileSerializer

    def body_limit(self) -> int:
        """A config document plus its JSON escaping (the document itself: SCHEDLAB_MAX_CONFIG_BYTES)."""
        return 2 * conf.max_config_bytes()

    @extend_schema(request=s.ProfileCreateSerializer, responses={201: s.ProfileVersionSerializer})
    def create(self, request: Request, **kw: Any) -> Response:
        body = s.ProfileCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        version = profile_services.create_profile(author=request.user, **body.validated_data)
        return Response(s.ProfileVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["get"], request=None, responses=s.ProfileVersionSerializer(many=True))
    @extend_schema(
        methods=["post"],
        request=s.VersionCreateSerializer,
        responses={201: s.ProfileVersionSerializer},
    )
    @action(detail=True, methods=["get", "post"])
    def versions(self, request: Request, **kw: Any) -> Response:
        profile = self.get_object()
        if request.method == "GET":
            qs = selectors.profile_versions().filter(profile=profile).order_by("number")
            page = self.paginate_queryset(qs)
            return self.get_paginated_response(s.ProfileVersionSerializer(page, many=True).data)
        body = s.VersionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        version = profile_services.create_version(
            profile, author=request.user, **body.validated_data
        )
        return Response(s.ProfileVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.ValidateSerializer, responses=s.ValidationResultSerializer)
    @action(detail=False, methods=["post"])
    def validate(self, request: Request, **kw: Any) -> Response:
        body = s.ValidateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        document = body.validated_data["document"]
        problems = profile_services.validate_document(document)
        shown = problems[: conf.max_reported_errors()]
        return Response(
            {
                "valid": not problems,
                "errors": [p.as_dict() for p in shown],
                "error_count": len(problems),
                "warnings": profile_services.document_warnings(document),
            }
        )

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    # not named "schema": that attribute is the view's OpenAPI inspector
    @action(detail=False, methods=["get"], url_path="schema")
    def editor_schema(self, request: Request, **kw: Any) -> Response:
        """The configuration's JSON Schema, the plugins with their extension points, args schemas."""
        return Response(profile_services.editor_schema())


class ProfileVersionViewSet(Base, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    serializer_class = s.ProfileVersionSerializer
    action_roles = {"apply": ADMIN}

    @extend_schema(parameters=[id_schema("profile", "only this profile's versions")])
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[ProfileVersion]:
        qs = selectors.profile_versions().order_by("profile_id", "number")
        profile = id_param(self.request, "profile")
        if profile is not None:
            qs = qs.filter(profile_id=profile)
        return qs

    @extend_schema(parameters=[_other_schema("version")], responses=s.DiffSerializer)
    @action(detail=True, methods=["get"])
    def diff(self, request: Request, **kw: Any) -> Response:
        a, b = self.with_other(ProfileVersion.objects.all())
        return Response({"a": a.pk, "b": b.pk, "diff": profile_services.diff_versions(a, b)})

    @extend_schema(request=s.ApplySerializer, responses={201: s.AppliedSerializer})
    @action(detail=True, methods=["post"])
    def apply(self, request: Request, **kw: Any) -> Response:
        version = self.get_object()
        body = s.ApplySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        app = profile_services.apply_version(
            body.validated_data["cluster"],
            version,
            user=request.user,
            dry_run=body.validated_data.get("dry_run"),
            force=body.validated_data["force"],
        )
        return Response(s.AppliedSerializer(app).data, status=status.HTTP_201_CREATED)


class DryRunViewSet(Base, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    queryset = DryRun.objects.defer("snapshot")
    serializer_class = s.DryRunSerializer
    write_role = OPERATOR

    def get_queryset(self) -> QuerySet[DryRun]:
        return selectors.dry_runs()

    def body_limit(self) -> int:
        if self.action == "create":
            return conf.max_snapshot_bytes()
        return conf.max_request_bytes()

    @extend_schema(request=s.DryRunCreateSerializer, responses={202: s.DryRunSerializer})
    def create(self, request: Request, **kw: Any) -> Response:
        length = request.META.get("CONTENT_LENGTH") or "0"
        if length.isdigit() and int(length) > conf.max_snapshot_bytes():
            raise ValidationError(
                {"snapshot": ["request is larger than SCHEDLAB_MAX_SNAPSHOT_BYTES"]}
            )
        try:
            body = s.DryRunCreateSerializer(data=request.data)
        except RequestDataTooBig:
            raise ValidationError(
                {"snapshot": ["request is larger than the upload limit"]}
            ) from None
        body.is_valid(raise_exception=True)
        run = dryrun_services.create_dry_run(user=request.user, **body.validated_data)
        return Response(s.DryRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[int_schema("offset", 0, OFFSET_MAX), int_schema("limit", 1, 1000)],
        responses=s.ResultPageSerializer,
    )
    @action(detail=True, methods=["get"])
    def results(self, request: Request, **kw: Any) -> Response:
        run = self.get_object()
        offset = int_param(request, "offset", 0, hi=OFFSET_MAX)
        limit = int_param(request, "limit", 100, lo=1, hi=1000)
        rows = read_results(run, offset, limit)
        return Response(
            {"count": run.result_count, "offset": offset, "limit": limit, "results": rows}
        )

    @extend_schema(responses=s.CascadeSerializer)
    @action(detail=True, methods=["get"])
    def cascade(self, request: Request, **kw: Any) -> Response:
        """The run's preemption cascade, per depth (a run with ``cascade_depth``, succeeded)."""
        run = self.get_object()
        found = (run.summary or {}).get("cascade")
        if found is None:
            why = (
                "was not run with cascade_depth"
                if not run.cascade_depth
                else f"is {run.status}, not succeeded"
            )
            raise NotFound(f"dry-run {run.pk} has no cascade: it {why}")
        return Response(found)

    @extend_schema(request=None, responses=s.DryRunSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, **kw: Any) -> Response:
        run = dryrun_services.cancel_dry_run(self.get_object())
        return Response(s.DryRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(parameters=[_other_schema("dry-run")], responses=s.CompareSerializer)
    @action(detail=True, methods=["get"])
    def compare(self, request: Request, **kw: Any) -> Response:
        a, b = self.with_other(self.get_queryset())
        # either run's extenders, once each: neither run called them
        answer = {
            **dryrun_services.compare_dry_runs(a, b),
            "warnings": profile_services.run_warnings(a, b),
        }
        return Response(answer)


__all__ = [
    "ClusterViewSet",
    "DryRunViewSet",
    "NodeViewSet",
    "PodViewSet",
    "ProfileVersionViewSet",
    "ProfileViewSet",
]
