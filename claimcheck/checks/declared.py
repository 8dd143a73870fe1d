"""Custom checks declare their args: one typed dataclass per check, the one source of truth.

A custom check is marked ``@claim_check(args=MarginLossArgs)``, where ``MarginLossArgs`` is a
``@dataclass`` subclass of :class:`CheckArgs` defined at the top level of the check's own module
(or imported into it, ``from models.checks.common import PresetArgs``, from a content module);
a check marked plain ``@claim_check`` takes no args. The declaration is read twice, the same way:

* ``claimcheck lint`` reads it from the source with :mod:`ast` (nothing is imported) and checks
  every claim's ``args`` against it: an unknown key (with "did you mean"), a missing required
  key or a value of the wrong type is an error at that arg's line;
* ``claimcheck verify`` checks the claim's ``args`` against the imported class before the check
  runs (:func:`checked_call`), so a misspelled key is an error of the run, never a default used
  in silence. The check itself reads its args only as ``MarginLossArgs.of(ctx)``.

Field annotations are limited to what can be read without importing: ``int``, ``float``,
``str``, ``bool``, ``Any``, ``None``, ``list[X]``, ``dict[str, X]``, ``tuple[X, ...]``,
``Literal[...]``, ``X | Y`` and ``Optional[X]``. A field without a default is required. Values are
checked strictly (pydantic's strict mode: ``"3"`` is not an ``int``; an ``int`` is a ``float``).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, TypeVar, Union

from pydantic import TypeAdapter, ValidationError

from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import ClaimcheckError
from claimcheck.trust.references import find_module_file

__all__ = [
    "ARGS_ATTRIBUTE", "ArgField", "ArgsDeclarationError", "CheckArgs", "CheckArgsError",
    "checked_call", "content_module_finder", "declared_fields", "field_problems",
    "static_declaration",
]

ARGS_ATTRIBUTE = "__claimcheck_args__"
"""The attribute ``@claim_check(args=X)`` sets on the check: the class ``X``."""

T = TypeVar("T", bound="CheckArgs")


class CheckArgsError(ClaimcheckError):
    """A claim's args do not fit the check's declaration; the message lists every problem."""


class ArgsDeclarationError(ClaimcheckError):
    """A check's args declaration cannot be read (lint) or is not a :class:`CheckArgs`."""


@dataclass(frozen=True)
class ArgField:
    """One declared arg: its name, its annotation (as written), whether it is required, where."""

    name: str
    annotation: str
    required: bool
    line: int = 0


@dataclass(frozen=True)
class ArgProblem:
    """One problem of a claim's args against a declaration: the key, why, whether at the key."""

    key: str
    message: str
    at_key: bool


class CheckArgs:
    """Base of every custom check's args dataclass; read them with :meth:`of`."""

    @classmethod
    def of(cls: type[T], ctx: Any) -> T:
        """The claim's args (``ctx.args``) as this dataclass, or :class:`CheckArgsError`."""
        fields = declared_fields(cls)
        args = dict(ctx.args)
        problems = field_problems(fields, args)
        if problems:
            raise CheckArgsError(_joined(cls.__name__, problems))
        return cls(**{f.name: _adapter(f.annotation).validate_python(args[f.name], strict=True)
                      for f in fields if f.name in args})


def declared_fields(declaration: type | None) -> tuple[ArgField, ...]:
    """The fields of a :class:`CheckArgs` dataclass (``None``: a check that takes no args)."""
    if declaration is None:
        return ()
    if not (isinstance(declaration, type) and issubclass(declaration, CheckArgs)
            and dataclasses.is_dataclass(declaration)):
        raise ArgsDeclarationError(
            f"args={getattr(declaration, '__name__', declaration)!r} must be a @dataclass "
            "subclass of claimcheck.CheckArgs")
    return tuple(
        ArgField(field.name, _annotation_text(field.type),
                 field.default is dataclasses.MISSING
                 and field.default_factory is dataclasses.MISSING)
        for field in dataclasses.fields(declaration)
    )


