"""The test-suite: real PostgreSQL and Redis on 127.0.0.1 (make test starts them)."""

from __future__ import annotations

import os

from .base import *  # noqa: F403
from .base import VAR_DIR, database_from_env, redis_channel_layer
from .env import env_bool, env_str

DEBUG = False
SECRET_KEY = "test-only-secret"
ALLOWED_HOSTS = ["*"]

DATABASES = {"default": database_from_env("postgres://postgres@127.0.0.1:5432/schedlab")}
# Several people (and CI) may run the suite at once on one PostgreSQL: a test
# database per process keeps their runs from dropping each other's database.
# A worker process started by a test passes the parent's id on in SCHEDLAB_TEST_ID.
TEST_ID = env_str("SCHEDLAB_TEST_ID", str(os.getpid()))
DATABASES["default"]["TEST"] = {"NAME": f"test_schedlab_{TEST_ID}"}
DATABASES["default"]["CONN_MAX_AGE"] = 0

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
# Same reason: a prefix per process so concurrent runs never see each other's messages.
CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL, prefix=f"schedlab-test-{TEST_ID}")}
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
# a test that starts workers of its own gives them a queue of their own
CELERY_TASK_DEFAULT_QUEUE = env_str("SCHEDLAB_TEST_QUEUE", f"schedlab-test-{TEST_ID}")

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# No background build of warm explanation state in server processes the tests
# start (a test turns it on with the environment variable of the same name).
SCHEDLAB_EXPLAIN_PREWARM = env_bool("SCHEDLAB_EXPLAIN_PREWARM", False)
MIRROR_BACKOFF_BASE = 0.05
MIRROR_BACKOFF_MAX = 0.5

# WhiteNoise warns about a missing STATIC_ROOT; tests serve from finders instead.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
STATIC_ROOT = VAR_DIR / "test-static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
