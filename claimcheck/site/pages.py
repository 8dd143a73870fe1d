"""Per-page placeholders: citations and the claims table go in as inert words, come out as HTML.

A placeholder is a single word of letters and digits (``ClaimcheckCite3Z``), which Markdown passes
through unchanged in paragraphs, lists, tables and admonitions alike, and which the HTML
sanitiser keeps as text. The plugin's own markup replaces the placeholders only after the
author's HTML has been sanitised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import escape

from claimcheck.cards.citations import Citation
from claimcheck.cards.loader import LoadedCard
from claimcheck.site.citeview import CardBook, CitationView

CLAIMS_MARKER = re.compile(r"^[ \t]*<!--[ \t]*claimcheck:claims[ \t]*-->[ \t]*$", re.MULTILINE)
_CITE_TOKEN = re.compile(r"ClaimcheckCite(\d+)Z")
_TABLE_TOKEN = "ClaimcheckClaimsZ"
LEGEND_MARKER = re.compile(r"^[ \t]*<!--[ \t]*claimcheck:legend[ \t]*-->[ \t]*$", re.MULTILINE)
_LEGEND_TOKEN = "ClaimcheckBadgeLegendZ"


def _cite_token(number: int) -> str:
    return f"ClaimcheckCite{number}Z"


@dataclass
class PageState:
    """What the plugin replaced on one page, to be filled in once the HTML exists."""

    book: CardBook
    citations: list[Citation] = field(default_factory=list)
    views: list[CitationView] = field(default_factory=list)
    card: LoadedCard | None = None

    def replace_citations(self, markdown: str, placed: Sequence[tuple[int, Citation]]) -> str:
        """Swap each citation, given with its offset in ``markdown``, for a placeholder."""
        pieces: list[str] = []
        cursor = 0
        self.citations = []
        for start, citation in sorted(placed, key=lambda item: item[0]):
            if start < cursor or not markdown.startswith(citation.text, start):
                continue
            pieces.append(markdown[cursor:start])
            pieces.append(_cite_token(len(self.citations)))
            self.citations.append(citation)
            cursor = start + len(citation.text)
        pieces.append(markdown[cursor:])
        return "".join(pieces)

    def fill_citations(
        self, html: str, render: Callable[[Sequence[CitationView]], list[str]], page: Any
    ) -> str:
        """Replace every citation placeholder with its badge; restore the text in the TOC."""
        if not self.views:
            return html
        rendered = render(self.views)

        def badge(match: re.Match[str]) -> str:
            slot = int(match[1])
            return rendered[slot] if slot < len(rendered) else match[0]

        self._restore_toc(getattr(page, "toc", []))
        return _CITE_TOKEN.sub(badge, html)

    def _restore_toc(self, items: Any) -> None:
        for item in items:
            item.title = _CITE_TOKEN.sub(
                lambda match: str(escape(self.views[int(match[1])].text))
                if int(match[1]) < len(self.views)
                else match[0],
                item.title,
            )
            self._restore_toc(item.children)

    def fill_legend(self, html: str, legend: Callable[[], str]) -> str:
        """Put the badge legend where ``<!-- claimcheck:legend -->`` was (if it was)."""
        paragraph = f"<p>{_LEGEND_TOKEN}</p>"
        return html.replace(paragraph, legend(), 1) if paragraph in html else html

    def fill_table(self, html: str, table: str) -> str:
        """Put the claims table where its placeholder paragraph is."""
        paragraph = f"<p>{_TABLE_TOKEN}</p>"
        if paragraph in html:
            return html.replace(paragraph, table, 1)
        return html.replace(_TABLE_TOKEN, table, 1)


def legend_markdown(markdown: str) -> str:
    """Mark where the badge legend goes: at ``<!-- claimcheck:legend -->``, on any page."""
    return LEGEND_MARKER.sub(lambda match: f"\n\n{_LEGEND_TOKEN}\n\n", markdown, count=1)


def paper_page_markdown(markdown: str) -> str:
    """Mark where the claims' full evidence goes: at ``<!-- claimcheck:claims -->``, else at
    the end, under its own heading (the list of claims opens the page, after its header)."""
    block = f"\n\n{_TABLE_TOKEN}\n\n"
    if CLAIMS_MARKER.search(markdown):
        return CLAIMS_MARKER.sub(lambda match: block, markdown, count=1)
    return markdown.rstrip("\n") + f"\n\n## Evidence for each claim\n{block}"
