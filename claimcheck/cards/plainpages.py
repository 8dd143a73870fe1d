"""Pages of the wiki without front matter (``index.md``, a legend, notes): their citations count.

A plain page registers no claim, but its citations are linted and badged like a card's. A page
that *looks* like a card whose author forgot or misplaced the opening ``---`` is reported, so it
is not silently published as prose with its claims unregistered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from claimcheck.cards.citations import Citation, CitationProblem, scan_citations
from claimcheck.cards.loader import read_text

_CARD_ONLY_KEY = re.compile(r"^(kind|slug|arxiv|claims|papers|related|updated_at)[ \t]*:")
_HEAD_LINES = 60


@dataclass
class PlainPage:
    """A wiki page without front matter, with the citations of its text."""

    path: Path
    display_path: str
    body: str
    citations: list[Citation] = field(default_factory=list)
    citation_problems: list[CitationProblem] = field(default_factory=list)
    card_hint: tuple[int, str] | None = None
    """``(line, why)`` when the page looks like a card without front matter."""


def load_plain_page(path: Path, display: str, text: str | None = None) -> PlainPage:
    """Read a page without front matter (size and encoding checked as for cards); ``text`` is
    its content when the caller has read it already."""
    text = (read_text(path, display) if text is None else text).removeprefix("\ufeff")
    citations, problems = scan_citations(text, display)
    return PlainPage(path, display, text, citations, problems, card_hint(text))


def card_hint(text: str) -> tuple[int, str] | None:
    """Where and why ``text`` looks like a card whose front matter is missing or misplaced."""
    lines = text.split("\n")[:_HEAD_LINES]
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    if lines[first].strip() == "---":
        return first + 1, "front matter must start on the first line with '---'"
    for index in range(first, len(lines)):
        line = lines[index]
        if not line.strip() or line.strip() in ("---", "..."):
            return None  # the page's first block ended without a card key
        if _CARD_ONLY_KEY.match(line):
            key = line.split(":", 1)[0].strip()
            return index + 1, f"'{key}:' is a card key, but the page has no front matter"
    return None
