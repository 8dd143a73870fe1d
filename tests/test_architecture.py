"""The layout of docs/architecture.md, enforced: no import cycles, and no import up the drawing.

Every import of ``claimcheck/`` and ``models/`` is read with :mod:`ast`, wherever it is written (at
module level, inside a function, under ``TYPE_CHECKING``), since each of them ties two modules
together as much as any other.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(names.split()) for names in (
    "core", "cards", "sources", "trust", "checks", "verdicts", "store", "reports", "engine",
    "authoring site", "cli",
))
"""The packages of ``claimcheck/``, bottom first; a package imports only packages of lower layers
(two packages of one layer do not import each other). The drawing in docs/architecture.md."""

FACADES = frozenset({"claimcheck", "claimcheck.markers"})
"""The public API (``claimcheck/__init__.py``, and ``claimcheck/markers.py``, the markers' kept
path): they may import every package, and no module of the tool imports them."""

Graph = dict[str, set[str]]


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Dotted name -> file, for every module of ``package`` under ``root``."""
    names = {}
    for file in sorted((root / package).rglob("*.py")):
        parts = file.relative_to(root).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return names


def import_graph(root: Path, packages: Iterable[str]) -> Graph:
    """Module -> the modules of ``packages`` it imports (``from a import b`` is ``a.b`` when
    ``b`` is a module, else ``a``)."""
    modules: dict[str, Path] = {}
    for package in packages:
        modules.update(module_names(root, package))
    graph: Graph = {}
    for name, file in modules.items():
        is_package = file.name == "__init__.py"
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(file.read_text("utf-8"), str(file))):
            for target, base in _targets(node, name, is_package):
                found = target if target in modules else _known(base, modules)
                if found and found != name:
                    edges.add(found)
    return graph


def _targets(node: ast.AST, name: str, is_package: bool) -> list[tuple[str, str]]:
    """(the module named, what it falls back to when that is no module) for each imported name."""
    if isinstance(node, ast.Import):
        return [(alias.name, alias.name) for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        here = name.split(".") if is_package else name.split(".")[:-1]
        here = here[: len(here) - node.level + 1]
        base = ".".join([*here, base] if base else here)
    return [(f"{base}.{alias.name}", base) for alias in node.names]


def _known(target: str, modules: Mapping[str, Path]) -> str | None:
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
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

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str, layers: tuple[frozenset[str], ...]) -> int | None:
    """The layer of ``claimcheck.<package>...``; ``None`` for a module no layer places."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    return next((rank for rank, layer in enumerate(layers) if parts[1] in layer), None)


def layering_problems(graph: Graph, layers: tuple[frozenset[str], ...],
                      facades: frozenset[str] = FACADES) -> list[str]:
    """Every import against the drawing, and every module it does not place."""
    problems = []
    for module, imported in sorted(graph.items()):
        if module in facades:
            continue
        rank = layer_of(module, layers)
        if rank is None:
            problems.append(f"{module}: in no package of the drawing")
            continue
        for other in sorted(imported):
            if other in facades:
                problems.append(f"{module} imports the public API {other}")
                continue
            other_rank = layer_of(other, layers)
            if other_rank is None:
                continue  # reported as a module of its own
            if other_rank > rank:
                problems.append(f"{module} imports {other}, a layer above it")
            elif other_rank == rank and other.split(".")[1] != module.split(".")[1]:
                problems.append(f"{module} imports {other}, a package beside it")
    return problems


def drawn_layers(document: str) -> list[set[str]]:
    """The packages of the drawing under "Layout" in docs/architecture.md, bottom first: each row
    names its packages in its first 23 columns."""
    drawing = document.split("## Layout", 1)[1].split("```", 2)[1]
    rows = [set(re.findall(r"[a-z]+", line[:23])) for line in drawing.splitlines()]
    return [row for row in rows if row][::-1]


# -- the repository --------------------------------------------------------------------------


def test_claimcheck_and_models_have_no_import_cycle() -> None:
    assert cycles(import_graph(ROOT, ["claimcheck", "models"])) == []


def test_claimcheck_imports_follow_the_drawing() -> None:
    assert layering_problems(import_graph(ROOT, ["claimcheck"]), LAYERS) == []


def test_every_package_of_claimcheck_is_drawn() -> None:
    folders = {path.parent.name for path in (ROOT / "claimcheck").glob("*/__init__.py")}
    assert folders == {name for layer in LAYERS for name in layer}
    loose = {f"claimcheck.{path.stem}" for path in (ROOT / "claimcheck").glob("*.py")}
    assert loose == {"claimcheck.__init__", *FACADES} - {"claimcheck"}


def test_the_drawing_in_the_docs_is_the_one_enforced() -> None:
    document = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    assert drawn_layers(document) == [set(layer) for layer in LAYERS]


def test_the_tool_never_imports_its_content_package() -> None:
    graph = import_graph(ROOT, ["claimcheck", "models"])
    assert not [module for module, imported in graph.items() if module.startswith("claimcheck")
                and any(other.startswith("models") for other in imported)]


# -- the checker itself can fail -------------------------------------------------------------


def _package(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return tmp_path


@pytest.mark.parametrize("late", [
    "from claimcheck.core import a\n",
    "def f():\n    from claimcheck.core.a import x\n",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from claimcheck.core import a\n",
])
def test_a_cycle_is_found_however_its_import_is_written(tmp_path: Path, late: str) -> None:
    root = _package(tmp_path, {
        "claimcheck/__init__.py": "", "claimcheck/core/__init__.py": "",
        "claimcheck/core/a.py": "from claimcheck.core.b import y\nx = 1\n",
        "claimcheck/core/b.py": late + "y = 2\n",
    })
    found = cycles(import_graph(root, ["claimcheck"]))
    assert found == [["claimcheck.core.a", "claimcheck.core.b"]]


def test_relative_imports_count(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "claimcheck/__init__.py": "", "claimcheck/core/__init__.py": "",
        "claimcheck/cards/__init__.py": "", "claimcheck/cards/c.py": "",
        "claimcheck/core/a.py": "from ..cards import c\n",
    })
    graph = import_graph(root, ["claimcheck"])
    assert graph["claimcheck.core.a"] == {"claimcheck.cards.c"}
    assert layering_problems(graph, LAYERS) == [
        "claimcheck.core.a imports claimcheck.cards.c, a layer above it"]


def test_upward_sideways_facade_and_loose_imports_are_refused(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "claimcheck/__init__.py": "from claimcheck.cli.main import main\n",
        "claimcheck/loose.py": "",
        "claimcheck/cli/__init__.py": "", "claimcheck/cli/main.py": "main = 1\n",
        "claimcheck/site/__init__.py": "", "claimcheck/authoring/__init__.py": "",
        "claimcheck/authoring/lint.py": "",
        "claimcheck/site/page.py": "import claimcheck.authoring.lint\n",
        "claimcheck/store/__init__.py": "",
        "claimcheck/store/s.py": "from claimcheck.engine import runner\nimport claimcheck\n",
        "claimcheck/engine/__init__.py": "", "claimcheck/engine/runner.py": "",
    })
    assert layering_problems(import_graph(root, ["claimcheck"]), LAYERS) == [
        "claimcheck.loose: in no package of the drawing",
        "claimcheck.site.page imports claimcheck.authoring.lint, a package beside it",
        "claimcheck.store.s imports the public API claimcheck",
        "claimcheck.store.s imports claimcheck.engine.runner, a layer above it",
    ]
