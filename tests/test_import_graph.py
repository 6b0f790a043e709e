"""The import graph of ``src/privamp`` has no circle.

Rule: every ``import`` statement of a module is an edge — at module level or inside a function, and also under
``if TYPE_CHECKING:`` (a type-only import is still a dependency: a circle of them is a circle) — and so is
``LazyModule("name", package=...)`` (an import on first use). Importing ``a.b.c`` is also an edge to the packages
``a.b`` it executes. A circle is a strongly connected component of more than one module.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "privamp").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module → the modules of ``privamp`` it imports (see the module docstring for the rule)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    head = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*head, base] if base else head)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "LazyModule":
                args = [a.value for a in node.args if isinstance(a, ast.Constant)]
                pkg = next((k.value.value for k in node.keywords if k.arg == "package"), "privamp.bounds")  # type: ignore[attr-defined]
                targets = [f"{pkg}.{args[0]}"] if args else []
            for target in targets:
                found = _resolve(target, modules)
                if found is None:
                    continue
                parts = found.split(".")
                edges.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
        edges = {e for e in edges if e in modules and e != name and not name.startswith(e + ".")}
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_circle() -> None:
    graph = import_graph()
    assert {"privamp.events", "privamp.coverage", "privamp.registry", "privamp.routes.base"} <= graph.keys()
    assert "privamp.coverage" in graph["privamp.events"]  # the events ask the table, never the other way
    assert circles(graph) == []


if __name__ == "__main__":
    g = import_graph()
    print(f"{len(g)} modules, {sum(map(len, g.values()))} edges")
    print("\n".join(" <-> ".join(c) for c in circles(g)) or "no circle")
