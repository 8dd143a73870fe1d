"""The one path rule for files the tool writes where a person asked (``schema -o``,
``report -o``, ``papers fetch --pin``'s card).

A path on the command line is the operator's choice, but the folders and the file it names may be
committed: ``docs/schema.json -> ~/.bashrc`` in a pull request made ``schema -o docs/schema.json``
overwrite the operator's file. :func:`write_output` writes like the results store
(:func:`claimcheck.core.safe_fs.write_atomic`): into a new temp file renamed over the entry, so
a link or hard link there is replaced, never written through. Inside the project, every folder on
the way must be a real folder (a link is refused, with one line); a path outside the project is
the operator's own, and only its last entry is held to the rule.
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
        root = Path(os.path.abspath(project))
        if root in target.parents:
            boundary = root
    try:
        safe_fs.write_atomic(boundary, target, text.encode("utf-8"), durable=False)
    except UnsafeEntry as error:
        raise UsageError(f"{path}: not written: {error.message}") from None
    except OSError as error:
        raise UsageError(f"{path}: not written: {error.strerror or error}") from None
