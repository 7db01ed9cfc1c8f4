"""Production refuses to start with a missing, published or weak DJANGO_SECRET_KEY."""

from __future__ import annotations

import secrets

import pytest

from schedlab.settings.base import DEV_SECRET_KEY
from schedlab.settings.secret_key import weak_secret_key_reason

from .support import GOOD_ENV, production

STRONG = secrets.token_urlsafe(50)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("", "is not set"),
        (DEV_SECRET_KEY, "is a published default"),
        (
            "django-insecure-" + STRONG,
            "starts with 'django-insecure-' (made by startproject for development)",
        ),
        (STRONG[:49], "has 49 characters (at least 50 needed)"),
        ("abcd" * 20, "has 4 distinct characters (at least 5 needed)"),
        (STRONG, None),
    ],
    # fixed ids: every pytest-xdist process collects the same tests (STRONG is random)
    ids=["unset", "published-default", "startproject", "49-characters", "4-distinct", "strong"],
)
def test_the_reason_names_what_is_wrong(key, reason):
    assert weak_secret_key_reason(key, frozenset({DEV_SECRET_KEY})) == reason


# Which keys are weak is the table above; here, what a process does with one.
@pytest.mark.parametrize("key", [None, "change-me-in-production"])
def test_every_process_stops_with_one_line_and_status_2(key):
    env = {k: v for k, v in GOOD_ENV.items() if k != "DJANGO_SECRET_KEY"}
    if key is not None:
        env["DJANGO_SECRET_KEY"] = key
    result = production("manage.py", "check", env=env)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("schedlab: production settings refused: DJANGO_SECRET_KEY ")
    assert "secrets.token_urlsafe(50)" in lines[0]


def test_all_missing_variables_are_named_at_once():
    result = production("manage.py", "check", env={"DJANGO_SECURE_SSL_REDIRECT": "maybe"})
    assert result.returncode == 2
    line = result.stderr.strip()
    for name in ("DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DJANGO_SECURE_SSL_REDIRECT"):
        assert name in line, line


@pytest.mark.parametrize(
    "command",
    [
        ("-m", "daphne", "-b", "127.0.0.1", "-p", "0", "schedlab.asgi:application"),
        ("-m", "celery", "-A", "schedlab", "worker", "--pool=solo"),
        ("manage.py", "mirror"),
    ],
    ids=["web", "worker", "mirror"],
)
def test_the_servers_refuse_before_listening(command):
    result = production(*command, env={**GOOD_ENV, "DJANGO_SECRET_KEY": DEV_SECRET_KEY})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "DJANGO_SECRET_KEY is a published default" in result.stderr
    assert "Traceback" not in result.stderr
