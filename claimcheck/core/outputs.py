"""The one path rule for files the tool writes where a person asked (``schema -o``,
``report -o``, ``papers fetch --pin``'s card).

A path on the command line is the operator's choice, but the folders and the file it names may be
committed: ``docs/schema.json -> ~/.bashrc`` in a pull request made ``schema -o docs/schema.json``
overwrite the operator's file. :func:`write_output` writes like the results store
(:func:`claimcheck.core.safe_fs.write_atomic`): into a new temp file renamed over the entry, so
a link or hard link there is replaced, never written through. Inside the project, every folder on
the way must be a real folder (a link is refused, with one line), also when the path reaches the
project through a link of the operator's; a path outside the project is the operator's own, and
only its last entry is held to the rule.
"""

from __future__ import annotations

import os
from pathlib import Path

from claimcheck.core import safe_fs
from claimcheck.core.errors import UsageError
from claimcheck.core.safe_fs import UnsafeEntry

__all__ = ["write_output"]


def write_output(path: Path | str, text: str, project: Path | None = None) -> None:
    """Write ``text`` to ``path`` by the rule above; a refusal or an OS error is a
    :class:`~claimcheck.core.errors.UsageError` naming the path."""
    target = Path(os.path.abspath(path))  # as written: a link on the way is seen, not followed
    boundary = target.parent
    if project is not None:
        boundary = _project_part(target, Path(os.path.realpath(project))) or boundary
    try:
        safe_fs.write_atomic(boundary, target, text.encode("utf-8"), durable=False)
    except UnsafeEntry as error:
        raise UsageError(f"{path}: not written: {error.message}") from None
    except OSError as error:
        raise UsageError(f"{path}: not written: {error.strerror or error}") from None


def _project_part(target: Path, root: Path) -> Path | None:
    """The first folder on the way to ``target`` (from the top) that is, once resolved, the
    project ``root`` or a folder in it, or ``None`` when there is none. The path may reach the
    project through the operator's own link (a shell's ``$PWD`` after ``cd ~/work``, with
    ``~/work -> /data/work``); from there on every folder must be a real one, so a committed
    ``docs -> ~/elsewhere`` is refused however the project was reached."""
    for folder in reversed(target.parents):
        resolved = Path(os.path.realpath(folder))
        if resolved == root or root in resolved.parents:
            return folder
    return None
