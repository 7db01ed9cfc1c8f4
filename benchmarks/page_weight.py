"""What a first page load costs in static bytes, as production serves them.

Collects the static files with production's storage (hashed names, gzip) into
a temporary directory and prints, for the scripts the pages load, the size on
disk and the gzipped size a browser downloads; then which pages load Plotly.

    .venv/bin/python benchmarks/page_weight.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.dev")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import override_settings  # noqa: E402

FILES = [
    "plotly/plotly.min.js",
    "build/editor.js",
    "dashboard/app.css",
    "dashboard/live.js",
    "dashboard/responsive.js",
    "drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js",
    "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js",
]
MANIFEST = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        override_settings(STATIC_ROOT=tmp, STORAGES=MANIFEST),
    ):
        call_command("collectstatic", "--noinput", "-v", "0")
        from django.contrib.staticfiles.storage import staticfiles_storage

        print(f"{'file':60} {'raw KiB':>9} {'gzip KiB':>9}")
        for name in FILES:
            try:
                hashed = staticfiles_storage.stored_name(name)
            except ValueError:
                print(f"{name:60} {'(not built)':>19}")
                continue
            raw = Path(tmp, hashed).stat().st_size
            gz = Path(tmp, hashed + ".gz")
            gz_size = gz.stat().st_size if gz.exists() else raw
            print(f"{name:60} {raw / 1024:9.0f} {gz_size / 1024:9.0f}")
    templates = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "templates").rglob("*.html")
        if "plotly/plotly.min.js" in p.read_text()
    )
    print("templates that load Plotly:", ", ".join(templates))


if __name__ == "__main__":
    main()
