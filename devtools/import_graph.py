"""The shape of chalicelib's imports, checked in `make lint`.

The packages of chalicelib stand in ONE declared order (ORDER, lowest first): a package imports only the packages
below it, never one above it, so there is no cycle between packages. The lower layers (platform, evm, bitcoin, mpc)
import no domain; a domain uses the layers and the domains below it. The modules at chalicelib's root (ENTRY_POINTS:
the wiring and the operator's command) stand above every package. Every import counts, wherever it is written
(inside a function, under `if TYPE_CHECKING:`). A package may have rooms (ROOMS: custody's deposits and withdrawals)
that share the package's other modules and never import each other. Also fails on an import circle between
chalicelib modules and on a function-level import of a chalicelib module; function-level imports stay only for heavy
third-party libraries (cold start).

    python -m devtools.import_graph            # the order with each package's size; non-zero exit on a violation
    python -m devtools.import_graph --counts   # the numbers behind the check, for reviews
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "chalicelib"
# The packages, lowest first: each imports only those before it. platform, the chain families (evm, bitcoin) and
# mpc are the layers every domain may use (mpc uses them: the cosigner hashes what it signs); the domains follow in
# the order they build on each other (docs/architecture.md).
ORDER = (
    "platform",
    "evm",
    "bitcoin",
    "mpc",
    "tenancy",
    "auth",
    "wallets",
    "policies",
    "smart_accounts",
    "gas_tanks",
    "user_ops",
    "custody",
    "webhooks",
    "system",
    "console",
)
# A package's rooms: sub-packages that share the package's own modules and never import each other. The package's
# front modules (its routes and workers) are the only ones of its shared modules that may import a room.
ROOMS = {"custody": ("deposits", "withdrawals")}
FRONT = ("routes", "functions")
# Modules at chalicelib's root: the composition of the packages, above all of them.
ENTRY_POINTS = ("wiring", "operator", "route_table")
LOWER = ORDER[:4]


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported chalicelib module
    line: int
    nested: bool  # written inside a function
    type_only: bool  # under `if TYPE_CHECKING:`


@dataclass
class Graph:
    modules: set[str] = field(default_factory=set)
    imports: list[Import] = field(default_factory=list)
    nested_third_party: list[tuple[str, str, int]] = field(default_factory=list)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(modules: set[str], name: str) -> str | None:
    """The chalicelib module `name` refers to (a module, or the package holding an imported name)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, nested: bool, type_only: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, nested, type_only
        inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        guarded = type_only or (isinstance(child, ast.If) and _is_type_checking(child.test))
        yield from _walk(child, inner, guarded)


def build(root: Path = ROOT) -> Graph:
    graph = Graph()
    files = sorted((root / PACKAGE).rglob("*.py"))
    graph.modules = {module_name(f, root) for f in files}
    for path in files:
        source = module_name(path, root)
        package = source if path.name == "__init__.py" else source.rpartition(".")[0]
        tree = ast.parse(path.read_text(), str(path))
        for node, nested, type_only in _walk(tree, False, False):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                names = [f"{base}.{alias.name}" for alias in node.names] or [base]
            for name in names:
                target = _resolve(graph.modules, name)
                if target is None:
                    if nested and not name.startswith(PACKAGE):
                        graph.nested_third_party.append((source, name, node.lineno))
                    continue
                if target != source:
                    graph.imports.append(Import(source, target, node.lineno, nested, type_only))
    return graph


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def circles(graph: Graph, count_type_only: bool = False) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan); run-time imports only unless
    `count_type_only`."""
    edges: dict[str, set[str]] = {m: set() for m in graph.modules}
    for imp in graph.imports:
        if count_type_only or not imp.type_only:
            edges[imp.source].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def rank(package: str) -> int:
    """The package's place in ORDER (an entry point's is above every package); ValueError for one not in it."""
    if package in ENTRY_POINTS:
        return len(ORDER)
    return ORDER.index(package)


def undeclared(graph: Graph) -> list[str]:
    """The packages (and root modules) that are neither in ORDER nor entry points."""
    return sorted({layer(m) for m in graph.modules if layer(m) and layer(m) not in (*ORDER, *ENTRY_POINTS)})


def upward(graph: Graph) -> list[Import]:
    """Imports of a package above the importing one in ORDER (an entry point importing another counts too)."""
    wrong = []
    for imp in graph.imports:
        source, target = layer(imp.source), layer(imp.target)
        if source == target or not source or not target or undeclared_name(source) or undeclared_name(target):
            continue
        if rank(target) > rank(source) or (source in ENTRY_POINTS and target in ENTRY_POINTS and target != "wiring"):
            wrong.append(imp)
    return wrong


def room(module: str) -> str | None:
    """The room (`custody.deposits`) a module stands in, or None for a package's shared modules."""
    parts = module.split(".")
    if len(parts) > 3 and parts[2] in ROOMS.get(parts[1], ()):
        return f"{parts[1]}.{parts[2]}"
    return None


