"""The catalogue of wrong variants, and how a claim's ``catches:`` names resolve in it.

A content package declares *wrong variants*: public zero-argument functions marked
``@wrong_variant`` (:mod:`claimcheck.checks.markers`) that break the model in place, for one run in
a check's own process (:mod:`claimcheck.store.power`). ``[tool.claimcheck] variants`` lists the
modules or packages that hold them (default none); every marked function found there, in the module
or anywhere under the package, is in the catalogue. Its name on a card is the function's name with
``_`` written ``-`` (``uniform_coupling`` is ``uniform-coupling``); a card may also write the full
reference ``models.variants.dynamic:uniform_coupling``. Names are unique across the catalogue.

Everything here is read with :mod:`ast` (:class:`~claimcheck.trust.references.SourceIndex`), like
the other markers: nothing is imported. A configured module that does not exist gives an empty part
of the catalogue, never a crash; a name the catalogue lacks is an error with "did you mean".
Every name a card lists still passes the trust boundary
(:func:`claimcheck.trust.boundary.resolve_reference` with :attr:`Role.WRONG_VARIANT`) when it
resolves.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field
from pathlib import Path

from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import CheckReferenceError
from claimcheck.trust.boundary import resolve_reference
from claimcheck.trust.references import SourceIndex, find_module_file, is_reference, within
from claimcheck.trust.roles import Role

__all__ = ["Catalogue", "CatalogueProblem", "WrongVariant", "card_name", "load_catalogue"]

MAX_CATALOGUE_FILES = 2000
"""A bound on the files one configured package is scanned for (a hostile tree stays cheap)."""


def card_name(function: str) -> str:
    """``uniform-coupling`` for ``uniform_coupling``: how a card lists a variant."""
    return function.replace("_", "-")


@dataclass(frozen=True)
class WrongVariant:
    """One variant of the catalogue: its card name, its ``module:function`` reference, and
    where it is defined (resolved file, ``def`` line)."""

    name: str
    reference: str
    file: Path
    line: int
    description: str = ""
    """The first line of its docstring: the bug it stands for."""


@dataclass(frozen=True)
class CatalogueProblem:
    """Something wrong with the catalogue itself (a name defined twice), at a file and line;
    ``error`` is false for what only makes the catalogue harder to read."""

    file: Path
    line: int
    message: str
    error: bool = True


@dataclass
class Catalogue:
    """Every wrong variant of the configured modules, by card name."""

    config: ProjectConfig
    variants: dict[str, WrongVariant] = field(default_factory=dict)
    problems: list[CatalogueProblem] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Configured modules that were not found (a catalogue not written yet)."""

    def resolve(self, text: str, index: SourceIndex | None = None) -> WrongVariant:
        """The variant a card's ``catches:`` entry names, or a
        :class:`~claimcheck.core.errors.CheckReferenceError` saying why not (with "did you
        mean")."""
        if is_reference(text):
            reference = resolve_reference(text, self.config, role=Role.WRONG_VARIANT,
                                          index=index)
            full = f"{reference.module}:{reference.function}"
            found = self.variants.get(card_name(reference.function))
            if found is None or found.reference != full:
                raise CheckReferenceError(
                    f"wrong variant {text!r} is marked but not in the catalogue "
                    f"({self._configured()})")
            return found
        found = self.variants.get(text)
        if found is not None:
            return found
        raise CheckReferenceError(f"unknown wrong variant {text!r} ({self._hint(text)})")

    def _configured(self) -> str:
        listed = ", ".join(self.config.variants)
        return f"[tool.claimcheck] variants = [{listed}]" if listed else (
            "[tool.claimcheck] variants lists no module")

    def _hint(self, text: str) -> str:
        close = difflib.get_close_matches(text, sorted(self.variants), n=1, cutoff=0.6)
        if close:
            return f"did you mean {close[0]!r}?"
        if self.variants:
            return "the catalogue holds: " + ", ".join(sorted(self.variants))
        where = self._configured()
        if self.missing:
            where += "; not found: " + ", ".join(self.missing)
        return f"the catalogue is empty: {where}"


