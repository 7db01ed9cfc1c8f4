"""`check --deploy` is clean with production defaults; HTTPS settings come from the environment."""

from __future__ import annotations

import re

from .support import GOOD_ENV, production, settings_under


def _deploy_check(**overrides: str):
    return production(
        "manage.py", "check", "--deploy", "--fail-level", "WARNING", env={**GOOD_ENV, **overrides}
    )


def test_the_defaults_pass_every_deployment_check():
    result = _deploy_check()
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def _warnings(stderr: str) -> set[str]:
    return set(re.findall(r"\((security\.W\d+)\)", stderr))


def test_each_protection_can_be_turned_off_and_check_deploy_says_so():
    result = _deploy_check(
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_SECURE_COOKIES="off",
        DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS="0",
        DJANGO_SECURE_HSTS_PRELOAD="no",
    )
    assert result.returncode == 1
    # SSL redirect, session and CSRF cookies, HSTS subdomains and preload
    assert _warnings(result.stderr) == {
        "security.W008",
        "security.W012",
        "security.W016",
        "security.W005",
        "security.W021",
    }, result.stderr
    result = _deploy_check(DJANGO_SECURE_HSTS_SECONDS="0")
    assert _warnings(result.stderr) == {"security.W004"}, result.stderr


NAMES = (
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_PROXY_SSL_HEADER",
    "DEBUG",
)


def test_settings_follow_the_environment_with_safe_defaults():
    assert settings_under(GOOD_ENV, NAMES) == {
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31_536_000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "DEBUG": False,
    }
    plain_http = {
        **GOOD_ENV,
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SECURE_HSTS_SECONDS": "3600",
        "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "no",
        "DJANGO_SECURE_HSTS_PRELOAD": "off",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_DEBUG": "true",  # never honoured in production
    }
    assert settings_under(plain_http, NAMES) == {
        "SECURE_SSL_REDIRECT": False,
        "SECURE_HSTS_SECONDS": 3600,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
        "SECURE_HSTS_PRELOAD": False,
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "DEBUG": False,
    }


def test_a_negative_hsts_age_is_refused():
    result = production("manage.py", "check", env={**GOOD_ENV, "DJANGO_SECURE_HSTS_SECONDS": "-1"})
    assert result.returncode == 2
    assert "DJANGO_SECURE_HSTS_SECONDS=-1: must be 0 or more" in result.stderr
