"""scheduler_engine imports nothing of Django, Celery, the kubernetes client or dashboard."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


def _engine_modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ENGINE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _engine_modules()


def _resolve(name: str) -> str | None:
    """The engine module that ``name`` (a module or a module's attribute) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _engine_imports(module: str, path: Path) -> set[str]:
    """The engine modules ``module`` imports, wherever the import statement stands."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name) if name.startswith("scheduler_engine") else None
            if target is not None and target != module:
                found.add(target)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
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

    for v in list(graph):
        if v not in index:
            strong(v)
    return found


def test_no_import_cycle_anywhere_in_the_engine():
    graph = {m: _engine_imports(m, p) for m, p in MODULES.items()}
    assert len(graph) > 50 and sum(map(len, graph.values())) > 100
    assert _cycles(graph) == []


def test_the_cycle_checker_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # a relative import resolves to the module it names
    names = _engine_imports("scheduler_engine.framework.handle", ENGINE / "framework" / "handle.py")
    assert "scheduler_engine.gocompat" in names
