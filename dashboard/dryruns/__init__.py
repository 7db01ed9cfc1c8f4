"""Scheduler profiles (app label ``dryruns``), their applications, dry-runs on Celery workers.

Above ``cluster`` (it freezes the mirrored state), below ``explain``, ``api`` and ``pages``.
"""
