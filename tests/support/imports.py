"""The package's import graph, read from its source with ``ast`` (tests/test_imports.py).

Every ``import`` and ``from ... import`` counts wherever it stands: at the top, inside a
function (an import there still runs, and a circle it closes is still a circle, only hidden
until the call), and under ``if TYPE_CHECKING:`` (mypy follows it, and a name a module needs
for its annotations belongs on a floor below it as much as one it calls). ``from a import b``
is an edge to ``a.b`` when that is a module of the package, else to ``a``; a package's
``__init__`` is the module named after the package, so a submodule importing a name from its
own package's ``__init__`` is an edge like any other.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    source: str  # module names without the package prefix: "agents.base", "config"
    target: str
    line: int
    in_function: bool

    def __str__(self) -> str:
        where = " (in a function)" if self.in_function else ""
        return f"{self.source} -> {self.target} (line {self.line}){where}"


def modules(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by its dotted name below the package (a subpackage's
    ``__init__`` by the subpackage's name, the package's own ``__init__`` as ``__init__``)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts) or "__init__"] = path
    return found


def _target(name: str, prefix: str, known: dict[str, Path]) -> str | None:
    if name != prefix and not name.startswith(prefix + "."):
        return None
    short = name.removeprefix(prefix).removeprefix(".") or "__init__"
    while short not in known:  # ``import twsrt.a.b.c`` of a name below a module
        short = short.rpartition(".")[0]
    return short


def _package_of(module: str, path: Path) -> str:
    if module == "__init__":
        return ""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


class _Visitor(ast.NodeVisitor):
    def __init__(self, module: str, path: Path, prefix: str, known: dict[str, Path]) -> None:
        self.module, self.path, self.prefix, self.known = module, path, prefix, known
        self.depth = 0
        self.edges: list[Edge] = []

    def _add(self, name: str, line: int) -> None:
        target = _target(name, self.prefix, self.known)
        if target is not None and target != self.module:
            self.edges.append(Edge(self.module, target, line, self.depth > 0))

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:  # a relative import, resolved against this module's package
            package = _package_of(self.module, self.path).split(".") if self.module else []
            package = package[: len(package) - (node.level - 1)] if node.level > 1 else package
            base = ".".join(filter(None, [self.prefix, *package, base]))
        for alias in node.names:
            full = f"{base}.{alias.name}"
            short = full.removeprefix(self.prefix + ".")
            self._add(full if short in self.known else base, node.lineno)


def edges(package: Path) -> list[Edge]:
    """Every import of one module of ``package`` by another, in module and line order."""
    known = modules(package)
    prefix = package.name
    found: list[Edge] = []
    for module, path in known.items():
        visitor = _Visitor(module, path, prefix, known)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        found += dict.fromkeys(visitor.edges)  # one edge per import statement and module
    return found


def circles(graph: list[Edge]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted (Tarjan)."""
    successors: dict[str, set[str]] = {}
    for edge in graph:
        successors.setdefault(edge.source, set()).add(edge.target)
        successors.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:  # recursion depth: the package's module count at most
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(successors[node]):
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(successors):
        if node not in index:
            connect(node)
    return sorted(found)


def circle_edges(graph: list[Edge], circle: list[str]) -> list[Edge]:
    """The imports inside one circle (what to cut)."""
    members = set(circle)
    return [edge for edge in graph if edge.source in members and edge.target in members]


_FLOOR_ROW = re.compile(r"^\|\s*(\d+)\s*\|[^|]*\|(.*)\|\s*$")


def floors_from_markdown(text: str) -> dict[str, int]:
    """The floors table of docs/architecture.md: ``| n | name | `prefix`, `prefix` |`` rows,
    each backticked module name or prefix (``agents.*`` for every module below it) on floor n."""
    section = text.partition("\n## Floors\n")[2].partition("\n## ")[0]
    table: dict[str, int] = {}
    for line in section.splitlines():
        match = _FLOOR_ROW.match(line)
        if match:
            for name in re.findall(r"`([^`]+)`", match.group(2)):
                table[name] = int(match.group(1))
    return table


def floor_of(module: str, table: dict[str, int]) -> int | None:
    """The floor of ``module``: its own row, else a pattern with ``*`` for one name inside it
    (``agents.*.engine``: every agent's engine), else the nearest ``prefix.*`` row above it."""
    if module in table:
        return table[module]
    parts = module.split(".")
    for name, floor in table.items():
        pattern = name.split(".")
        inner = "*" in pattern[:-1] and len(pattern) == len(parts)
        if inner and all(want in ("*", got) for want, got in zip(pattern, parts, strict=True)):
            return floor
    for cut in range(len(parts), 0, -1):
        wildcard = ".".join(parts[:cut]) + ".*"
        if wildcard in table:
            return table[wildcard]
    return None


def upward(graph: list[Edge], table: dict[str, int]) -> list[Edge]:
    """Imports from a module on a lower floor of a module on a higher one."""
    return [
        edge
        for edge in graph
        if (floor_of(edge.source, table) or 0) < (floor_of(edge.target, table) or 0)
    ]
