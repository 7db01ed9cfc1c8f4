"""The import graph of one of our packages, for the layering tests.

Every import counts, wherever it stands (in a function, under ``TYPE_CHECKING``):
a cycle hidden in a function is still a cycle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class Import:
    source: str  # importing module
    target: str  # imported module of the package (or a name under an outside prefix)
    line: int
    in_function: str  # the enclosing function's name, "" at module level


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name → file, for every module below ``package``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module of ``known`` that ``name`` (a module or a module's attribute) lives in."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(
    module: str, path: Path, known: dict[str, Path], outside: tuple[str, ...] = ()
) -> list[Import]:
    """What ``module`` imports of ``known`` (resolved to modules), and every imported name
    that starts with one of the ``outside`` prefixes (as written)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top = module.split(".")[0]
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
                    if outside and name.startswith(outside):
                        found.append(Import(module, name, child.lineno, function))
                    target = resolve(name, known) if name.startswith(top) else None
                    if target is not None and target != module:
                        found.append(Import(module, target, child.lineno, function))
            visit(child, function or inner)

    visit(tree, "")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
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
