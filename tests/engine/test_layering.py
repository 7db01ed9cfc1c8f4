"""scheduler_engine imports nothing of Django, Celery, the kubernetes client or dashboard."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.imports import cycles, imports, modules

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "scheduler_engine"
FORBIDDEN = (
    "django",
    "celery",
    "kubernetes",
    "dashboard",
    "channels",
    "rest_framework",
    "schedlab",
)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    "path", sorted(ENGINE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_module_imports_nothing_forbidden(path):
    assert not (_imports(path) & set(FORBIDDEN))


def test_importing_the_engine_loads_nothing_forbidden():
    code = (
        "import sys, scheduler_engine, scheduler_engine.cli, scheduler_engine.simulate\n"
        "from scheduler_engine.framework.registry import default_registry\n"
        "default_registry()\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


# -- no import cycles: every import counts, in functions and under TYPE_CHECKING too --


MODULES = modules(ENGINE)


def _engine_imports(module: str, path: Path) -> set[str]:
    """The engine modules ``module`` imports, wherever the import statement stands."""
    return {i.target for i in imports(module, path, MODULES)}


def test_no_import_cycle_anywhere_in_the_engine():
    graph = {m: _engine_imports(m, p) for m, p in MODULES.items()}
    assert len(graph) > 50 and sum(map(len, graph.values())) > 100
    assert cycles(graph) == []


def test_the_cycle_checker_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # a relative import resolves to the module it names
    names = _engine_imports("scheduler_engine.framework.handle", ENGINE / "framework" / "handle.py")
    assert "scheduler_engine.gocompat" in names
