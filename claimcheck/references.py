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
import functools
import importlib.machinery
import json
import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def resolve_reference(
    text: str, config: ProjectConfig, *, index: SourceIndex | None = None
) -> CheckReference:
    """Locate ``text`` under the import roots without importing it, or explain the refusal.

    ``index`` caches parsed files (see :class:`SourceIndex`); by default an in-memory one.
    """
    index = index or SourceIndex()
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
    return CheckReference(module, function, file, _def_line(file, function, config, index))


@functools.cache
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


ImportRecord = tuple[int, str, tuple[str, ...]]


@dataclass(frozen=True)
class SourceFacts:
    """What :mod:`ast` says about one file: its imports, its top-level names, or its error.

    ``imports`` holds ``(level, module, names)``: ``import a.b`` is ``(0, "a.b", ())``,
    ``from ..x import y`` is ``(2, "x", ("y",))``; a string literal that reads as a dotted module
    name (an ``importlib.import_module`` target) is recorded like ``import``.
    ``defs`` maps top-level names to ``(kind, line)`` with kind ``def``, ``async`` or ``class``;
    ``registered`` lists the names given to ``@register_check("name", ...)`` decorators.
    """

    imports: tuple[ImportRecord, ...]
    defs: dict[str, tuple[str, int]]
    error: str | None = None
    registered: tuple[str, ...] = ()


