"""No absolute path of the machine that ran a check, or built the site, reaches a page.

Stored results may hold absolute paths (an exception's file, a data folder, a scratch
directory). At render time every such path is rewritten: inside the project it becomes the
path relative to the project root (``models/checks/x.py``); outside it keeps only its last two
parts behind an ellipsis (``…/site-packages/torch``), enough to recognise, nothing to learn about
the machine.

A card may also name a file of the repository that the site does not publish (a maintainer's
note under ``shared/``); folders listed in the plugin's ``unpublished`` option are replaced in
every page by "(unpublished)" (:func:`hide_unpublished`), since a reader can open none of them.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

_POSIX = re.compile(r"(?<![\w.:/~-])(?:~)?/(?:[\w.@+%-]+/)+[\w.@+%-]*")
_WINDOWS = re.compile(r"(?<![\w])[A-Za-z]:\\(?:[\w .@+%-]+\\)*[\w.@+%-]*")
_HOME = re.compile(r"(?<![\w.:/~-])~/")


def scrub_paths(text: str, root: str) -> str:
    """``text`` with every absolute path made relative to ``root`` or shortened."""
    if "/" not in text and "\\" not in text:
        return text
    prefix = root.rstrip("/") + "/"

    def posix(match: re.Match[str]) -> str:
        path = match[0]
        if path.startswith(prefix):
            return path[len(prefix) :] or "."
        if path == prefix.rstrip("/"):
            return "."
        parts = PurePosixPath(path.lstrip("~")).parts[1:]
        return "…/" + "/".join(parts[-2:]) if parts else path

    def windows(match: re.Match[str]) -> str:
        parts = PureWindowsPath(match[0]).parts[1:]
        return "…\\" + "\\".join(parts[-2:]) if parts else match[0]

    text = _POSIX.sub(posix, text)
    text = _WINDOWS.sub(windows, text)
    return _HOME.sub("…/", text)


UNPUBLISHED = "(unpublished)"


def unpublished_pattern(folders: list[str]) -> re.Pattern[str] | None:
    """A pattern matching a path inside any of ``folders`` (``shared`` or ``shared/``)."""
    names = [folder.strip("/") for folder in folders if folder.strip("/")]
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(rf"(?<![\w./-])(?:\.\.?/)*(?:{alternatives})/(?:[\w.@+%-]+/?)*(?<![./])")


def hide_unpublished(text: str, pattern: re.Pattern[str] | None) -> str:
    """``text`` with each path into an unpublished folder replaced by "(unpublished)"."""
    return text if pattern is None else pattern.sub(UNPUBLISHED, text)
