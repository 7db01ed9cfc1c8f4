"""The studies endpoints: start, list, read, cancel and export trace-replay studies.

Operators start and cancel; viewers read.  Bad input is a 400 naming the
field (``traces[1]``, ``policies``, ``runs`` for a study over the cap).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from dashboard import conf
from dashboard.roles import OPERATOR
from dashboard.studies.models import Study, StudyRun
from dashboard.studies.services import studies as study_services
from scheduler_engine.plugins.gpupolicies import POLICIES
from scheduler_engine.replay import MODES

from .fields import StrictCharField
from .serializers import MAX_SEED
from .views import Base

__all__ = ["StudyViewSet"]

POLICY_CHOICES = [study_services.DEFAULT_POLICY, *sorted(POLICIES)]


class TraceSerializer(serializers.Serializer):
    name = StrictCharField(required=False, allow_blank=True, max_length=200, default="")
    jsonl = StrictCharField(
        required=False, trim_whitespace=False, help_text="Schedlab's JSON-lines trace"
    )
    nodes_csv = StrictCharField(
        required=False, trim_whitespace=False, help_text="openb node list (CSV)"
    )
    pods_csv = StrictCharField(
        required=False, trim_whitespace=False, help_text="openb pod list (CSV)"
    )
    cluster = StrictCharField(
        required=False,
        max_length=253,
        help_text="a mirrored cluster's name: its pod history as a trace (export_trace)",
    )
    days = serializers.FloatField(
        required=False,
        min_value=0.001,
        help_text="with cluster: only pods created in the last N days",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        sources = [
            "jsonl" in attrs,
            "nodes_csv" in attrs or "pods_csv" in attrs,
            "cluster" in attrs,
        ]
        if sum(sources) != 1 or (sources[1] and not ("nodes_csv" in attrs and "pods_csv" in attrs)):
            raise ValidationError("give one of: jsonl; nodes_csv and pods_csv; cluster")
        if "days" in attrs and "cluster" not in attrs:
            raise ValidationError({"days": ["only with cluster"]})
        return attrs


class StudyCreateSerializer(serializers.Serializer):
    name = StrictCharField(required=False, allow_blank=True, max_length=200, default="")
    preset = serializers.ChoiceField(
        choices=list(study_services.PRESETS),
        required=False,
        allow_blank=True,
        default="",
        help_text=(
            "nodes-to-score: the built-in throughput-versus-quality study, percentages "
            "5, 10, 20, 30, 50, 75 and 100 under the default profile unless given"
        ),
    )
    traces = TraceSerializer(many=True, allow_empty=False)
    policies = serializers.ListField(
        child=serializers.ChoiceField(choices=POLICY_CHOICES),
        required=False,
        allow_empty=False,
        help_text="'default' is the default profile; the others are the FGD paper's policies",
    )
    profile_versions = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_SEED),
        required=False,
        default=list,
    )
    seeds = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_SEED),
        required=False,
        allow_empty=False,
        default=lambda: [42],
    )
    percentages = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=100),
        required=False,
        allow_empty=False,
        help_text="percentageOfNodesToScore values (0: adaptive)",
    )
    mode = serializers.ChoiceField(choices=list(MODES), default="inflate")
    inflate = serializers.FloatField(min_value=0.01, max_value=10.0, default=1.3)


class StudyRunSerializer(serializers.ModelSerializer):
    trace = serializers.CharField(source="trace.name")

    class Meta:
        model = StudyRun
        fields = [
            "index",
            "trace",
            "config_label",
            "seed",
            "percentage",
            "status",
            "progress",
            "worker",
            "summary",
            "curve",
            "error",
            "started_at",
            "finished_at",
        ]


class StudySerializer(serializers.ModelSerializer):
    traces = serializers.SerializerMethodField()
    configs = serializers.SerializerMethodField()

    class Meta:
        model = Study
        fields = [
            "id",
            "name",
            "preset",
            "status",
            "runs_total",
            "runs_done",
            "traces",
            "configs",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_traces(self, obj: Study) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "format": t.format, "nodes": t.nodes, "pods": t.pods}
            for t in obj.traces.all()
        ]

    def get_configs(self, obj: Study) -> list[str]:
        return [c["label"] for c in obj.spec.get("configs", [])]


class StudyDetailSerializer(StudySerializer):
    runs = StudyRunSerializer(many=True, read_only=True)
    seeds = serializers.JSONField(source="spec.seeds", read_only=True)
    percentages = serializers.JSONField(source="spec.percentages", read_only=True)
    mode = serializers.CharField(source="spec.mode", read_only=True)

    class Meta(StudySerializer.Meta):
        fields = [*StudySerializer.Meta.fields, "seeds", "percentages", "mode", "runs"]


class StudyViewSet(Base, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    queryset = Study.objects.prefetch_related("traces")
    serializer_class = StudySerializer
    write_role = OPERATOR

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return StudyDetailSerializer if self.action == "retrieve" else StudySerializer

    def get_queryset(self) -> Any:
        qs = Study.objects.prefetch_related("traces")
        if self.action == "retrieve":
            qs = qs.prefetch_related("runs__trace")
        return qs

    def body_limit(self) -> int:
        if self.action == "create":
            return conf.max_snapshot_bytes()
        return conf.max_request_bytes()

    @extend_schema(
        request=StudyCreateSerializer,
        responses={202: StudyDetailSerializer},
        description=(
            "Start a study (operators and admins): its runs are traces x (policies and "
            "profile versions) x seeds x percentages, one Celery task a run on any worker. "
            "400 names the field: an unknown policy (policies), a trace the reader refuses "
            "(traces[i], with the upload field, line and column), an unknown profile version "
            "(profile_versions[i]), more runs than SCHEDLAB_STUDY_MAX_RUNS (runs, default 200)."
        ),
    )
    def create(self, request: Request, **kw: Any) -> Response:
        body = StudyCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study = study_services.create_study(user=request.user, **body.validated_data)
        return Response(StudyDetailSerializer(study).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        request=None,
        responses={202: StudySerializer},
        description="Cancel (operators): queued runs are dropped, running ones stop within "
        "0.5 s, finished runs are kept; 409 when the study has finished.",
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, **kw: Any) -> Response:
        study = study_services.cancel_study(self.get_object())
        return Response(StudySerializer(study).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        parameters=[
            OpenApiParameter("type", str, enum=["json", "csv"], description="json (default) or csv")
        ],
        responses={200: OpenApiTypes.OBJECT},
        description="Every run's coordinates and figures: CSV (one row a run) or JSON (with "
        "each run's summary and unallocated-GPU curve).",
    )
    @action(detail=True, methods=["get"])
    def export(self, request: Request, **kw: Any) -> Any:
        study = self.get_object()
        kind = request.query_params.get("type", "json")
        if kind not in ("json", "csv"):
            raise ValidationError({"type": [f"must be json or csv, got {kind!r}"]})
        filename = f"study-{study.pk}.{kind}"
        if kind == "csv":
            resp = HttpResponse(study_services.export_csv(study), content_type="text/csv")
        else:
            return Response(
                study_services.export_json(study),
                headers={"Content-Disposition": f'attachment; filename="{filename}"'},
            )
        resp["Content-Disposition"] = f'attachment; filename="{filename}"'
        return resp
