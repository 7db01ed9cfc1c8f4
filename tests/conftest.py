"""Shared by the whole suite. Django's settings come from pytest's ini options
(schedlab.settings.test). The test packages follow the apps (cluster, dryruns,
explain, api, pages; engine for scheduler_engine); what several of them use
(fixtures, test doubles, builders) lives in tests/support."""

from __future__ import annotations

from typing import Any

# The session's Celery worker is defined here, once: imported into each package's
# conftest it was a fixture per package, and every package started a worker of its own.
from tests.support.fixtures import celery_worker  # noqa: F401  (fixture)


def pytest_xdist_make_scheduler(config: Any, log: Any) -> Any:
    """Under pytest-xdist (``make test`` runs ``-n 2``): a test module is one unit of
    work, so its module-scoped fixtures are built once; the browser package is one
    unit, so its Daphne server and Chromium start once (tests/support/xdist.py).
    An explicit ``--dist`` other than the default keeps xdist's own scheduling."""
    if config.getvalue("dist") != "load":
        return None
    from tests.support.xdist import ModuleAndBrowserScheduling

    return ModuleAndBrowserScheduling(config, log)
