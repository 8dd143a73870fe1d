"""Per-page placeholders: citations and the claims table go in as inert words, come out as HTML.

A placeholder is a single word of letters and digits (``ClaimcheckCite3Z``), which Markdown passes
through unchanged in paragraphs, lists, tables and admonitions alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import escape

from claimcheck.citations import Citation
from claimcheck.loader import LoadedCard
from claimcheck.site.render import Renderer
from claimcheck.site.views import CitationView

CLAIMS_MARKER = re.compile(r"^[ \t]*<!--[ \t]*claimcheck:claims[ \t]*-->[ \t]*$", re.MULTILINE)
_CITE_TOKEN = re.compile(r"ClaimcheckCite(\d+)Z")
_TABLE_TOKEN = "ClaimcheckClaimsZ"


def _cite_token(number: int) -> str:
    return f"ClaimcheckCite{number}Z"


def _offsets(markdown: str) -> list[int]:
    """Character offset of the start of each line (index 0 is line 1)."""
    return [0, *(match.end() for match in re.finditer("\n", markdown))]


@dataclass
class PageState:
    """What the plugin replaced on one page, to be filled in once the HTML exists."""

    citations: list[Citation] = field(default_factory=list)
    views: list[CitationView] = field(default_factory=list)
    card: LoadedCard | None = None

    def replace_citations(self, markdown: str, citations: Sequence[Citation]) -> str:
        """Swap each citation (positions as found by ``scan_citations``) for a placeholder."""
        starts = _offsets(markdown)
        placed: list[tuple[int, int, int]] = []
        for number, citation in enumerate(citations):
            start = starts[citation.line - 1] + citation.col - 1
            if markdown[start : start + len(citation.text)] != citation.text:
                continue
            placed.append((start, start + len(citation.text), number))
        self.citations = [citations[number] for _, _, number in placed]
        pieces: list[str] = []
        cursor = 0
        for slot, (start, end, _) in enumerate(placed):
            pieces.append(markdown[cursor:start])
            pieces.append(_cite_token(slot))
            cursor = end
        pieces.append(markdown[cursor:])
        return "".join(pieces)

    def fill_citations(self, html: str, renderer: Renderer, page: Any) -> str:
        """Replace every citation placeholder with its badge; restore the text in the TOC."""
        if not self.views:
            return html

        def badge(match: re.Match[str]) -> str:
            slot = int(match[1])
            if slot >= len(self.views):
                return match[0]
            return renderer.citation(self.views[slot], f"cc-card-{slot}")

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

    def fill_table(self, html: str, table: str) -> str:
        """Put the claims table where its placeholder paragraph is."""
        paragraph = f"<p>{_TABLE_TOKEN}</p>"
        if paragraph in html:
            return html.replace(paragraph, table, 1)
        return html.replace(_TABLE_TOKEN, table, 1)


def paper_page_markdown(markdown: str) -> str:
    """Mark where the claims table goes: at ``<!-- claimcheck:claims -->``, else at the end."""
    block = f"\n\n{_TABLE_TOKEN}\n\n"
    if CLAIMS_MARKER.search(markdown):
        return CLAIMS_MARKER.sub(lambda match: block, markdown, count=1)
    return markdown.rstrip("\n") + f"\n\n## Claims\n{block}"