def _facts_of(source: bytes, filename: str) -> SourceFacts:
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return SourceFacts((), {}, f"{exc.msg} (line {exc.lineno})")
    except ValueError as exc:
        return SourceFacts((), {}, str(exc))
    imports: list[ImportRecord] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports += [(0, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            imports.append((node.level, node.module or "", names))
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
            and "." in node.value and _is_dotted(node.value)
        ):
            imports.append((0, node.value, ()))
    defs: dict[str, tuple[str, int]] = {}
    registered: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = {ast.FunctionDef: "def", ast.AsyncFunctionDef: "async"}.get(type(node), "class")
            defs.setdefault(node.name, (kind, node.lineno))
            registered += [name for name in map(_registered_name, node.decorator_list) if name]
    return SourceFacts(tuple(dict.fromkeys(imports)), defs, None, tuple(registered))


def _registered_name(decorator: ast.expr) -> str | None:
    """``"params"`` for ``@register_check("params", ...)``, else ``None``."""
    if not isinstance(decorator, ast.Call) or not decorator.args:
        return None
    func = decorator.func
    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    first = decorator.args[0]
    if called == "register_check" and isinstance(first, ast.Constant):
        return first.value if isinstance(first.value, str) else None
    return None


class SourceIndex:
    """:class:`SourceFacts` of files, cached by (path, mtime, size) and optionally kept on disk.

    Use one index for one pass over the project: it also memoizes where modules resolve, which
    holds only while no file is created or removed. With ``cache_file`` the facts survive
    between runs (``claimcheck status`` then parses only the files that changed); :meth:`save`
    writes them back, best effort.
    """

    def __init__(self, cache_file: Path | None = None) -> None:
        self.cache_file = cache_file
        self._entries: dict[str, dict[str, Any]] = {}
        self._modules: dict[tuple[str, tuple[Path, ...], Path], Path | None] = {}
        self._direct: dict[tuple[Path, tuple[Path, ...], Path], frozenset[Path]] = {}
        self._closures: dict[tuple[Path, tuple[Path, ...], Path], list[Path]] = {}
        self._seen: dict[Path, SourceFacts | None] = {}
        self._dirty = False
        if cache_file is not None:
            try:
                data = json.loads(cache_file.read_text(encoding="utf-8"))
                if data.get("schema") == _INDEX_SCHEMA and isinstance(data.get("files"), dict):
                    self._entries = {
                        path: entry for path, entry in data["files"].items()
                        if isinstance(entry, dict)
                    }
            except (OSError, ValueError, AttributeError):
                pass

    def facts(self, file: Path) -> SourceFacts | None:
        """The facts of ``file``, or ``None`` when it cannot be read (stat'ed once per pass)."""
        if file not in self._seen:
            self._seen[file] = self._read_facts(file)
        return self._seen[file]

    def _read_facts(self, file: Path) -> SourceFacts | None:
        try:
            stat = file.stat()
        except OSError:
            return None
        stamp = [stat.st_mtime_ns, stat.st_size]
        entry = self._entries.get(str(file))
        if entry is None or entry.get("stamp") != stamp:
            try:
                source = file.read_bytes()
            except OSError:
                return None
            facts = _facts_of(source, str(file))
            entry = {"stamp": stamp, "imports": facts.imports, "defs": facts.defs,
                     "error": facts.error, "registered": facts.registered}
            self._entries[str(file)] = entry
            self._dirty = True
        try:
            return SourceFacts(
                tuple((int(level), str(module), tuple(names))
                      for level, module, names in entry["imports"]),
                {name: (str(kind), int(line)) for name, (kind, line) in entry["defs"].items()},
                entry["error"],
                tuple(str(name) for name in entry["registered"]),
            )
        except (KeyError, TypeError, ValueError):  # a damaged cache entry: parse again
            del self._entries[str(file)]
            return self._read_facts(file)

    def module_file(self, module: str, roots: tuple[Path, ...], boundary: Path) -> Path | None:
        """:func:`find_module_file`, memoized for the life of this index (one pass)."""
        key = (module, roots, boundary)
        if key not in self._modules:
            self._modules[key] = find_module_file(module, roots, boundary)
        return self._modules[key]

    def direct_imports(
        self, file: Path, roots: tuple[Path, ...], boundary: Path
    ) -> frozenset[Path]:
        """The files under ``roots`` that ``file`` imports itself, memoized for one pass."""
        key = (file, roots, boundary)
        if key not in self._direct:
            facts = self.facts(file)
            self._direct[key] = frozenset(
                found
                for record in (facts.imports if facts else ())
                for found in _resolve_import(record, file, roots, boundary, self)
            )
        return self._direct[key]

    def save(self) -> None:
        """Write the cache file if anything was parsed; entries of vanished files are dropped."""
        if self.cache_file is None or not self._dirty:
            return
        files = {path: entry for path, entry in self._entries.items() if Path(path).is_file()}
        text = json.dumps({"schema": _INDEX_SCHEMA, "files": files}, separators=(",", ":"))
        temp = self.cache_file.with_name(f".{self.cache_file.name}.{os.getpid()}.tmp")
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            temp.write_text(text, encoding="utf-8")
            os.replace(temp, self.cache_file)
            self._dirty = False
        except OSError:  # a cache that cannot be written only costs time
            with suppress(OSError):
                temp.unlink()


_INDEX_SCHEMA = 1


def _def_line(file: Path, function: str, config: ProjectConfig, index: SourceIndex) -> int:
    shown = config.relative(file)
    facts = index.facts(file)
    if facts is None:
        raise CheckReferenceError(f"cannot read {shown}", shown)
    if facts.error is not None:
        raise CheckReferenceError(f"cannot parse {shown}: {facts.error}", shown)
    kind, line = facts.defs.get(function, ("", 0))
    if kind == "def":
        return line
    if kind:
        what = "an async def" if kind == "async" else "a class"
        raise CheckReferenceError(
            f"{function!r} in {shown} is {what}; a check must be a top-level def", shown, line
        )
    defs = sorted(name for name, (kind, _) in facts.defs.items() if kind == "def")
    close = difflib.get_close_matches(function, defs, n=1, cutoff=0.6)
    if close:
        hint = f"did you mean {close[0]!r}?"
    elif defs:
        hint = "its top-level functions: " + ", ".join(defs)
    else:
        hint = "it defines no top-level functions"
    raise CheckReferenceError(f"function {function!r} not found in {shown} ({hint})", shown)


def local_imports(
    file: Path, config: ProjectConfig, *, index: SourceIndex | None = None
) -> list[Path]:
    """Every project file that ``file`` imports, directly or transitively, sorted (ast only)."""
    return imported_files(file, config.import_roots, config.root, index=index)


def imported_files(
    file: Path, roots: Sequence[Path], boundary: Path, *, index: SourceIndex | None = None
) -> list[Path]:
    """Transitive closure of the modules under ``roots`` (inside ``boundary``) that ``file``
    imports, without ``file`` itself."""
    index = index or SourceIndex()
    start = file.resolve()
    key = (start, tuple(roots), boundary)
    if key in index._closures:
        return list(index._closures[key])
    seen: set[Path] = set()
    pending = [start]
    while pending:
        for dependency in index.direct_imports(pending.pop(), tuple(roots), boundary):
            if dependency not in seen:
                seen.add(dependency)
                pending.append(dependency)
    seen.discard(start)
    index._closures[key] = sorted(seen)
    return list(index._closures[key])


def _resolve_import(
    record: ImportRecord, file: Path, roots: tuple[Path, ...], boundary: Path, index: SourceIndex
) -> Iterable[Path]:
    """The project files one import runs: packages along the dotted path, then the module, and
    for ``from a import b`` the submodule ``a.b`` when there is one."""
    level, module, names = record
    parts = module.split(".") if module else []
    if level > 0:
        package = file.parent
        for _ in range(level - 1):
            package = package.parent
        root = next((r for r in roots if _within(package, r)), None)
        if root is None:
            return
        parts = [*package.resolve().relative_to(root).parts, *parts]
    for end in range(1, len(parts) + 1):
        found = index.module_file(".".join(parts[:end]), roots, boundary)
        if found is not None:
            yield found
    for name in names:
        found = index.module_file(".".join([*parts, name]), roots, boundary)
        if found is not None:
            yield found
