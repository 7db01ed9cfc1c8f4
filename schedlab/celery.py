"""The Celery app; its broker and result backend come from settings (CELERY_*)."""

from __future__ import annotations

import logging.config
import os

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.dev")

app = Celery("schedlab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@setup_logging.connect
def _log_like_django(**_: object) -> None:
    """Workers log through Django's LOGGING (JSON lines in production, LOG_LEVEL).

    With a receiver for this signal Celery configures no logging of its own,
    so its ``--loglevel`` and root-logger handler do not apply.
    """
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
