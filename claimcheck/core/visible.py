"""Text from committed files, made safe to print: every control character shown, none obeyed.

A result file, a power file, a card or a check's error message is data a pull request can write.
Printed raw to a terminal, an escape sequence in it (``ESC [ 2 J``, an OSC 8 hyperlink, a
cursor move over the previous line) rewrites what the reader sees, and a carriage return or a
line break forges a line of output or a GitHub annotation (``::error ...``). :func:`visible` is
the one rule every sink applies (``status``, ``verify``, ``lint`` and their ``--format github``
annotations): each C0 and C1 control character, DEL, and each bidirectional or zero-width
formatting character (Unicode category ``Cf``, which reorders or hides text), and each lone
surrogate, unassigned code point, noncharacter and private-use character becomes a visible
escape, ``\\x1b``, ``\\u202e``; a backslash stays as it is. ``keep_newlines`` lets a multi-line
message (a traceback under ``--debug``) keep its line breaks, each line still escaped otherwise,
and a kept line that starts with ``::`` (a GitHub workflow command) shown as ``\\x3a\\x3a``.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import unicodedata
from typing import TextIO

__all__ = ["show_warning", "visible"]

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _hidden(char: str) -> bool:
    """A control or formatting character, a line or paragraph separator, or one that no font
    draws: a lone surrogate (``Cs``, which a UTF-8 stream cannot even encode), an unassigned
    code point or a noncharacter such as U+FFFE (``Cn``, not allowed in XML), a private-use
    one (``Co``)."""
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Cn", "Co")


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
    """A :func:`warnings.showwarning` that prints ``category: message`` with :func:`visible`
    (a store warning names committed files, whose names a pull request chooses)."""
    stream = sys.stderr if file is None else file
    with contextlib.suppress(OSError):
        stream.write(f"{category.__name__}: {visible(str(message))}\n")


def _no_command(line: str) -> str:
    """A kept line that would start a CI workflow command (``::error ...``) with its colons
    escaped: a runner reads any output line starting with ``::`` as a command."""
    stripped = line.lstrip()
    if stripped.startswith("::"):
        return line[: len(line) - len(stripped)] + "\\x3a\\x3a" + stripped[2:]
    return line


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control and invisible formatting character shown as an escape."""
    if keep_newlines:
        return "\n".join(_no_command(visible(line)) for line in text.split("\n"))
    if text.isprintable():  # no control, format or separator character but the space
        return text
    return "".join(_escape(char) if _hidden(char) else char for char in text)


def terminal_width(stream: TextIO) -> int | None:
    """The width in columns of the terminal ``stream`` writes to, or ``None`` when it writes to
    a file or a pipe (whose lines are never wrapped: tools read them one finding a line)."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):  # a closed or replaced stream
        return None
    columns = shutil.get_terminal_size().columns
    return columns if columns >= 40 else None
