"""Abstract models for work that users ask for and Celery workers carry out.

``Requested``: who asked and when; ``Ran``: when it started and finished;
``Worked``: a ``Ran`` that one Celery worker carries out, so it also says when
the worker last said it is alive (the reapers read it).  Abstract: each
concrete model keeps its own table and columns.  ``WorkStatus``: where such
work stands, ``FINISHED`` the statuses it ends in.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

__all__ = ["FINISHED", "Ran", "Requested", "WorkStatus", "Worked"]


class WorkStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    SUCCEEDED = "succeeded", "succeeded"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"


FINISHED = (WorkStatus.SUCCEEDED, WorkStatus.FAILED, WorkStatus.CANCELLED)


class Requested(models.Model):
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class Ran(models.Model):
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class Worked(Ran):
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
