"""The shape of chalicelib's imports, checked in `make lint`.

Fails on an import circle between chalicelib modules, on an upward arrow (a lower layer importing a domain) and
on a function-level import of a chalicelib module; function-level imports stay only for heavy third-party
libraries (cold start). Every import counts, wherever it is written: a circle hidden inside a function is still
a circle.

    python -m devtools.import_graph            # check; non-zero exit on a violation
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
# Layers every domain may use, which import no domain.
LOWER = ("platform", "evm", "mpc")
# Within the lower layers, the order of use: platform uses neither; mpc uses evm (the cosigner hashes what it signs,
# evm/digests.py), never the reverse.
LOWER_USES = {"platform": set(), "mpc": {"platform", "evm"}, "evm": {"platform"}}


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


def circles(graph: Graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), run-time imports only."""
    edges: dict[str, set[str]] = {m: set() for m in graph.modules}
    for imp in graph.imports:
        if not imp.type_only:
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


def upward(graph: Graph) -> list[Import]:
    """Imports from a lower layer of anything but the layers below it."""
    wrong = []
    for imp in graph.imports:
        source, target = layer(imp.source), layer(imp.target)
        if source in LOWER and target != source and target not in LOWER_USES[source]:
            wrong.append(imp)
    return wrong


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
    for circle in found_circles:
        print(f"circle ({len(circle)} modules): {' -> '.join(circle)}")
    for imp in found_upward:
        print(f"upward arrow: {imp.source}:{imp.line} imports {imp.target}")
    for imp in found_nested:
        print(f"function-level import of {imp.target}: {imp.source}:{imp.line}")
    if args.counts:
        print(
            f"modules {len(graph.modules)}; circles {len(found_circles)}; upward arrows {len(found_upward)}; "
            f"function-level imports: chalicelib {len(found_nested)}, third-party {len(graph.nested_third_party)}"
        )
        return 0
    return 1 if found_circles or found_upward or found_nested else 0


if __name__ == "__main__":
    sys.exit(main())
