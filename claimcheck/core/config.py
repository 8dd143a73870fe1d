"""Project configuration: the ``[tool.claimcheck]`` table of ``pyproject.toml``.

The project root is the nearest folder, from the given path upwards, whose ``pyproject.toml``
has a ``[tool.claimcheck]`` table. Content code (``models/``) is found relative to that root,
the way pytest finds ``conftest.py``; it is never installed.

``import_roots`` (default ``["models"]``) lists the *content packages* a card may reach: a folder
with an ``__init__.py`` is a package, named by its folder, whose parent goes on ``sys.path``
(``models`` makes ``models.checks.x:f`` reachable, and nothing outside ``models``). A folder
without one (the legacy ``"."``, or ``"src"``) is a source folder: every package under it is
content. Either way a card names only functions marked for it (:mod:`claimcheck.checks.markers`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from claimcheck.core.errors import ConfigError

DEFAULT_IMPORT_ROOTS = ("models",)


@dataclass(frozen=True)
class ModuleRoot:
    """Where card-named modules are looked up: ``base`` goes on ``sys.path``; with ``package``
    set, only modules of that top-level package count (and they must lie inside ``folder``)."""

    base: Path
    package: str | None
    folder: Path

    @classmethod
    def of(cls, folder: Path) -> ModuleRoot:
        """The root a configured folder stands for (see the module docstring)."""
        if folder.name.isidentifier() and (
            (folder / "__init__.py").is_file() or not folder.exists()
        ):
            return cls(folder.parent, folder.name, folder)
        return cls(folder, None, folder)

    def admits(self, module: str) -> bool:
        """Whether dotted ``module`` belongs to this root's package (any, for a source folder)."""
        return self.package is None or module.split(".")[0] == self.package


_KNOWN_KEYS = {"wiki", "results", "import_roots", "model_factory", "trainer", "sources",
               "confidence", "variants",
               "refused_sources", "data_roots"}
