"""The LOGGING dictionary: plain lines for people, JSON lines for log collectors.

``LOG_FORMAT=json`` writes one JSON object per line (``time``, ``level``,
``logger``, ``message``, then any ``extra`` fields and ``exc_info``) through
python-json-logger; ``plain`` is the readable default of development.
"""

from __future__ import annotations

from typing import Any

from .env import ImproperEnv

__all__ = ["LOG_FORMATS", "logging_config"]

LOG_FORMATS = ("plain", "json")

_FORMATTERS: dict[str, dict[str, Any]] = {
    "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
    "json": {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "fmt": "{levelname}{name}{message}",
        "style": "{",
        "rename_fields": {"levelname": "level", "name": "logger"},
        "timestamp": "time",
    },
}


def logging_config(fmt: str, level: str) -> dict[str, Any]:
    """Everything to stderr through one handler, in ``fmt`` (``plain`` or ``json``)."""
    if fmt not in _FORMATTERS:
        raise ImproperEnv(f"LOG_FORMAT={fmt!r}: expected one of {', '.join(LOG_FORMATS)}")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {fmt: _FORMATTERS[fmt]},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": fmt}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "daphne": {"level": "WARNING"},
            "django.channels.server": {"level": "WARNING"},
        },
    }
