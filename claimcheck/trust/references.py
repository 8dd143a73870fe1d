"""References (``module.path:function``) and project modules, found from files alone.

This module locates things; :mod:`claimcheck.trust.boundary` decides what a card may name. A dotted
module is looked up under the import roots (:class:`~claimcheck.core.config.ModuleRoot`), as a
``.py`` file or a package's ``__init__.py`` that, with symlinks resolved, lies inside its root and
the project.
:class:`SourceIndex` keeps what :mod:`ast` says about each file (imports, top-level definitions and
their marker decorators), cached by mtime and size. Nothing is ever imported here.

:func:`local_imports` follows a module's imports statically (``import a.b``, ``from a.b import c``,
relative imports, and string literals naming a project module such as the targets of
``importlib.import_module``) to find every project file whose source its behaviour depends on.
"""

from __future__ import annotations

import ast
import functools
import json
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.core import safe_fs
from claimcheck.core.config import ModuleRoot, ProjectConfig
from claimcheck.core.errors import CheckReferenceError
from claimcheck.core.safe_fs import UnsafeEntry
from claimcheck.trust.roles import Role

Roots = tuple[ModuleRoot, ...]


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


def within(path: Path, folder: Path) -> bool:
    """Whether ``path``, with symlinks resolved, is ``folder`` or lies inside it."""
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return resolved == folder or folder in resolved.parents


def find_module_file(module: str, roots: Sequence[ModuleRoot], boundary: Path) -> Path | None:
    """The resolved file of dotted ``module`` under the first root that admits and has it.

    Only files that, with symlinks resolved, lie inside their root's folder and inside
    ``boundary`` count; anything else is treated as absent.
    """
    parts = module.split(".")
    for root in roots:
        if not root.admits(module):
            continue
        base = root.base.joinpath(*parts)
        for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
            if not candidate.is_file():
                continue
            real = candidate.resolve()
            if within(real, boundary) and within(real, root.folder):
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
    ``markers`` maps top-level function names to the :class:`~claimcheck.trust.roles.Role` values
    of their marker decorators; ``registered`` lists the names given to
    ``@register_check("name", ...)`` decorators.
    """

    imports: tuple[ImportRecord, ...]
    defs: dict[str, tuple[str, int]]
    error: str | None = None
    registered: tuple[str, ...] = ()
    markers: dict[str, tuple[str, ...]] | None = None

    def markers_of(self, name: str) -> tuple[str, ...]:
        """The marker roles written above top-level ``name`` (none for a rebound name)."""
        return (self.markers or {}).get(name, ())


@functools.lru_cache(maxsize=1024)
def _facts_of(source: bytes, filename: str) -> SourceFacts:
    """The facts of one file's bytes. Memoized by content for the process: a lint pass asks for
    the same modules once per claim that reaches them (417 times for this repository's wiki,
    11 s of its 12), and the same bytes always parse the same. Callers read, never mutate."""
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
    markers: dict[str, tuple[str, ...]] = {}
    registered: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = {ast.FunctionDef: "def", ast.AsyncFunctionDef: "async"}.get(type(node), "class")
            defs.setdefault(node.name, (kind, node.lineno))
            registered += [name for name in map(_registered_name, node.decorator_list) if name]
            roles = tuple(role for role in map(_marker_role, node.decorator_list) if role)
            markers[node.name] = roles  # the last binding of a name is the one that runs
        for rebound in _assigned_names(node):
            markers.pop(rebound, None)  # ``f = other`` after ``@claim_check def f``: not trusted
    marked = {name: roles for name, roles in markers.items() if roles}
    return SourceFacts(tuple(dict.fromkeys(imports)), defs, None, tuple(registered), marked)


_MARKER_NAMES = frozenset(role.value for role in Role)


def _marker_role(decorator: ast.expr) -> str | None:
    """``"claim_check"`` for ``@claim_check``, ``@claimcheck.claim_check`` or
    ``@claimcheck.markers.claim_check`` (or ``claimcheck.checks.markers``), called
    (``@claim_check(args=X)``) or not; ``None`` for any other decorator."""
    if isinstance(decorator, ast.Call) and not decorator.args:
        decorator = decorator.func
    if isinstance(decorator, ast.Name):
        return decorator.id if decorator.id in _MARKER_NAMES else None
    if not isinstance(decorator, ast.Attribute) or decorator.attr not in _MARKER_NAMES:
        return None
    owner = decorator.value
    if isinstance(owner, ast.Name) and owner.id == "claimcheck":
        return decorator.attr
    if ast.unparse(owner) in ("claimcheck.markers", "claimcheck.checks.markers"):
        return decorator.attr
    return None


def _assigned_names(node: ast.stmt) -> Iterable[str]:
    """Top-level names a statement (re)binds other than by ``def``/``class``."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from ((alias.asname or alias.name).split(".")[0] for alias in node.names)
        return
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                yield sub.id


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

    def __init__(self, cache_file: Path | None = None, boundary: Path | None = None) -> None:
        self.cache_file = cache_file
        self.boundary = boundary or (cache_file.parent.parent if cache_file else None)
        self._entries: dict[str, dict[str, Any]] = {}
        self._modules: dict[tuple[str, Roots, Path], Path | None] = {}
        self._direct: dict[tuple[Path, Roots, Path], frozenset[Path]] = {}
        self._closures: dict[tuple[Path, Roots, Path], list[Path]] = {}
        self._seen: dict[Path, SourceFacts | None] = {}
        self._dirty = False
        if cache_file is not None:
            try:  # committed content, like the store it lies in: never through a link
                data = json.loads(safe_fs.read_bytes(self.boundary or cache_file.parent.parent,
                                                     cache_file, _MAX_CACHE_BYTES))
                if data.get("schema") == _INDEX_SCHEMA and isinstance(data.get("files"), dict):
                    self._entries = {
                        path: entry for path, entry in data["files"].items()
                        if isinstance(entry, dict)
                    }
            except (OSError, ValueError, AttributeError, RecursionError, UnsafeEntry):
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
                     "error": facts.error, "registered": facts.registered,
                     "markers": facts.markers or {}}
            self._entries[str(file)] = entry
            self._dirty = True
        try:
            return SourceFacts(
                tuple((int(level), str(module), tuple(names))
                      for level, module, names in entry["imports"]),
                {name: (str(kind), int(line)) for name, (kind, line) in entry["defs"].items()},
                entry["error"],
                tuple(str(name) for name in entry["registered"]),
                {str(name): tuple(str(role) for role in roles)
                 for name, roles in entry["markers"].items()},
            )
        except (KeyError, TypeError, ValueError):  # a damaged cache entry: parse again
            del self._entries[str(file)]
            return self._read_facts(file)

    def module_file(self, module: str, roots: Roots, boundary: Path) -> Path | None:
        """:func:`find_module_file`, memoized for the life of this index (one pass)."""
        key = (module, roots, boundary)
        if key not in self._modules:
            self._modules[key] = find_module_file(module, roots, boundary)
        return self._modules[key]

    def direct_imports(self, file: Path, roots: Roots, boundary: Path) -> frozenset[Path]:
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
        with suppress(OSError, UnsafeEntry):  # a cache that cannot be written only costs time
            safe_fs.write_atomic(self.boundary or self.cache_file.parent.parent, self.cache_file,
                                 text.encode("utf-8"), durable=False)
            self._dirty = False