def load_catalogue(config: ProjectConfig, index: SourceIndex | None = None) -> Catalogue:
    """Read the catalogue of ``config`` from its files (see the module docstring)."""
    index = index or SourceIndex()
    catalogue = Catalogue(config)
    for module in config.variants:
        file = find_module_file(module, config.module_roots, config.root)
        if file is None or not any(root.admits(module) for root in config.module_roots):
            catalogue.missing.append(module)
            continue
        for dotted, path in _module_files(module, file):
            facts = index.facts(path)
            if facts is None or facts.error is not None:
                continue
            marked = sorted(name for name, roles in (facts.markers or {}).items()
                            if Role.WRONG_VARIANT.value in roles and not name.startswith("_"))
            if not marked:
                continue
            descriptions, problems = _inspect(path, set(marked))
            catalogue.problems.extend(problems)
            for function in marked:
                line = facts.defs.get(function, ("", 1))[1]
                _add(catalogue, WrongVariant(card_name(function), f"{dotted}:{function}",
                                             path, line, descriptions.get(function, "")))
    return catalogue


def _inspect(path: Path, marked: set[str]) -> tuple[dict[str, str], list[CatalogueProblem]]:
    """The first docstring line of each marked variant, and its problems: a variant that is not
    a plain ``def`` of no arguments could not be called as the power run calls it (an ``async
    def`` would only make a coroutine and patch nothing); one without a docstring does not say
    which bug it stands for (a warning)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return {}, []
    descriptions: dict[str, str] = {}
    problems = []
    for node in tree.body:
        if getattr(node, "name", None) not in marked:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            docstring = (ast.get_docstring(node) or "").strip()
            descriptions[node.name] = docstring.splitlines()[0] if docstring else ""
            if not docstring:
                problems.append(CatalogueProblem(
                    path, node.lineno, f"wrong variant {card_name(node.name)!r} has no "
                    "docstring: its first line says which bug the variant stands for", False))
        if isinstance(node, ast.ClassDef):
            why = "is a class"
        elif isinstance(node, ast.AsyncFunctionDef):
            why = "is an async def"
        elif isinstance(node, ast.FunctionDef) and _takes_arguments(node.args):
            why = "takes arguments"
        else:
            continue
        problems.append(CatalogueProblem(
            path, node.lineno, f"wrong variant {card_name(node.name)!r} {why}; a wrong variant "
            "is a plain function of no arguments that breaks the model when called"))
    return descriptions, problems


def _takes_arguments(arguments: ast.arguments) -> bool:
    return bool(arguments.posonlyargs or arguments.args or arguments.vararg
                or arguments.kwonlyargs or arguments.kwarg)


def _add(catalogue: Catalogue, variant: WrongVariant) -> None:
    first = catalogue.variants.get(variant.name)
    if first is None:
        catalogue.variants[variant.name] = variant
        return
    if first.reference != variant.reference:
        catalogue.problems.append(CatalogueProblem(
            variant.file, variant.line,
            f"wrong variant name {variant.name!r} is defined twice ({first.reference} and "
            f"{variant.reference}); names must be unique across the catalogue"))


def _module_files(module: str, file: Path) -> list[tuple[str, Path]]:
    """``(dotted name, file)`` of a module, or of a package and every public module under it."""
    if file.name != "__init__.py":
        return [(module, file)]
    folder = file.parent
    found: list[tuple[str, Path]] = []
    for path in sorted(folder.rglob("*.py"))[:MAX_CATALOGUE_FILES]:
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if any(part.startswith("_") or not part.isidentifier() for part in parts):
            continue
        if not within(path, folder) or not path.is_file():
            continue
        found.append((".".join([module, *parts]), path.resolve()))
    return found
