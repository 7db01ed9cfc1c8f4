"""Static files as production and `make run` serve them: hashed names, gzip, cached for a year."""

from __future__ import annotations

import gzip

import pytest
from django.core.management import call_command
from django.templatetags.static import static
from django.test import Client, override_settings

MANIFEST = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    root = tmp_path_factory.mktemp("static")
    with override_settings(STATIC_ROOT=root, STORAGES=MANIFEST):
        # only what the pages load (the admin, DRF and API-docs assets are not needed here)
        call_command(
            "collectstatic",
            "--noinput",
            "-v",
            "0",
            "-i",
            "admin",
            "-i",
            "rest_framework",
            "-i",
            "drf_spectacular_sidecar",
            "-i",
            "widgetbundle.js",
            "-i",
            "datasets",
        )
    return root


def test_plotly_is_served_gzipped_and_cached_under_a_hashed_name(collected, db):
    with override_settings(
        STATIC_ROOT=collected,
        STORAGES=MANIFEST,
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
    ):
        url = static("plotly/plotly.min.js")
        assert url != "/static/plotly/plotly.min.js" and url.endswith(".js"), url
        r = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
        body = b"".join(r.streaming_content)
    assert r.status_code == 200
    assert r["Content-Encoding"] == "gzip"
    assert "immutable" in r["Cache-Control"] and "max-age=315360000" in r["Cache-Control"]
    plain = gzip.decompress(body)
    assert len(body) < len(plain) / 3, (len(body), len(plain))
