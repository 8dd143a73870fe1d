"""Where the site's links point: a claim's row, the paper card's explanation of a claim, a paper.

A contradicted or unverified claim is explained in its paper card, under "Paper vs code" by
convention. The explanation of a claim is the first citation in that section that covers the
claim (each citation carries the id ``cc-cite-<line>-<col>`` of its place in the card), or the
section itself when no citation there covers the claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from claimcheck.cards.citations import Citation
from claimcheck.cards.identifiers import paper_link
from claimcheck.site.citeview import ClaimLinks
from claimcheck.site.siteindex import SiteIndex
from claimcheck.site.views import ClaimView

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_EXPLAINS = re.compile(r"paper\s+(?:vs\.?|versus|and)\s+code|contradictions?", re.IGNORECASE)


def citation_anchor(citation: Citation) -> str:
    """The id of a citation's badge: its place in the source file."""
    return f"cc-cite-{citation.line}-{citation.col}"


def explanation_anchors(index: SiteIndex, slugify: Callable[[str, str], str]) -> dict[str, str]:
    """For each claim that its paper card explains, the anchor of the explanation."""
    anchors: dict[str, str] = {}
    for card in index.wiki.papers().values():
        section = _explaining_section(card.body.split("\n"), card.body_offset)
        if section is None:
            continue
        title, first, last = section
        for citation in card.citations:
            if citation.in_code or not first <= citation.line < last:
                continue
            for ref in index.wiki.covering_claims(citation):
                anchors.setdefault(ref.global_id, citation_anchor(citation))
        for ref in index.wiki.claims_of(getattr(card.card, "paper_key", "")):
            anchors.setdefault(ref.global_id, slugify(title, "-"))
    return anchors


def _explaining_section(lines: Sequence[str], offset: int) -> tuple[str, int, int] | None:
    """(title, first file line, line after the end) of the card's "Paper vs code" section."""
    fence = None
    for number, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
            continue
        match = None if fence else _HEADING.match(line)
        if match is None or not _EXPLAINS.search(match[2]):
            continue
        level = len(match[1])
        end = len(lines)
        for later in range(number + 1, len(lines)):
            heading = _HEADING.match(lines[later])
            if heading is not None and len(heading[1]) <= level:
                end = later
                break
        return match[2], number + 1 + offset, end + 1 + offset
    return None


class Linker:
    """Page-relative links to papers, claim rows and explanations."""

    def __init__(self, index: SiteIndex, files: Files, explanations: dict[str, str]) -> None:
        self.index = index
        self.files = files
        self.explanations = explanations
        self._urls: dict[tuple[str, str], str | None] = {}

    def paper_url(self, arxiv: str, page: Page) -> str | None:
        """The paper card's page relative to ``page``, if the wiki has that card."""
        key = (arxiv, page.file.src_uri)
        if key not in self._urls:
            src = self.index.paper_src(arxiv)
            target = self.files.get_file_from_path(src) if src else None
            self._urls[key] = None if target is None else target.url_relative_to(page.file)
        return self._urls[key]

    def claim_links(self, claim: ClaimView, page: Page) -> ClaimLinks:
        """The claim's row and its explanation, from ``page``."""
        paper = self.paper_url(claim.arxiv, page)
        if paper is None:
            return ClaimLinks(paper_link(claim.arxiv))
        explanation = self.explanations.get(claim.global_id)
        return ClaimLinks(f"{paper}#{claim.anchor}",
                          f"{paper}#{explanation}" if explanation else None)

    def citation_href(self, citation: Citation, covered: Sequence[ClaimView], page: Page) -> str:
        """Where a citation's text links: the first claim it covers, else the paper."""
        paper = self.paper_url(citation.paper_key, page)
        if paper is None:
            return paper_link(citation.paper_key)
        return f"{paper}#{covered[0].anchor}" if covered else paper
