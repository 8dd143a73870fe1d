"""Lint findings: a level and a place (shared by the lint rules of every module)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from enum import Enum

from claimcheck.core.visible import visible

__all__ = ["Finding", "Level"]


class Level(str, Enum):
    """Severity of a finding; only errors fail the lint."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One lint finding at a place in a file."""

    level: Level
    path: str
    line: int
    col: int
    message: str
    rule: str

    def as_text(self, path: str | None = None, width: int | None = None) -> str:
        """``path:line:col: level: message``, control characters shown escaped
        (:mod:`claimcheck.core.visible`); ``path`` replaces the finding's own (as it opens from
        the working folder). With ``width`` (a terminal's), a longer message goes on in
        indented lines below the first; ``path:line:col: level:`` is never split."""
        head = visible(f"{path or self.path}:{self.line}:{self.col}: {self.level.value}:")
        message = visible(self.message)
        if width is None or len(head) + 1 + len(message) <= width:
            return f"{head} {message}"
        return _wrapped(head, message, width)


_INDENT = "    "


def _wrapped(head: str, message: str, width: int) -> str:
    """``head message`` wrapped to ``width`` columns: the head and as much of the message as
    fits on the first line (at least one word), the rest indented below."""
    first, *others = textwrap.wrap(message, max(width - len(head) - 1, 1),
                                   break_long_words=False, break_on_hyphens=False) or [""]
    rest = " ".join(others)
    lines = [f"{head} {first}"]
    if rest:
        lines += textwrap.wrap(rest, max(width, len(_INDENT) + 1), initial_indent=_INDENT,
                               subsequent_indent=_INDENT, break_long_words=False,
                               break_on_hyphens=False)
    return "\n".join(lines)
