"""Text from committed files, made safe to print: every control character shown, none obeyed.

A result file, a power file, a card or a check's error message is data a pull request can write.
Printed raw to a terminal, an escape sequence in it (``ESC [ 2 J``, an OSC 8 hyperlink, a
cursor move over the previous line) rewrites what the reader sees, and a carriage return or a
line break forges a line of output or a GitHub annotation (``::error ...``). :func:`visible` is
the one rule every sink applies (``status``, ``verify``, ``lint`` and their ``--format github``
annotations): each C0 and C1 control character, DEL, and each bidirectional or zero-width
formatting character (Unicode category ``Cf``, which reorders or hides text) becomes a visible
escape, ``\\x1b``, ``\\u202e``; a backslash stays as it is. ``keep_newlines`` lets a multi-line
message (a traceback under ``--debug``) keep its line breaks, each still escaped otherwise.
"""

from __future__ import annotations

import unicodedata

__all__ = ["visible"]

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")



def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control and invisible formatting character shown as an escape."""
    if keep_newlines:
        return "\n".join(visible(line) for line in text.split("\n"))
    if text.isprintable():  # no control, format or separator character but the space
        return text
    return "".join(_escape(char) if _hidden(char) else char for char in text)
