"""Which files of a wiki folder may be read and published: the folder's trust boundary.

A wiki comes from anyone's pull request, and git stores symbolic links and (through a checkout
tool) can leave other special files behind. A file is *safe* when its real path, every symbolic
link followed, still lies inside the wiki folder, and it is a regular file. Anything else is an
error for lint, for every command that loads the wiki, and for the site build:

* a symbolic link that leaves the wiki (``wiki/env.md -> /proc/self/environ`` would otherwise
  publish the build machine's environment), or that points nowhere;
* a FIFO, socket or device (reading a FIFO blocks forever);
* a folder reached through a symbolic link that leaves the wiki;
* a Markdown file that is a symbolic link to another page of the wiki (links are not followed:
  it would be a second copy of that page, its slug and its errors twice);
* a folder named like a card (``notes.md/``).

Entries whose name starts with ``.`` are skipped, as MkDocs and card loading skip them.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from claimcheck.core.errors import CardError

_NOT_REGULAR = "not a regular file (a FIFO, socket or device cannot be part of the wiki)"


_UNSAFE_NAME = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control and bidirectional-control characters, refused in the names of wiki files and folders."""


def name_reason(name: str) -> str | None:
    """Why a wiki file or folder may not be named ``name`` (``None``: it may)."""
    odd = _UNSAFE_NAME.search(name)
    if odd is None:
        return None
    return (f"a name holding the control character U+{ord(odd[0]):04X}: it would print or "
            "display as another name (a line break, a reversed extension)")


def shown_name(name: str) -> str:
    """``name`` with its control characters written as ``\\uXXXX``, safe to print."""
    return _UNSAFE_NAME.sub(lambda found: f"\\u{ord(found[0]):04x}", name)


def unsafe_reason(path: Path, folder: Path, folder_ok: bool = False) -> str | None:
    """Why ``path`` must not be read as part of the wiki ``folder``, or ``None`` when it may be.

    ``folder`` is the wiki's root; ``path`` is a file under it (as listed, not yet resolved).
    With ``folder_ok``, a folder inside the wiki is acceptable too.
    """
    odd = name_reason(os.path.relpath(path, folder))
    if odd is not None:
        return odd
    root = os.path.realpath(folder)
    try:
        if os.path.islink(path) and not os.path.exists(path):
            return "a symbolic link that points nowhere"
        real = os.path.realpath(path)
        if os.path.commonpath([root, real]) != root:
            return "a symbolic link that leaves the wiki folder"
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as error:
        return f"cannot be read: {getattr(error, 'strerror', None) or error}"
    if not stat.S_ISREG(mode) and not (folder_ok and stat.S_ISDIR(mode)):
        return _NOT_REGULAR
    return None


def leaves_project(path: Path, root: Path) -> bool:
    """Whether ``path``, written inside the project ``root``, really lies outside it.

    A committed symbolic link in place of the wiki or results folder would otherwise make every
    command read, and the site publish, another part of the machine. A path the configuration
    places outside the project on purpose (``results: ../store``) is not refused.
    """
    written = os.path.abspath(path)
    top = os.path.abspath(root)
    if os.path.commonpath([top, written]) != top:
        return False
    real, real_top = os.path.realpath(path), os.path.realpath(root)
    return os.path.commonpath([real_top, real]) != real_top


def walk_wiki(folder: Path, shown: str | None = None) -> tuple[list[Path], list[CardError]]:
    """Every Markdown card file under ``folder`` that may be read, sorted, and one located error
    per unsafe entry (files and linked folders), from one walk of the folder.

    Names starting with ``.`` are skipped, and files starting with ``_`` are not cards (but are
    still judged). ``shown`` is how ``folder`` is named in messages (default: as given). Folders
    are walked without following symbolic links, so a linked folder is judged as one entry and
    never entered. An entry that is no link, in a folder reached without links, lies inside the
    wiki: only links pay for resolving their real path (:func:`unsafe_reason`).
    """
    base = (shown if shown is not None else str(folder)).rstrip("/")
    files: list[Path] = []
    errors: list[CardError] = []
    pending = [folder]
    while pending:
        here = pending.pop()
        try:
            with os.scandir(here) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue  # an unreadable folder is skipped, as os.walk skips it
        folders: list[Path] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if (reason := name_reason(entry.name)) is not None:
                pass  # never entered, never read
            elif entry.is_symlink():
                reason = unsafe_reason(path, folder, folder_ok=_is_dir(entry))
                if reason is None and _is_dir(entry):
                    continue  # a linked folder that stays inside the wiki: not entered
                if reason is None and entry.name.endswith(".md"):
                    reason = _linked_page(path, folder, base)
            elif entry.is_dir(follow_symlinks=False):
                folders.append(path)
                if not entry.name.endswith(".md"):
                    continue
                reason = ("a folder named like a card ('.md'); a card is a file: rename the "
                          "folder")
            elif entry.is_file(follow_symlinks=False):
                reason = None
            else:
                reason = _NOT_REGULAR
            if reason is not None:
                relative = shown_name(path.relative_to(folder).as_posix())
                errors.append(CardError(reason, f"{base}/{relative}", 1, 1))
            elif entry.name.endswith(".md") and not entry.name.startswith("_"):
                files.append(path)
        pending.extend(reversed(folders))  # depth first, in name order
    return sorted(files), errors


def _linked_page(path: Path, folder: Path, base: str) -> str:
    """Why a Markdown file that is a symbolic link inside the wiki is not read: it would be a
    second copy of the page it points at (twice its slug, twice its errors)."""
    target = os.path.relpath(os.path.realpath(path), os.path.realpath(folder))
    return (f"a symbolic link to {base}/{shown_name(Path(target).as_posix())}; links are not "
            "followed: link to that page in Markdown, or copy it")


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
