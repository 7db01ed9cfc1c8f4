"""Production (docker-compose, Kubernetes): PostgreSQL, Redis and secrets from the environment.

A misconfiguration stops every process (web, worker, mirror, manage.py) at
start with one line naming each variable to fix and exit status 2, before
anything listens or connects: ``DJANGO_SECRET_KEY`` unset, a published
default or weak; ``DATABASE_URL`` or ``REDIS_URL`` unset; a malformed value.

HTTPS is assumed (behind a proxy that sets ``X-Forwarded-Proto``): plain
HTTP is redirected, cookies are secure, HSTS is sent. Each is an environment
variable for deployments that serve plain HTTP on purpose (a laptop's
docker-compose): see docs/deployment.md.
"""

from __future__ import annotations

import logging
import sys

from .env import ImproperEnv, env_bool, env_int, env_str
from .secret_key import GENERATE_HINT, weak_secret_key_reason

try:
    from .base import *  # noqa: F403
    from .base import DEV_SECRET_KEY, database_from_env
    from .log_config import logging_config

    _problems: list[str] = []
    DEBUG = False

    # Keys this repository has published as placeholders: never a real deployment's.
    KNOWN_DEFAULT_KEYS = frozenset({DEV_SECRET_KEY, "change-me-in-production", "test-only-secret"})
    SECRET_KEY = env_str("DJANGO_SECRET_KEY")
    _weak = weak_secret_key_reason(SECRET_KEY, KNOWN_DEFAULT_KEYS)
    if _weak:
        _problems.append(f"DJANGO_SECRET_KEY {_weak}: {GENERATE_HINT}")

    if not env_str("DATABASE_URL"):
        _problems.append("DATABASE_URL must be set (postgres://USER:PASSWORD@HOST:5432/NAME)")
    else:
        DATABASES = {"default": database_from_env(env_str("DATABASE_URL"))}
    if not env_str("REDIS_URL"):
        _problems.append("REDIS_URL must be set (the Celery broker and the channel layer)")

    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    # One year, as HSTS preload lists ask; 0 turns the header off.
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
    if SECURE_HSTS_SECONDS < 0:
        _problems.append(f"DJANGO_SECURE_HSTS_SECONDS={SECURE_HSTS_SECONDS}: must be 0 or more")

    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

    # JSON lines for log collectors (Celery workers too: schedlab/celery.py),
    # requests included: Daphne runs with --verbosity 0 (no plain access log).
    LOGGING = logging_config(env_str("LOG_FORMAT", "json"), env_str("LOG_LEVEL", "INFO"))
    SCHEDLAB_ACCESS_LOG = env_bool("SCHEDLAB_ACCESS_LOG", True)
    # Python warnings (a library's UserWarning) become records too, not bare stderr text.
    logging.captureWarnings(True)
except ImproperEnv as exc:
    _problems = [*locals().get("_problems", []), str(exc)]

if _problems:
    # A settings module has no caller to report to: say it once and stop, no traceback.
    print(f"schedlab: production settings refused: {'; '.join(_problems)}", file=sys.stderr)
    raise SystemExit(2)
