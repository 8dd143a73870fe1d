"""Custom check references (``module.path:function``), resolved from files alone.

This is the trust boundary of docs/architecture.md and issue 9 §1: cards are data, checks are the
repository's own code. A reference is accepted only when its module is a ``.py`` file (or a
package's ``__init__.py``) under one of ``[tool.claimcheck] import_roots`` and inside the project
root, with symlinks resolved, and when the function is a top-level ``def`` of that file, found with
:mod:`ast`. Standard-library modules (``os:system``), installed packages (``yaml:safe_load``),
``..`` and file paths are refused. Nothing is ever imported here.

:func:`local_imports` follows a module's imports statically (``import a.b``, ``from a.b import c``,
relative imports, and string literals naming a project module such as the targets of
``importlib.import_module``) to find every project file whose source its behaviour depends on.
"""

from __future__ import annotations

import ast
import difflib
import importlib.machinery
import site
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from claimcheck.config import ProjectConfig
from claimcheck.errors import CheckReferenceError


@dataclass(frozen=True)
class CheckReference:
    """A resolved ``module.path:function``: the file that defines it and the ``def`` line."""

    module: str
    function: str
    file: Path
    line: int


def is_reference(text: str) -> bool:
    """Whether a claim's ``check`` names a custom function rather than a built-in kind."""
    return ":" in text


