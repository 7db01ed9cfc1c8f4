"""Scheduler profiles, dry-runs in Celery workers, and the REST API (``/api/v1/``)."""