def _annotation_text(annotation: object) -> str:
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def field_problems(fields: tuple[ArgField, ...], args: Mapping[str, Any]) -> list[ArgProblem]:
    """Every problem of ``args`` against ``fields``: unknown, missing and mistyped keys."""
    known = {field.name: field for field in fields}
    problems: list[ArgProblem] = []
    for key in args:
        if key not in known:
            problems.append(ArgProblem(str(key), _unknown(str(key), sorted(known)), True))
    for field in fields:
        if field.name not in args:
            if field.required:
                problems.append(ArgProblem(field.name, f"missing required key '{field.name}' "
                                           f"({field.annotation})", True))
            continue
        message = _type_problem(field, args[field.name])
        if message is not None:
            problems.append(ArgProblem(field.name, message, False))
    return problems


def _unknown(key: str, known: list[str]) -> str:
    if not known:
        return f"unknown key '{key}': this check takes no args"
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'?" if close else "known: " + ", ".join(known)
    return f"unknown key '{key}' ({hint})"


def _type_problem(field: ArgField, value: Any) -> str | None:
    try:
        _adapter(field.annotation).validate_python(value, strict=True)
    except ValidationError:
        shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
        return (f"{field.name} must be {field.annotation}, got {type(value).__name__} "
                f"{shown}" + _literal_hint(field.annotation, value))
    return None


def _literal_hint(annotation: str, value: Any) -> str:
    options = [str(option) for option in _literal_options(annotation)]
    if not isinstance(value, str) or not options:
        return ""
    close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _literal_options(annotation: str) -> list[object]:
    try:
        tree = ast.parse(annotation, mode="eval").body
    except SyntaxError:
        return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Subscript)
            and _name_of(node.value) == "Literal"
            for node in ast.walk(node.slice) if isinstance(node, ast.Constant)]


def _joined(name: str, problems: list[ArgProblem]) -> str:
    return f"args do not fit {name}: " + "; ".join(problem.message for problem in problems)


@functools.cache
def _adapter(annotation: str) -> TypeAdapter[Any]:
    return TypeAdapter(annotation_type(annotation))


_SCALARS: Mapping[str, object] = {
    "int": int, "float": float, "str": str, "bool": bool, "Any": Any, "None": type(None),
    "object": Any,
}


def annotation_type(text: str) -> Any:
    """The type an annotation's text names, read with :mod:`ast` (see the module docstring).

    Raises :class:`ArgsDeclarationError` for anything else, so that lint and verify read a
    declaration the same way or not at all.
    """
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise ArgsDeclarationError(f"cannot read the annotation {text!r}") from None
    return _type_of(tree, text)


def _name_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in ("typing", "t") else None
    return None


