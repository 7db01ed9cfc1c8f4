"""A study, the traces it replays, and its runs (one engine replay each)."""

from __future__ import annotations

from django.db import models

from dashboard import stamps
from dashboard.stamps import Ran, Requested, Worked

Status = stamps.WorkStatus
FINISHED = stamps.FINISHED


class Study(Requested, Ran):
    """``spec`` keeps what was asked: configurations (label, policy, document), seeds,
    percentages, mode and inflate factor; the runs are its cross product."""

    name = models.CharField(max_length=200)
    preset = models.CharField(max_length=40, blank=True)
    spec = models.JSONField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    runs_total = models.PositiveIntegerField(default=0)
    runs_done = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return self.name


class StudyTrace(models.Model):
    """One trace, as uploaded: Schedlab JSON lines, or the openb node and pod CSV files."""

    class Format(models.TextChoices):
        JSONL = "jsonl", "jsonl"
        OPENB = "openb", "openb"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="traces")
    index = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    format = models.CharField(max_length=8, choices=Format.choices)
    nodes_text = models.TextField(blank=True)
    pods_text = models.TextField()
    nodes = models.PositiveIntegerField(default=0)
    pods = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["study_id", "index"]

    def __str__(self) -> str:
        return self.name


class StudyRun(Worked):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="runs")
    index = models.PositiveIntegerField()
    trace = models.ForeignKey(StudyTrace, on_delete=models.CASCADE, related_name="runs")
    config_index = models.PositiveIntegerField()
    config_label = models.CharField(max_length=200)
    seed = models.BigIntegerField()
    percentage = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0)
    worker = models.CharField(max_length=200, blank=True)
    summary = models.JSONField(null=True, blank=True)
    curve = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["study_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["study", "index"], name="study_run_unique_index")
        ]

    def __str__(self) -> str:
        return f"{self.study_id}/{self.index}"
