"""``claimcheck init DIR``: a minimal project of one's own, which lint, verify and the site pass.

``DIR`` is a relative or absolute folder, taken from the working folder the command runs in. The
project holds:

* ``pyproject.toml`` with a commented ``[tool.claimcheck]``: the wiki folder, the results store,
  the content package as the only import root, the model factory, the trainer and the catalogue
  of wrong variants;
* ``mkdocs.yml``: the Material theme and claimcheck's plugin, offline (no web fonts, no CDN);
* ``wiki/``: a home page, a concept card and a paper card with one claim of each check kind
  (:mod:`claimcheck.authoring.project_cards`);
* ``wiki_checks/``: the content package, with a registry, a custom check, timing factories, a
  trainer and its tiny data, and one wrong variant (:mod:`claimcheck.authoring.project_code`);
* ``.ci/run``: lint, verify and ``mkdocs build --strict``, the checks CI should run.

Nothing is overwritten: a file that exists already stops ``init`` before anything is written.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import stat
from collections.abc import Iterator
from pathlib import Path

from claimcheck.authoring.project_cards import card_files
from claimcheck.authoring.project_code import PACKAGE, code_files
from claimcheck.core import safe_fs
from claimcheck.core.errors import UsageError

__all__ = ["PACKAGE", "project_files", "write_project"]


def project_files(name: str, today: dt.date) -> dict[str, str]:
    """Every file of a new project, by its path relative to the project folder."""
    return {**card_files(name, today.isoformat()), **code_files()}


def _site_name(folder: Path) -> str:
    name = folder.name.replace("-", " ").replace("_", " ").strip() or "wiki"
    return name if "wiki" in name.lower() else f"{name} wiki"


@contextlib.contextmanager
def _os_errors_named(folder: Path) -> Iterator[None]:
    """Turn an :class:`OSError` (below a file, no permission, a read-only disk, a name too
    long) into the one-line :class:`UsageError` the CLI prints, naming the path concerned."""
    try:
        yield
    except OSError as error:
        where = error.filename if error.filename is not None else folder
        reason = error.strerror or type(error).__name__
        raise UsageError(f"cannot write a new project into {folder}: {where}: {reason}"
                         ) from None


def write_project(folder: Path, today: dt.date | None = None) -> list[Path]:
    """Write a new project into ``folder`` (created if missing); return the files written, each
    as ``folder / relative path``.

    Raises :class:`UsageError` when ``folder`` is a file, lies below one, cannot be written or
    any of the files exists already.
    """
    root = Path(folder).absolute()  # a relative folder is the working folder's, once
    with _os_errors_named(folder):
        files = _files_to_write(folder, root, today)
        root.mkdir(parents=True, exist_ok=True)
        for path in sorted({str(Path(path).parent) for path in files} - {"."}):
            try:  # every folder checked before anything is written
                safe_fs.require_folder(root, path)
            except safe_fs.UnsafeEntry as error:
                raise UsageError(f"{folder}: init writes only into real folders, never through a "
                                 f"symbolic link: {error.one_line()}") from None
        for path, text in files.items():
            safe_fs.write_atomic(root, path, text.encode("utf-8"), durable=False)
        script = root / ".ci" / "run"
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return [Path(folder) / path for path in files]


def _files_to_write(folder: Path, root: Path, today: dt.date | None) -> dict[str, str]:
    """The files of the new project, once ``root`` (``folder`` made absolute) is known to be
    a folder that may receive them: nothing of it is a file, and none of them exists."""
    dangling = next((p for p in (root, *root.parents) if p.is_symlink() and not p.exists()),
                    None)
    if dangling is not None:
        raise UsageError(f"{folder}: {dangling} is a symbolic link to {dangling.readlink()}, "
                         "which does not exist; init writes only into real folders")
    if root.exists() and not root.is_dir():
        raise UsageError(f"{folder} is a file, not a folder")
    blocking = next((p for p in root.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise UsageError(f"{folder}: {blocking} is a file, not a folder")
    files = project_files(_site_name(root.resolve() if root.exists() else root),
                          today or dt.date.today())
    taken = sorted(path for path in files if (root / path).exists()
                   or (root / path).is_symlink())
    if taken:
        raise UsageError(f"{folder} already has {', '.join(taken)}; init writes a new project "
                         "and never overwrites")
    return files