DEFAULT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class ProjectConfig:
    """Resolved settings of one claimcheck project."""

    root: Path
    wiki: Path
    results: Path
    import_roots: tuple[Path, ...]
    model_factory: str = "models.registry:build_model"
    trainer: str = "models.training:run_training"
    confidence: float = DEFAULT_CONFIDENCE
    variants: tuple[str, ...] = ()
    refused_sources: tuple[str, ...] = ()
    data_roots: tuple[Path, ...] = ()
    """Folders inside the project, outside the results store, where a card's path arguments may
    point (``[tool.claimcheck] data_roots``; none by default: see
    :mod:`claimcheck.trust.data_paths`)."""
    raw: dict[str, object] = field(default_factory=dict, compare=False)

    def relative(self, path: Path) -> str:
        """``path`` relative to the root when it lies inside it, else as given."""
        try:
            return str(path.resolve().relative_to(self.root))
        except ValueError:
            return str(path)

    def shown(self, path: str) -> str:
        """A root-relative ``path`` (as findings and card errors carry it) as it opens from the
        working folder: unchanged when that is the root, relative to it when the file lies
        below it, else absolute."""
        full = Path(path) if os.path.isabs(path) else self.root / path
        try:
            here = Path.cwd().resolve()
        except OSError:  # the working folder was removed
            return str(full)
        if here == self.root:
            return path
        try:
            return str(full.relative_to(here))
        except ValueError:
            return str(full)

    @property
    def module_roots(self) -> tuple[ModuleRoot, ...]:
        """The import roots as :class:`ModuleRoot` values."""
        return tuple(ModuleRoot.of(folder) for folder in self.import_roots)

    def content_names(self) -> str:
        """``models`` (or ``models, extras``): the import roots as messages name them."""
        return ", ".join(
            root.package or (self.relative(root.folder) + "/") for root in self.module_roots
        )

    def activate_import_roots(self) -> None:
        """Put the import roots' bases first on ``sys.path`` so ``models.*`` is this project's."""
        for root in reversed(self.module_roots):
            text = str(root.base)
            if text in sys.path:
                sys.path.remove(text)
            sys.path.insert(0, text)


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` with a claimcheck-enabled pyproject.toml.

    Looked for first above ``start`` as written, then above its real path: a committed
    ``wiki -> /elsewhere`` link must not take the search (and the project) out of the project
    the command was run in.
    """
    for here in (Path(os.path.abspath(start)), start.resolve()):
        if here.is_file():
            here = here.parent
        for folder in (here, *here.parents):
            candidate = folder / "pyproject.toml"
            if candidate.is_file() and _has_table(candidate):
                return folder.resolve()
    return None


def _has_table(pyproject: Path) -> bool:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    return isinstance(data.get("tool"), dict) and "claimcheck" in data["tool"]


def load_config(start: Path | None = None) -> ProjectConfig:
    """Load the configuration of the project containing ``start`` (default: the cwd).

    Without a claimcheck pyproject.toml the defaults apply, rooted at ``start``.
    """
    start = Path(os.path.abspath(start or Path.cwd()))
    root = find_root(start)
    if root is None:
        base = start if start.is_dir() else start.parent
        if base.name == "wiki":
            base = base.parent
        return _build(base.resolve(), {}, None)
    pyproject = root / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", str(pyproject)) from None
    table = data["tool"]["claimcheck"]
    if not isinstance(table, dict):
        raise ConfigError("[tool.claimcheck] must be a table", str(pyproject))
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise ConfigError(
            f"unknown key(s) in [tool.claimcheck]: {', '.join(unknown)}", str(pyproject)
        )
    return _build(root, table, pyproject)


def _build(root: Path, table: dict[str, object], source: Path | None) -> ProjectConfig:
    where = str(source) if source else None

    def text(key: str, default: str) -> str:
        value = table.get(key, default)
        if not isinstance(value, str):
            raise ConfigError(f"[tool.claimcheck] {key} must be a string", where)
        return value

    roots_value = table.get("import_roots", list(DEFAULT_IMPORT_ROOTS))
    if not isinstance(roots_value, list) or not all(isinstance(r, str) for r in roots_value):
        raise ConfigError("[tool.claimcheck] import_roots must be a list of strings", where)
    confidence = table.get("confidence", DEFAULT_CONFIDENCE)
    if (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
            or not 0.5 <= confidence < 1.0):
        raise ConfigError("[tool.claimcheck] confidence must be a number in [0.5, 1), the level "
                          "of the confidence intervals of training claims (e.g. 0.95)", where)
    variants = table.get("variants", [])
    if not isinstance(variants, list) or not all(
            isinstance(v, str) and v and all(p.isidentifier() for p in v.split("."))
            for v in variants):
        raise ConfigError("[tool.claimcheck] variants must be a list of dotted module names "
                          "(the catalogue of wrong variants, e.g. [\"models.variants\"])", where)
    refused = table.get("refused_sources", [])
    if not isinstance(refused, list) or not all(isinstance(r, str) and r for r in refused):
        raise ConfigError("[tool.claimcheck] refused_sources must be a list of non-empty "
                          "strings (copies of papers no card may cite as a source)", where)
    _check_sources(table.get("sources"), root, where)
    roots = tuple((root / r).resolve() for r in roots_value)
    for resolved in roots:
        if resolved != root and root not in resolved.parents:
            raise ConfigError(f"import root {resolved} lies outside the project root", where)
    # As written, not resolved: the store refuses a committed link (claimcheck.core.safe_fs).
    results = Path(os.path.normpath(root / text("results", ".claimcheck")))
    written = Path(os.path.normpath(root / text("wiki", "wiki")))
    # Else lint and verify read, and run, cards from elsewhere; a wiki folder that is a link
    # out of the project is refused later, with its own message.
    if written != root and root not in written.parents:
        raise ConfigError(f"[tool.claimcheck] wiki = {text('wiki', 'wiki')!r} lies outside the "
                          f"project root {root}; the wiki must be a folder inside it", where)
    return ProjectConfig(
        root=root,
        wiki=written.resolve(),
        results=results,
        import_roots=roots,
        model_factory=text("model_factory", "models.registry:build_model"),
        trainer=text("trainer", "models.training:run_training"),
        confidence=float(confidence),
        variants=tuple(variants),
        refused_sources=tuple(refused),
        data_roots=_data_roots(table.get("data_roots", []), root, results, where),
        raw=dict(table),
    )


def user_cache_folder() -> Path:
    """``$XDG_CACHE_HOME``, else ``~/.cache``: the one folder outside the project where a
    configured source cache may lie."""
    return Path(os.path.abspath(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"))


def _check_sources(value: object, root: Path, where: str | None) -> None:
    """``[tool.claimcheck] sources``: a folder inside the project or inside the user's cache
    folder. The configuration is committed, so ``sources = "../.."`` would make ``papers fetch``
    write wherever a pull request chose."""
    if value is None:
        return
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("[tool.claimcheck] sources must be a folder (a string)", where)
    folder = Path(os.path.normpath(root / value))
    cache = user_cache_folder()
    if root in folder.parents or folder == cache or cache in folder.parents:
        return
    raise ConfigError(f"[tool.claimcheck] sources = {value!r} lies outside the project and the "
                      f"user's cache folder ({cache}); the source cache must be one or the other",
                      where)


def _data_roots(value: object, root: Path, results: Path, where: str | None) -> tuple[Path, ...]:
    """``[tool.claimcheck] data_roots``: plain relative folders inside the project, none inside
    the results store (whose files a pull request writes)."""
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ConfigError("[tool.claimcheck] data_roots must be a list of folders relative to "
                          "the project", where)
    folders = []
    for item in value:
        folder = Path(os.path.normpath(root / item))
        if Path(item).is_absolute() or ".." in Path(item).parts or root not in folder.parents:
            raise ConfigError(f"data root {item!r} must be a folder inside the project", where)
        if folder == results or results in folder.parents or folder in results.parents:
            raise ConfigError(f"data root {item!r} overlaps the results store", where)
        folders.append(folder)
    return tuple(folders)
