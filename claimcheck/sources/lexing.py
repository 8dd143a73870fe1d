"""Small LaTeX reading helpers shared by the structure index and the text canonicaliser.

They read commands, brace groups and optional arguments at an offset of a comment-free
document; none of them ever recurses, so deeply nested input costs no stack.
"""

from __future__ import annotations

__all__ = ["read_command", "read_group", "skip_optional", "skip_space"]


def read_command(text: str, index: int) -> tuple[str, int]:
    """The command at ``text[index] == "\\\\"``: its name (letters, with a trailing ``*``, or
    one other character) and the offset after it."""
    start = index + 1
    end = start
    while end < len(text) and ((text[end].isascii() and text[end].isalpha()) or text[end] == "@"):
        end += 1
    if end == start:
        return text[start : start + 1], min(start + 1, len(text))
    if end < len(text) and text[end] == "*":
        return text[start:end] + "*", end + 1
    return text[start:end], end


def skip_space(text: str, index: int) -> int:
    """The first offset at or after ``index`` that is not white space."""
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _closing(text: str, index: int, bracket: bool) -> int | None:
    """Offset after the ``}`` (or, with ``bracket``, the ``]`` outside braces) that closes the
    group opened at ``index``; ``None`` when it never closes."""
    depth = 0
    position = index
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0 and not bracket:
                return position + 1
        elif char == "]" and bracket and depth <= 0:
            return position + 1
        position += 1
    return None


def read_group(text: str, index: int) -> tuple[int, int, int] | None:
    """A brace group starting at ``index`` (white space skipped): ``(content start, content end,
    offset after the group)``, or ``None`` when no ``{`` comes next. An unclosed group runs to
    the end of the text."""
    index = skip_space(text, index)
    if index >= len(text) or text[index] != "{":
        return None
    end = _closing(text, index, bracket=False)
    if end is None:
        return index + 1, len(text), len(text)
    return index + 1, end - 1, end


def skip_optional(text: str, index: int) -> int:
    """Skip one optional argument ``[...]`` (brackets inside braces do not close it)."""
    position = skip_space(text, index)
    if position >= len(text) or text[position] != "[":
        return index
    end = _closing(text, position, bracket=True)
    return len(text) if end is None else end