def room_crossings(graph: Graph) -> list[Import]:
    """Imports from one room into another of the same package, and from a package's shared modules (other than its
    FRONT) into one of its rooms."""
    wrong = []
    for imp in graph.imports:
        if layer(imp.source) != layer(imp.target) or layer(imp.source) not in ROOMS:
            continue
        source, target = room(imp.source), room(imp.target)
        if target is None or source == target:
            continue
        if source is not None or imp.source.split(".")[-1] not in FRONT:
            wrong.append(imp)
    return wrong


def undeclared_name(package: str) -> bool:
    return package not in ORDER and package not in ENTRY_POINTS


def package_circles(graph: Graph) -> list[list[str]]:
    """Cycles between packages (every import counted): strongly connected components of more than one package."""
    packages = Graph(modules={layer(m) for m in graph.modules if layer(m)})
    packages.imports = [
        Import(layer(i.source), layer(i.target), i.line, i.nested, False)
        for i in graph.imports
        if layer(i.source) and layer(i.target) and layer(i.source) != layer(i.target)
    ]
    return circles(packages, count_type_only=True)


def sizes(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Each package's (modules, lines)."""
    found: dict[str, tuple[int, int]] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        package = layer(module_name(path, root))
        if not package:
            continue
        modules, lines = found.get(package, (0, 0))
        found[package] = (modules + 1, lines + len(path.read_text().splitlines()))
    return found


def room_sizes(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """Each room's (modules, lines)."""
    found: dict[str, tuple[int, int]] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        name = room(module_name(path, root) + (".__init__" if path.name == "__init__.py" else ""))
        if name is None:
            continue
        modules, lines = found.get(name, (0, 0))
        found[name] = (modules + 1, lines + len(path.read_text().splitlines()))
    return found


def nested_internal(graph: Graph) -> list[Import]:
    return [imp for imp in graph.imports if imp.nested]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", action="store_true", help="print the counts and every finding, exit 0")
    args = parser.parse_args(argv)
    graph = build()
    found_circles = circles(graph)
    found_upward = upward(graph)
    found_nested = nested_internal(graph)
    found_packages = package_circles(graph)
    found_undeclared = undeclared(graph)
    found_crossings = room_crossings(graph)
    if not args.counts:
        print("chalicelib's packages, lowest first (each imports only those above it in this list):")
        for package, (modules, lines) in ((p, sizes().get(p, (0, 0))) for p in (*ORDER, *ENTRY_POINTS)):
            print(f"  {package:<15} {modules:>3} modules {lines:>6} lines")
            for name in ROOMS.get(package, ()):
                rooms = room_sizes().get(f"{package}.{name}", (0, 0))
                print(f"    {name:<13} {rooms[0]:>3} modules {rooms[1]:>6} lines (a room: imports no other room)")
    for name in found_undeclared:
        print(f"package not in the declared order (devtools/import_graph.py ORDER): chalicelib.{name}")
    for circle in found_packages:
        print(f"package cycle: {' -> '.join(circle)}")
    for circle in found_circles:
        print(f"circle ({len(circle)} modules): {' -> '.join(circle)}")
    for imp in found_upward:
        print(f"upward arrow: {imp.source}:{imp.line} imports {imp.target}")
    for imp in found_nested:
        print(f"function-level import of {imp.target}: {imp.source}:{imp.line}")
    for imp in found_crossings:
        print(f"room crossing: {imp.source}:{imp.line} imports {imp.target}")
    if args.counts:
        print(
            f"modules {len(graph.modules)}; package cycles {len(found_packages)}; circles {len(found_circles)}; "
            f"upward arrows {len(found_upward)}; room crossings {len(found_crossings)}; "
            f"function-level imports: chalicelib {len(found_nested)}, third-party {len(graph.nested_third_party)}"
        )
        return 0
    failed = found_circles or found_upward or found_nested or found_packages or found_undeclared or found_crossings
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
