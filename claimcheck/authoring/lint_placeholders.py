"""Lint rule: placeholders left in a card, in every card kind, and in a plain page.

``claimcheck new`` writes ``TODO`` where a paper's metadata is unknown (``year: 2026  # TODO:
check the year``) and a concept card's template sentences; both pass validation, so lint reports
each line that still holds one as a warning: ``TODO`` in the front matter (a value or a comment)
or in the prose outside code (``FIXME`` and an angled ``<title>`` too), and the template text
of :data:`TEMPLATE_TEXT`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from claimcheck.authoring.findings import Finding, Level
from claimcheck.cards.loader import LoadedCard
from claimcheck.cards.plainpages import PlainPage

__all__ = ["PLACEHOLDER", "TEMPLATE_TEXT", "page_placeholder_findings", "placeholder_findings"]

PLACEHOLDER = "TODO"
"""What ``claimcheck new`` writes where metadata is unknown."""

TEMPLATE_TEXT = ("One paragraph that says what", "Explain the idea here.")
"""Sentences of the concept template (:mod:`claimcheck.authoring.scaffold`)."""

_PLACEHOLDER = re.compile(rf"\b(?:{PLACEHOLDER}|FIXME)\b")
_ANGLED = re.compile(r"<(?!(?:br|hr|sup|sub|em|strong|code|span|div|details|summary|kbd|b|i|u|p|a)"
                     r"\b)[a-z][a-z_-]*(?: [a-z_-]+)*>")
"""A template's ``<title>`` or ``<what the paper says>``: lower-case words in angle brackets (not
an inline HTML tag, which carries attributes or is one of the common tags named)."""


def placeholder_findings(loaded: LoadedCard) -> Iterator[Finding]:
    """Placeholders still in a card: ``TODO`` anywhere in its front matter (a value or a comment,
    such as ``year: 2026  # TODO: check the year``) or in its prose outside code, and the
    template sentences of ``claimcheck new concept``."""
    lines = [(2 + number, text) for number, text in enumerate(loaded.front_matter.splitlines())]
    lines += _prose_lines(loaded.body, loaded.body_offset)
    yield from _findings(loaded.display_path, lines, "left by `claimcheck new`")


def page_placeholder_findings(page: PlainPage) -> Iterator[Finding]:
    """Placeholders still in a plain page (``index.md``, notes): ``TODO``, ``FIXME``, an angled
    ``<title>`` or a template sentence in its prose outside code."""
    yield from _findings(page.display_path, _prose_lines(page.body, 0), "left in the page")


def _prose_lines(body: str, offset: int) -> list[tuple[int, str]]:
    """The file lines of ``body`` outside fenced code, code spans removed, numbered from
    ``offset + 1``."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, text in enumerate(body.splitlines(), start=offset + 1):
        if text.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            lines.append((number, re.sub(r"`[^`]*`", "", text)))
    return lines


def _findings(path: str, lines: list[tuple[int, str]], left: str) -> Iterator[Finding]:
    """One warning per line of ``lines`` that holds a placeholder."""
    for line, text in lines:
        found = _PLACEHOLDER.search(text) or _ANGLED.search(text)
        template = next((t for t in TEMPLATE_TEXT if t in text), None)
        if found is None and template is None:
            continue
        col = found.start() + 1 if found is not None else text.index(str(template)) + 1
        shown = re.sub(r"[\"'\],]+$", "", text[col - 1:].strip())
        shown = shown if len(shown) <= 80 else shown[:79].rstrip() + "…"
        yield Finding(Level.WARNING, path, line, col, f"placeholder {left}: {shown}",
                      "placeholder")
