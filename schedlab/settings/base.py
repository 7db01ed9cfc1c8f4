"""Settings shared by every environment; deployment values come from the environment."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import dj_database_url

from .env import env_bool, env_float, env_int, env_list, env_str
from .log_config import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# Runtime files of the one-machine setup (SQLite, the bundled Redis socket).
VAR_DIR = Path(env_str("SCHEDLAB_VAR_DIR", str(BASE_DIR / "var")))

# Development's key: production settings refuse it (and any other weak key).
DEV_SECRET_KEY = "insecure-dev-key-change-me"
SECRET_KEY = env_str("DJANGO_SECRET_KEY", DEV_SECRET_KEY)
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "rest_framework.authtoken",
    # Schedlab's apps, lowest layer first (see dashboard/__init__.py)
    "dashboard.cluster",
    "dashboard.dryruns",
    "dashboard.explain",
    "dashboard.studies",
    "dashboard.api",
    "dashboard.pages",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "schedlab.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "schedlab.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.pages.context_processors.navigation",
            ],
        },
    },
]


def plotly_package_data() -> Path:
    """The directory holding ``plotly.min.js`` in the installed ``plotly`` package."""
    spec = importlib.util.find_spec("plotly")
    assert spec is not None and spec.origin is not None, "the plotly package is required"
    return Path(spec.origin).parent / "package_data"


def database_from_env(default_url: str) -> dict:
    """``DATABASE_URL`` (dj-database-url syntax) or the environment's default; on PostgreSQL,
    ``DATABASE_POOL_SIZE`` > 0 gives the process a connection pool of at most that many."""
    config = dj_database_url.parse(env_str("DATABASE_URL", default_url), conn_max_age=60)
    size = env_int("DATABASE_POOL_SIZE", 0)
    if size > 0 and config["ENGINE"] == "django.db.backends.postgresql":
        # Under ASGI every request runs in a thread of its own, and a persistent
        # connection is per thread: a web process kept one per request it had
        # served until PostgreSQL refused more. A pool bounds them (docs/deployment.md).
        config["CONN_MAX_AGE"] = 0  # Django's pool and persistent connections exclude each other
        config["CONN_HEALTH_CHECKS"] = True  # the pool checks a connection before lending it
        config.setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": size,
            "timeout": 30.0,  # a request waits this long for a free connection
        }
    return config


DATABASES = {"default": database_from_env(f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Every page needs a login (views are decorated); the REST API has its own auth.
LOGIN_URL = "pages:login"
LOGIN_REDIRECT_URL = "pages:cluster-list"
LOGOUT_REDIRECT_URL = "pages:login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# plotly.js comes from the installed plotly package (no CDN: networks may be closed).
STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", plotly_package_data())]
STATIC_ROOT = Path(env_str("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "dashboard.api.schema.SchedlabAutoSchema",
    # JSON only, read up to each endpoint's size cap, nesting limited (dashboard/api/parsers.py)
    "DEFAULT_PARSER_CLASSES": ["dashboard.api.parsers.LimitedJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "dashboard.api.params.StrictLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Schedlab API",
    # the docs' JavaScript and CSS come from drf-spectacular-sidecar, never a CDN
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "VERSION": "0.1.0",
    # Two choice sets share the field name "source": name each enum after its model.
    "ENUM_NAME_OVERRIDES": {
        "ClusterSourceEnum": "dashboard.cluster.models.Cluster.Source",
        "DryRunSourceEnum": "dashboard.dryruns.models.DryRun.Source",
    },
}
DATA_UPLOAD_MAX_MEMORY_SIZE = SCHEDLAB_MAX_SNAPSHOT_BYTES = env_int(
    "SCHEDLAB_MAX_SNAPSHOT_BYTES", 64 << 20
)

# Redis serves both the Celery broker and the channel layer. Empty means "no
# Redis": dev then falls back to an in-process layer and eager tasks.
REDIS_URL = env_str("REDIS_URL", "")


def redis_channel_layer(url: str, prefix: str = "schedlab") -> dict:
    return {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [url], "prefix": prefix, "capacity": 1000, "expiry": 30},
    }


CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)} if REDIS_URL else {}

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Default live source for `manage.py mirror` when a cluster names none.
KUBECONFIG = env_str("KUBECONFIG", "")
KUBE_CONTEXT = env_str("KUBE_CONTEXT", "")

# Mirror tuning (see dashboard/cluster/mirror): page size of lists, seconds between
# full resyncs, backoff bounds, and how long a write batch may collect events.
MIRROR_PAGE_SIZE = env_int("MIRROR_PAGE_SIZE", 500)
MIRROR_RESYNC_SECONDS = env_float("MIRROR_RESYNC_SECONDS", 600.0)
MIRROR_BACKOFF_BASE = env_float("MIRROR_BACKOFF_BASE", 0.5)
MIRROR_BACKOFF_MAX = env_float("MIRROR_BACKOFF_MAX", 30.0)
MIRROR_BATCH_SECONDS = env_float("MIRROR_BATCH_SECONDS", 0.05)
MIRROR_WATCH_TIMEOUT = env_int("MIRROR_WATCH_TIMEOUT", 300)
# The mirror stamps its cluster row's heartbeat_at this often, changes or not; a
# cluster whose mirror has not stamped it for MIRROR_GONE_SECONDS is shown as
# "gone" (a killed mirror cannot say "stopped").
MIRROR_HEARTBEAT_SECONDS = env_float("MIRROR_HEARTBEAT_SECONDS", 5.0)
MIRROR_GONE_SECONDS = env_float("MIRROR_GONE_SECONDS", 30.0)

# A demo snapshot shipped by the engine; loaded by `make run`.
DEMO_SNAPSHOT = env_str(
    "SCHEDLAB_DEMO_SNAPSHOT", str(BASE_DIR / "scheduler_engine" / "demo" / "gpu-cluster.yaml")
)

# Each web (ASGI) process and Celery worker process builds every cluster's warm
# explanation state in a background thread at start-up (dashboard/explain/prewarm.py),
# so no request pays for it (~10 s at 5,000 nodes / 50,000 pods). Off in tests.
SCHEDLAB_EXPLAIN_PREWARM = env_bool("SCHEDLAB_EXPLAIN_PREWARM", True)

# A log record per request (schedlab/access_log.py), for servers run without
# an access log of their own; production turns it on.
SCHEDLAB_ACCESS_LOG = env_bool("SCHEDLAB_ACCESS_LOG", False)
LOGGING = logging_config(env_str("LOG_FORMAT", "plain"), env_str("LOG_LEVEL", "INFO"))