def _type_of(node: ast.expr, text: str) -> Any:
    if isinstance(node, ast.Constant) and node.value is None:
        return type(None)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return annotation_type(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return Union[_type_of(node.left, text), _type_of(node.right, text)]  # noqa: UP007
    name = _name_of(node)
    if name is not None and name in _SCALARS:
        return _SCALARS[name]
    if isinstance(node, ast.Subscript):
        outer = _name_of(node.value)
        inner = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if outer == "Literal" and all(isinstance(item, ast.Constant) for item in inner):
            return Literal[tuple(item.value for item in inner if isinstance(item, ast.Constant))]
        if outer in ("list", "List") and len(inner) == 1:
            return list[_type_of(inner[0], text)]  # type: ignore[misc]
        if outer in ("dict", "Dict") and len(inner) == 2:
            return dict[_type_of(inner[0], text), _type_of(inner[1], text)]  # type: ignore[misc]
        if outer in ("tuple", "Tuple") and len(inner) == 2 and (
                isinstance(inner[1], ast.Constant) and inner[1].value is Ellipsis):
            return tuple[_type_of(inner[0], text), ...]  # type: ignore[misc]
        if outer == "Optional" and len(inner) == 1:
            return Optional[_type_of(inner[0], text)]  # noqa: UP045
        if outer == "Union":
            return Union[tuple(_type_of(item, text) for item in inner)]  # noqa: UP007
    raise ArgsDeclarationError(
        f"cannot read the annotation {text!r} without importing: use int, float, str, bool, "
        "Any, list[...], dict[str, ...], tuple[..., ...], Literal[...] or X | None")


def checked_call(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``check`` that first refuses args its declaration does not allow (verify's side)."""
    fields = declared_fields(getattr(check, ARGS_ATTRIBUTE, None))
    name = getattr(getattr(check, ARGS_ATTRIBUTE, None), "__name__", "no args")

    @functools.wraps(check)
    def run(ctx: Any) -> Any:
        problems = field_problems(fields, dict(ctx.args))
        if problems:
            raise CheckArgsError(_joined(name, problems))
        return check(ctx)

    return run


@dataclass(frozen=True)
class StaticDeclaration:
    """What lint reads of one check's declaration: its class name (``None``: no args) and fields,
    or why it cannot be read."""

    name: str | None
    fields: tuple[ArgField, ...] = ()
    error: str | None = None


ModuleFinder = Callable[[str], "Path | None"]
"""``finder("models.checks.common")``: the file of a content module, or ``None``."""


def static_declaration(
    file: Path, function: str, finder: ModuleFinder | None = None
) -> StaticDeclaration:
    """The args declaration of marked ``function`` in ``file``, read with :mod:`ast`.

    The class is defined in ``file`` or imported into it (``from models.checks.common import
    PresetArgs``) from a content module that ``finder`` locates.
    """
    module = _module_facts(file)
    if module is None:
        return StaticDeclaration(None, error=f"cannot read {file.name}")
    classes, imported, declared = module
    if function not in declared:
        return StaticDeclaration(None)
    name = declared[function]
    if name not in classes and name in imported and finder is not None:
        origin = finder(imported[name][0])
        other = _module_facts(origin) if origin is not None else None
        if other is not None:
            return _read_class(imported[name][1], other[0])
    return _read_class(name, classes)


def content_module_finder(config: ProjectConfig) -> ModuleFinder:
    """The finder of the project's content modules (inside the import roots and the project)."""

    def find(module: str) -> Path | None:
        return find_module_file(module, config.module_roots, config.root)

    return find


_Facts = tuple[dict[str, ast.ClassDef], dict[str, tuple[str, str]], dict[str, str]]


def _module_facts(file: Path) -> _Facts | None:
    try:
        stamp = file.stat().st_mtime_ns
    except OSError:
        return None
    return _parsed(str(file), stamp)


@functools.lru_cache(maxsize=256)
def _parsed(file: str, stamp: int) -> _Facts | None:
    """Top-level classes, names imported ``from module import name``, and marked checks with
    the name of their declaration."""
    try:
        tree = ast.parse(Path(file).read_bytes(), filename=file)
    except (OSError, SyntaxError, ValueError):
        return None  # the trust boundary refuses a file that does not parse, with the reason
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    imported = {alias.asname or alias.name: (node.module, alias.name) for node in tree.body
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                for alias in node.names}
    declared = {node.name: name for node in tree.body if isinstance(node, ast.FunctionDef)
                for name in [_declared_name(node)] if name is not None}
    return classes, imported, declared


def _declared_name(function: ast.FunctionDef) -> str | None:
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and _name_of_marker(decorator.func) == "claim_check":
            for keyword in decorator.keywords:
                if keyword.arg == "args":
                    return ast.unparse(keyword.value)
    return None


def _name_of_marker(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _read_class(name: str, classes: Mapping[str, ast.ClassDef]) -> StaticDeclaration:
    node = classes.get(name)
    if node is None:
        return StaticDeclaration(name, error=f"args={name} is not a class defined at the top "
                                 "level of the check's module, nor imported into it from a "
                                 "content module")
    fields: dict[str, ArgField] = {}
    for base in node.bases:
        base_name = _name_of_marker(base)
        if base_name in classes and base_name != name:
            inherited = _read_class(str(base_name), classes)
            if inherited.error is not None:
                return StaticDeclaration(name, error=inherited.error)
            fields.update({field.name: field for field in inherited.fields})
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            text = ast.unparse(statement.annotation)
            if text.startswith(("ClassVar", "typing.ClassVar")):
                continue
            try:
                annotation_type(text)
            except ArgsDeclarationError as exc:
                return StaticDeclaration(name, error=f"{name}.{statement.target.id}: "
                                         f"{exc.message}")
            fields[statement.target.id] = ArgField(
                statement.target.id, text, statement.value is None or _no_default(
                    statement.value), statement.lineno)
    return StaticDeclaration(name, tuple(fields.values()))


def _no_default(value: ast.expr) -> bool:
    """``field()`` without ``default``/``default_factory`` declares no default either."""
    return (isinstance(value, ast.Call) and _name_of_marker(value.func) == "field"
            and not any(k.arg in ("default", "default_factory") for k in value.keywords))
