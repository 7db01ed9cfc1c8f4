"""How ``make test`` spreads the suite over pytest-xdist's processes.

Each process has its own test database, channel-layer prefix and Celery queue
(schedlab/settings/test.py names them after its pid). A unit of work goes to
one process whole: every test module is a unit (module-scoped fixtures are
built once), and tests/browser is one unit (its package-scoped Daphne server
and Chromium start once). xdist hands out the largest units first (by number
of tests), so the browser package starts at once and the small units even out
the end.

xdist's own ``--dist loadgroup`` cannot do this with pytest 9: it marks a group
by rewriting ``item._nodeid``, which pytest 9 no longer reads.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

BROWSER = "tests/browser/"


class ModuleAndBrowserScheduling(LoadScopeScheduling):
    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(BROWSER):
            return BROWSER
        return nodeid.split("::", 1)[0]