_INDEX_SCHEMA = 3  # 3: @wrong_variant is a marker
_MAX_CACHE_BYTES = 64 * 1024 * 1024


def local_imports(
    file: Path, config: ProjectConfig, *, index: SourceIndex | None = None
) -> list[Path]:
    """Every project file that ``file`` imports, directly or transitively, sorted (ast only)."""
    return imported_files(file, config.module_roots, config.root, index=index)


def imported_files(
    file: Path, roots: Sequence[ModuleRoot], boundary: Path, *, index: SourceIndex | None = None
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
    record: ImportRecord, file: Path, roots: Roots, boundary: Path, index: SourceIndex
) -> Iterable[Path]:
    """The project files one import runs: packages along the dotted path, then the module, and
    for ``from a import b`` the submodule ``a.b`` when there is one."""
    level, module, names = record
    parts = module.split(".") if module else []
    if level > 0:
        package = file.parent
        for _ in range(level - 1):
            package = package.parent
        root = next((r for r in roots if within(package, r.folder)), None)
        if root is None:
            return
        parts = [*package.resolve().relative_to(root.base.resolve()).parts, *parts]
    for end in range(1, len(parts) + 1):
        found = index.module_file(".".join(parts[:end]), roots, boundary)
        if found is not None:
            yield found
    for name in names:
        found = index.module_file(".".join([*parts, name]), roots, boundary)
        if found is not None:
            yield found
