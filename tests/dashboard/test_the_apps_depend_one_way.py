"""The Django side's layering: dependencies run one way, and nothing imports in a circle.

pages, api -> explain, studies -> dryruns -> cluster -> scheduler_engine; the modules
directly in ``dashboard/`` (roles, conf) sit below every app. Imports inside
functions count like any other: a cycle hidden in a function is still a cycle,
and outside an app's ``ready()`` a function-level import of our own code is
how one gets hidden.
"""

from __future__ import annotations

import pytest

from tests.support.imports import ROOT, Import, cycles, imports, modules

PACKAGE = ROOT / "dashboard"

# Lower first; apps on one floor do not import each other.
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"dashboard"}),  # the package and the modules directly in it: roles, conf
    frozenset({"dashboard.cluster"}),
    frozenset({"dashboard.dryruns"}),
    frozenset({"dashboard.explain", "dashboard.studies"}),
    frozenset({"dashboard.api", "dashboard.pages"}),
)
# What the apps may use of the Django project: its environment readers.
PROJECT_MODULES = frozenset({"schedlab.settings.env"})


MODULES = modules(PACKAGE)


IMPORTS = [i for m, p in MODULES.items() for i in imports(m, p, MODULES, ("schedlab.",))]


def _floor(module: str) -> tuple[int, str]:
    """(floor, app) of one of our modules; (-1, "") for one no floor holds."""
    for level, apps in enumerate(FLOORS[1:], start=1):
        for app in apps:
            if module == app or module.startswith(app + "."):
                return level, app
    if module == "dashboard" or MODULES.get(module, PACKAGE).parent == PACKAGE:
        return 0, "dashboard"  # the package and the modules directly in it
    return -1, ""


def _cycles(found: list[Import]) -> list[list[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in found:
        if i.target in graph:
            graph[i.source].add(i.target)
    return cycles(graph)


def test_every_module_is_on_a_floor():
    assert [m for m in MODULES if _floor(m)[0] < 0] == []


def test_no_module_level_import_cycle():
    assert _cycles([i for i in IMPORTS if not i.in_function]) == []


def test_no_cycle_hides_in_a_function_level_import():
    assert _cycles(IMPORTS) == []


def test_our_code_is_imported_inside_functions_only_by_app_ready_hooks():
    hidden = [
        f"{i.source}:{i.line} imports {i.target} in {i.in_function}()"
        for i in IMPORTS
        if i.in_function and i.target.startswith("dashboard") and i.in_function != "ready"
    ]
    assert hidden == []


@pytest.mark.parametrize("level", range(len(FLOORS)), ids=lambda n: "/".join(sorted(FLOORS[n])))
def test_a_floor_imports_only_floors_below_it(level):
    wrong = []
    for i in IMPORTS:
        if i.target.startswith("schedlab"):
            continue
        (src_level, src_app), (dst_level, dst_app) = _floor(i.source), _floor(i.target)
        if src_level != level or src_app == dst_app:
            continue
        if dst_level >= src_level:
            wrong.append(f"{i.source}:{i.line} imports {i.target}")
    assert wrong == []


def test_the_apps_use_nothing_of_the_project_but_its_environment_readers():
    wrong = [
        f"{i.source}:{i.line} imports {i.target}"
        for i in IMPORTS
        if i.target.startswith("schedlab")
        and not any(i.target == m or i.target.startswith(m + ".") for m in PROJECT_MODULES)
    ]
    assert wrong == []


def test_the_checker_sees_a_cycle_and_an_upward_import():
    """The rules above can fail: a made-up pair of imports trips each of them."""
    down = Import("dashboard.cluster.kinds", "dashboard.cluster.models", 1, "")
    up = Import("dashboard.cluster.models", "dashboard.cluster.kinds", 2, "helper")
    assert _cycles([down]) == [] and _cycles([down, up]) == [
        ["dashboard.cluster.kinds", "dashboard.cluster.models"]
    ]
    assert _floor("dashboard.cluster.kinds") < _floor("dashboard.pages.views.clusters")
    assert _floor("dashboard.roles") == (0, "dashboard")
