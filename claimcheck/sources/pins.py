"""Write a source pin into a paper card, changing nothing else in the file.

The pin goes on one line, ``source: {version: 3, kind: latex, sha256: "…"}``, replacing an
existing top-level ``source:`` entry (with its indented lines) or inserted after the paper's
identifier line. The card is written atomically and loaded again; if it no longer validates,
the original text is put back and the error raised.
"""

from __future__ import annotations

import re
from pathlib import Path

from claimcheck.cards.frontmatter import IDENTITY_FIELDS, PaperCard, SourceKind
from claimcheck.core.errors import CardError
from claimcheck.core.outputs import write_output

__all__ = ["pin_line", "write_pin"]

_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def pin_line(version: int | None, kind: SourceKind, sha256: str, url: str | None) -> str:
    """The one YAML line of a pin."""
    parts = []
    if version is not None:
        parts.append(f"version: {version}")
    parts.append(f"kind: {kind.value}")
    parts.append(f'sha256: "{sha256}"')
    if url is not None:
        parts.append('url: "' + url.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return "source: {" + ", ".join(parts) + "}"


def _pinned_text(text: str, line: str) -> str:
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise CardError("missing front matter", None)
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if close is None:
        raise CardError("unterminated front matter", None)
    keys = {m[1]: i for i in range(1, close) if (m := _TOP_KEY.match(lines[i]))}
    if "source" in keys:
        start = keys["source"]
        end = start + 1
        while end < close and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
            end += 1
        lines[start:end] = [line]
    else:
        anchor = next((keys[name] for name in IDENTITY_FIELDS if name in keys), close - 1)
        lines.insert(anchor + 1, line)
    return "\n".join(lines)


def write_pin(path: Path, card: PaperCard, version: int | None, kind: SourceKind, sha256: str,
              url: str | None = None) -> None:
    """Pin ``card``'s source in the file at ``path`` (see the module docstring)."""
    from claimcheck.cards.loader import load_card

    original = path.read_text(encoding="utf-8")
    if card.arxiv is None:
        version = None
    updated = _pinned_text(original, pin_line(version, kind, sha256, url))
    _replace(path, updated)
    try:
        load_card(path)
    except CardError:
        _replace(path, original)
        raise


def _replace(path: Path, text: str) -> None:
    write_output(path, text)  # the one path rule: a link at the card is replaced, not followed
