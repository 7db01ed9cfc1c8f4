"""The Django side's layering: dependencies run one way, and nothing imports in a circle.

pages, api -> explain, studies -> dryruns -> cluster -> scheduler_engine; the modules
directly in ``dashboard/`` (roles, conf) sit below every app. Imports inside
functions count like any other: a cycle hidden in a function is still a cycle,
and outside an app's ``ready()`` a function-level import of our own code is
how one gets hidden.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


@dataclass(frozen=True, slots=True)
class Import:
    source: str  # importing module
    target: str  # imported module of ours (or of schedlab)
    line: int
    in_function: str  # the enclosing function's name, "" at module level


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours that ``name`` (a module or a module's attribute) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> list[Import]:
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def names(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([node.module] if node.module else [])])
        return [f"{base}.{a.name}" for a in node.names]

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else ""
            if isinstance(child, ast.Import | ast.ImportFrom):
                for name in names(child):
                    if name.startswith("schedlab."):
                        found.append(Import(module, name, child.lineno, function))
                    target = _resolve(name) if name.startswith("dashboard") else None
                    if target is not None and target != module:
                        found.append(Import(module, target, child.lineno, function))
            visit(child, function or inner)

    visit(tree, "")
    return found


IMPORTS = [i for m, p in MODULES.items() for i in _imports(m, p)]


def _floor(module: str) -> tuple[int, str]:
    """(floor, app) of one of our modules; (-1, "") for one no floor holds."""
    for level, apps in enumerate(FLOORS[1:], start=1):
        for app in apps:
            if module == app or module.startswith(app + "."):
                return level, app
    if module == "dashboard" or MODULES.get(module, PACKAGE).parent == PACKAGE:
        return 0, "dashboard"  # the package and the modules directly in it
    return -1, ""


def _cycles(imports: list[Import]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in imports:
        if i.target in graph:
            graph[i.source].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            strong(v)
    return found


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
