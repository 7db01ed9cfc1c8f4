"""The Celery app; its broker and result backend come from settings (CELERY_*)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.dev")

app = Celery("schedlab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
