"""Tests write only under their temporary folders, never into the repository.

The suite runs on several pytest-xdist workers at once, in a checkout other people may be
editing, so a test that writes, renames or deletes a file of the repository (even to put it back
afterwards) can change what a test on another worker reads. An audit hook (PEP 578) watches this
process's file operations; a test that wrote inside the repository fails at teardown, with the
paths. What it sees: ``open()`` for writing, ``os.open`` for writing by an absolute path, and
``os.rename``/``os.replace``, ``os.remove``, ``os.mkdir``, ``os.rmdir``, ``os.symlink``,
``os.link``, ``os.truncate`` and ``shutil.rmtree``, with their ``dir_fd`` resolved through
``/proc/self/fd``. What it cannot see:
an ``os.open`` by a relative path (its audit event does not carry the ``dir_fd`` it is relative
to), and what child processes do.

Caches that tools keep beside the code are allowed: ``__pycache__``, ``.hypothesis``,
``.pytest_cache`` and the results store's own ``.claimcheck/cache`` (a best-effort cache of parsed
sources, replaced atomically). With ``CLAIMCHECK_UPDATE_GOLDENS=1`` the site tests may rewrite
``tests/site/golden/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = os.path.realpath(Path(__file__).resolve().parents[1])

CACHES = ("__pycache__", ".hypothesis", ".pytest_cache")
ALLOWED_FOLDERS = (os.path.join(ROOT, ".claimcheck", "cache"),)
GOLDENS = os.path.join(ROOT, "tests", "site", "golden")

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# event -> (index of the path argument, index of its dir_fd argument or None)
_PATH_EVENTS: dict[str, tuple[int, int | None]] = {
    "os.rename": (1, 3),
    "os.remove": (0, 1),
    "os.mkdir": (0, 2),
    "os.rmdir": (0, 1),
    "os.symlink": (1, 2),
    "os.link": (1, 3),
    "os.truncate": (0, None),
    "shutil.rmtree": (0, 1),
}

_found: list[str] = []
_watching = False


def _absolute(path: Any, dir_fd: Any) -> str | None:
    """``path`` as an absolute path, or None where it cannot be told (a descriptor, an unknown
    ``dir_fd``)."""
    if isinstance(path, int) or path is None:
        return None
    text = os.fsdecode(path)
    if os.path.isabs(text):
        return os.path.normpath(text)
    if isinstance(dir_fd, int) and dir_fd >= 0:
        try:
            return os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
        except OSError:
            return None
    return os.path.abspath(text)


def _inside_the_repository(path: str) -> bool:
    if not path.startswith(ROOT + os.sep):
        return False
    if any(part in CACHES for part in path[len(ROOT) + 1:].split(os.sep)):
        return False
    if any(path.startswith(folder + os.sep) or path == folder for folder in ALLOWED_FOLDERS):
        return False
    return not (path.startswith(GOLDENS + os.sep)
                and os.environ.get("CLAIMCHECK_UPDATE_GOLDENS") == "1")


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _watching:
        return
    if event == "open":
        path, mode, flags = args
        if isinstance(mode, str):  # open(): a relative path is relative to the working folder
            target = _absolute(path, None) if any(c in mode for c in "wax+") else None
        elif isinstance(flags, int) and flags & _WRITE_FLAGS and not isinstance(path, int):
            text = os.fsdecode(path)  # os.open(): relative to a dir_fd the event does not carry
            target = os.path.normpath(text) if os.path.isabs(text) else None
        else:
            target = None
        if target is not None and _inside_the_repository(target):
            _found.append(f"{event} {target}")
        return
    where = _PATH_EVENTS.get(event)
    if where is None:
        return
    path_index, fd_index = where
    target = _absolute(args[path_index], None if fd_index is None else args[fd_index])
    if target is not None and _inside_the_repository(target):
        _found.append(f"{event} {target}")


def install() -> None:
    """Start watching (once per process; an audit hook cannot be removed)."""
    global _watching
    if not _watching:
        sys.addaudithook(_audit)
        _watching = True


def take() -> list[str]:
    """The writes into the repository seen since the last call, and forget them."""
    found = list(dict.fromkeys(_found))
    _found.clear()
    return found
