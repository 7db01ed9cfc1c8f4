"""Browser tests: a real ASGI server (Daphne), a real Celery worker, headless Chromium.

The server and the worker are subprocesses on this process's test database
(``DATABASE_URL``) and channel-layer prefix (``SCHEDLAB_TEST_ID``), so what a
test writes (committed: these tests use ``transactional_db``) is what the
browser sees, and what the test process broadcasts reaches the browser's
websockets. Chromium is Debian's (/usr/bin/chromium); no browser is downloaded.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import connection

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.snapshots import import_snapshot
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.fixtures import DEMO, worker  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
# `make screenshots` refreshes the README's pictures in docs/screenshots; an
# ordinary run writes them to a scratch directory and leaves the tree clean.
SCREENSHOTS = Path(
    os.environ.get("SCHEDLAB_SCREENSHOTS_DIR")
    or Path(tempfile.gettempdir()) / f"schedlab-screenshots-{os.getpid()}"
)
CHROMIUM = os.environ.get("SCHEDLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "browser-test-password"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env() -> dict[str, str]:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "schedlab.settings.test",
        "SCHEDLAB_TEST_ID": settings.TEST_ID,
        "DATABASE_URL": f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }


@pytest.fixture(scope="package")
def live_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """Daphne serving schedlab.asgi on a free port (HTTP and websockets)."""
    yield from serve()


def serve(**extra_env: str) -> Iterator[str]:
    """Start daphne (with ``extra_env`` on top of the test settings), yield its URL, stop it."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "schedlab.asgi:application",
        ],
        env={**_server_env(), **extra_env},
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("daphne did not start")
        time.sleep(0.1)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="package")
def chromium():
    """One headless Chromium for these tests (closed before the rest of the suite runs)."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=15_000)

    # Playwright's sync API runs an event loop in this thread; the ORM calls the
    # tests make between browser steps are still plain synchronous calls.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield browser
    browser.close()
    pw.stop()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def _new_page(chromium, live_url, width: int, height: int):
    context = chromium.new_context(viewport={"width": width, "height": height}, base_url=live_url)
    context.set_default_timeout(15_000)
    pg = context.new_page()
    errors: list[str] = []
    console: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on(
        "console",
        lambda msg: (
            console.append(f"{msg.text} ({msg.location.get('url', '')})")
            if msg.type == "error"
            else None
        ),
    )
    pg.js_errors = errors  # type: ignore[attr-defined]
    pg.console_errors = console  # type: ignore[attr-defined]
    return context, pg


def _check_console(request, pg) -> None:
    """A test fails on any uncaught error or console error its pages logged.

    Tests that break the server on purpose mark themselves
    ``@pytest.mark.console_errors_expected``.
    """
    if request.node.get_closest_marker("console_errors_expected"):
        return
    problems = [*pg.js_errors, *pg.console_errors]
    if problems:
        pytest.fail(f"errors in the browser console: {problems}", pytrace=False)


@pytest.fixture
def page(request, chromium, live_url):
    context, pg = _new_page(chromium, live_url, 1280, 860)
    yield pg
    try:
        _check_console(request, pg)
    finally:
        context.close()


@pytest.fixture
def phone(request, chromium, live_url):
    """A page 390 px wide (a phone), same checks as ``page``."""
    context, pg = _new_page(chromium, live_url, 390, 844)
    yield pg
    try:
        _check_console(request, pg)
    finally:
        context.close()


@pytest.fixture
def demo(transactional_db) -> Cluster:
    return import_snapshot(DEMO, "demo").cluster


def make_user(role: str) -> User:
    user = User.objects.create_user(f"{role}-browser", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    return user


def log_in(page, role: str, next_path: str = "/") -> None:
    """Through the login form, as a person would."""
    make_user(role)
    page.goto(f"/login/?next={next_path}")
    page.fill("#id_username", f"{role}-browser")
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("form.login-form button[type=submit]")


def finished_dry_run(run: DryRun) -> DryRun:
    """Run it here, or wait for the worker that claimed it first: these tests commit,
    so ``create_dry_run`` queues the run, and the session's worker may be up."""
    run_dry_run(run.pk)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished:
            assert run.status == DryRun.Status.SUCCEEDED, run.error
            return run
        time.sleep(0.1)
    raise AssertionError(f"dry-run {run.pk} did not finish")


def screenshot(page, name: str, *, full: bool = True) -> None:
    """<name>.png in SCREENSHOTS (docs/screenshots under `make screenshots`)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    height = page.evaluate("document.documentElement.scrollHeight") if full else 860
    page.screenshot(
        path=str(SCREENSHOTS / f"{name}.png"),
        full_page=full,
        clip={"x": 0, "y": 0, "width": 1280, "height": min(height, 1800)},
    )


def record_frames(page) -> list[str]:
    """Every websocket frame the page receives from now on (register before navigating)."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    return frames


def wait_for_frame(page, frames: list[str], needle: str, timeout: float = 15.0) -> str:
    """The first frame containing ``needle``; lets the page run while waiting."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for f in frames:
            if needle in f:
                return f
        page.wait_for_timeout(50)
    raise AssertionError(f"no websocket frame with {needle!r} in {timeout}s; got {frames[-5:]}")


def set_document(page, text: str) -> None:
    """Replace the profile editor's YAML as a paste would (CodeMirror, or the bare textarea)."""
    page.wait_for_function("document.getElementById('document')")
    page.evaluate(
        """text => {
            const area = document.getElementById('document');
            const view = area.schedlabView;
            if (view) {
                view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text}});
            } else {
                area.value = text;
                area.dispatchEvent(new Event('input', {bubbles: true}));
            }
        }""",
        text,
    )


def document_text(page) -> str:
    return page.evaluate("document.getElementById('document').value")