def _is_dotted(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def parse_reference(text: str) -> tuple[str, str]:
    """Split ``module.path:function``; raise :class:`CheckReferenceError` on any other shape."""
    if ".." in text or "/" in text or "\\" in text:
        raise CheckReferenceError(
            f"check reference {text!r} is a file path; name a module under the import roots "
            "as module.path:function ('..' and '/' are not allowed)"
        )
    module, sep, function = text.partition(":")
    if not sep or not _is_dotted(module) or not function.isidentifier():
        raise CheckReferenceError(
            f"bad check reference {text!r}: expected module.path:function, "
            "e.g. models.checks.routing:coupling_sums_to_one"
        )
    return module, function


def resolve_reference(text: str, config: ProjectConfig) -> CheckReference:
    """Locate ``text`` under the import roots without importing it, or explain the refusal."""
    module, function = parse_reference(text)
    top = module.split(".")[0]
    roots_shown = ", ".join(config.relative(root) for root in config.import_roots)
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise CheckReferenceError(
            f"check reference {text!r} names the standard-library module {top!r}; a check must "
            f"be a function of the project's own code under the import roots ({roots_shown})"
        )
    installed = _installed_origin(top, config.root)
    if installed is not None:
        raise CheckReferenceError(
            f"check reference {text!r} names the installed package {top!r} ({installed}), not "
            f"the project's own code under the import roots ({roots_shown})"
        )
    file = find_module_file(module, config.import_roots, config.root)
    if file is None:
        wanted = "/".join(module.split("."))
        raise CheckReferenceError(
            f"check reference {text!r}: module {module!r} not found under the import roots "
            f"({roots_shown}); looked for {wanted}.py and {wanted}/__init__.py"
        )
    return CheckReference(module, function, file, _def_line(file, function, config))


def _site_dirs() -> list[str]:
    """Folders that hold installed packages: site-packages (system, user, venv) and the stdlib."""
    paths = sysconfig.get_paths()
    dirs = {paths["purelib"], paths["platlib"], paths["stdlib"], site.getusersitepackages()}
    dirs.update(site.getsitepackages())
    dirs.update(e for e in sys.path if {"site-packages", "dist-packages"} & set(Path(e).parts))
    return sorted(dirs)


def _installed_origin(top: str, project: Path) -> str | None:
    """Where ``top`` is installed outside the project, if anywhere (found, never imported).

    Looks in site-packages and the standard library, and asks the finders of editable installs
    (setuptools' ``__editable__`` hooks).
    """
    searches: list[tuple[object, list[str] | None]] = [
        (importlib.machinery.PathFinder, _site_dirs())
    ]
    searches += [
        (finder, None) for finder in sys.meta_path
        if type(finder).__module__.startswith("__editable__")
        or getattr(finder, "__module__", "").startswith("__editable__")
    ]
    for finder, paths in searches:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            spec = find_spec(top, paths)
        except (ImportError, ValueError, OSError):
            continue
        if spec is None:
            continue
        origin = spec.origin or next(iter(spec.submodule_search_locations or []), None)
        if origin is None or not _within(Path(origin), project):
            return str(origin or "installed")
    return None


def _within(path: Path, folder: Path) -> bool:
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return resolved == folder or folder in resolved.parents


def find_module_file(module: str, roots: Sequence[Path], boundary: Path) -> Path | None:
    """The resolved file of dotted ``module`` under the first root that has it.

    Only files that, with symlinks resolved, lie under one of ``roots`` and inside ``boundary``
    count; anything else is treated as absent.
    """
    parts = module.split(".")
    for root in roots:
        base = root.joinpath(*parts)
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if not candidate.is_file():
                continue
            real = candidate.resolve()
            if _within(real, boundary) and any(_within(real, r) for r in roots):
                return real
    return None


def _parse(file: Path) -> ast.Module | None:
    try:
        return ast.parse(file.read_bytes(), filename=str(file))
    except (OSError, SyntaxError, ValueError):
        return None


def _def_line(file: Path, function: str, config: ProjectConfig) -> int:
    shown = config.relative(file)
    try:
        tree = ast.parse(file.read_bytes(), filename=shown)
    except SyntaxError as exc:
        raise CheckReferenceError(
            f"cannot parse {shown}: {exc.msg} (line {exc.lineno})", shown, exc.lineno
        ) from None
    except (OSError, ValueError) as exc:
        raise CheckReferenceError(f"cannot read {shown}: {exc}", shown) from None
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if function in defs:
        return defs[function].lineno
    for node in tree.body:
        if isinstance(node, (ast.AsyncFunctionDef, ast.ClassDef)) and node.name == function:
            what = "an async def" if isinstance(node, ast.AsyncFunctionDef) else "a class"
            raise CheckReferenceError(
                f"{function!r} in {shown} is {what}; a check must be a top-level def",
                shown, node.lineno,
            )
    close = difflib.get_close_matches(function, list(defs), n=1, cutoff=0.6)
    if close:
        hint = f"did you mean {close[0]!r}?"
    elif defs:
        hint = "its top-level functions: " + ", ".join(sorted(defs))
    else:
        hint = "it defines no top-level functions"
    raise CheckReferenceError(f"function {function!r} not found in {shown} ({hint})", shown)


_DirectKey = tuple[Path, int, int, tuple[Path, ...], Path]
_DIRECT_CACHE: dict[_DirectKey, tuple[Path, ...]] = {}


def local_imports(file: Path, config: ProjectConfig) -> list[Path]:
    """Every project file that ``file`` imports, directly or transitively, sorted (ast only)."""
    return imported_files(file, config.import_roots, config.root)


def imported_files(file: Path, roots: Sequence[Path], boundary: Path) -> list[Path]:
    """Transitive closure of the modules under ``roots`` (inside ``boundary``) that ``file``
    imports, without ``file`` itself; per-file results are cached by (path, mtime, size)."""
    start = file.resolve()
    seen: set[Path] = set()
    pending = [start]
    while pending:
        for dependency in _direct_imports(pending.pop(), tuple(roots), boundary):
            if dependency not in seen:
                seen.add(dependency)
                pending.append(dependency)
    seen.discard(start)
    return sorted(seen)


def _direct_imports(file: Path, roots: tuple[Path, ...], boundary: Path) -> tuple[Path, ...]:
    try:
        stat = file.stat()
    except OSError:
        return ()
    key = (file, stat.st_mtime_ns, stat.st_size, roots, boundary)
    if key not in _DIRECT_CACHE:
        tree = _parse(file)
        found = set() if tree is None else set(_scan(tree, file, roots, boundary))
        _DIRECT_CACHE[key] = tuple(sorted(found))
    return _DIRECT_CACHE[key]


def _chain(parts: Sequence[str], roots: tuple[Path, ...], boundary: Path) -> Iterable[Path]:
    # Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
    for end in range(1, len(parts) + 1):
        found = find_module_file(".".join(parts[:end]), roots, boundary)
        if found is not None:
            yield found


def _scan(tree: ast.Module, file: Path, roots: tuple[Path, ...], boundary: Path) -> Iterable[Path]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _chain(alias.name.split("."), roots, boundary)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute_base(node, file, roots)
            if base is None:
                continue
            yield from _chain(base, roots, boundary)
            for alias in node.names:  # ``from a import b`` may name the submodule a.b
                found = find_module_file(".".join([*base, alias.name]), roots, boundary)
                if alias.name != "*" and found is not None:
                    yield found
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value
            if "." in name and _is_dotted(name) and find_module_file(name, roots, boundary):
                yield from _chain(name.split("."), roots, boundary)


def _absolute_base(node: ast.ImportFrom, file: Path, roots: tuple[Path, ...]) -> list[str] | None:
    """Dotted parts of the module a ``from ... import`` reads; relative imports made absolute."""
    module_parts = node.module.split(".") if node.module else []
    if node.level == 0:
        return module_parts
    package = file.parent
    for _ in range(node.level - 1):
        package = package.parent
    for root in roots:
        if _within(package, root):
            return [*package.resolve().relative_to(root).parts, *module_parts]
    return None
