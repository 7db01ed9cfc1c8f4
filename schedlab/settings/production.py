"""Production (docker-compose): PostgreSQL and Redis are required, secrets from env."""

from __future__ import annotations

from .base import *  # noqa: F403
from .base import database_from_env
from .env import ImproperEnv, env_bool, env_str

DEBUG = False
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    raise ImproperEnv("DJANGO_SECRET_KEY must be set in production")

if not env_str("DATABASE_URL"):
    raise ImproperEnv("DATABASE_URL must be set in production")
DATABASES = {"default": database_from_env(env_str("DATABASE_URL"))}
if not env_str("REDIS_URL"):
    raise ImproperEnv("REDIS_URL must be set in production (Celery broker and channel layer)")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
