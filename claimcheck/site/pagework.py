"""The plugin's work on one page of the wiki: badges, hover cards, claims table, header.

Everything here runs after the author's HTML has been sanitised; what it inserts comes from the
autoescaped templates of :class:`claimcheck.site.render.Renderer`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from markdown.extensions.toc import slugify as default_slugify
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from claimcheck.cards.citations import Citation
from claimcheck.cards.frontmatter import ConceptCard, PaperCard
from claimcheck.site.citeview import CardBook, CitationView, HoverCard
from claimcheck.site.links import Linker, citation_anchor, explanation_anchors
from claimcheck.site.pages import PageState
from claimcheck.site.render import Renderer
from claimcheck.site.siteindex import SiteIndex
from claimcheck.site.views import ClaimView, SourceLink

_H1_END = re.compile(r"</h1>", re.IGNORECASE)
DEFAULT_LEGEND = "claims-legend.md"


class PageWork:
    """Renders the plugin's pieces of each page, with links relative to that page."""

    def __init__(
        self,
        index: SiteIndex,
        files: Files,
        renderer: Renderer,
        options: Any,
        config: MkDocsConfig,
        root: Path,
    ) -> None:
        self.index = index
        self.files = files
        self.renderer = renderer
        self.options = options
        self.root = root
        self.legend_src = options.legend_page or DEFAULT_LEGEND
        self.site_dir = Path(config.site_dir).resolve()
        toc = (config.mdx_configs or {}).get("toc", {})
        slugify = toc.get("slugify", default_slugify) if isinstance(toc, dict) else None
        self.linker = Linker(index, files, explanation_anchors(index, slugify or default_slugify))

    def new_state(self, page: Page) -> PageState:
        """An empty state whose hover cards link relative to ``page``."""
        legend = self.files.get_file_from_path(self.legend_src)
        return PageState(CardBook(lambda claim: self.linker.claim_links(claim, page),
                                  legend.url_relative_to(page.file) if legend else None))

    def describe_citations(self, state: PageState, page: Page) -> None:
        """One view per placed citation: the claims it states (its badge) and its card."""
        for citation in state.citations:
            stated = self.index.stated(citation)
            named = {claim.global_id for claim in stated}
            others = [claim for claim in self.index.covered(citation)
                      if claim.global_id not in named] if citation.claims else []
            card = state.book.card_for(stated, others)
            href = self.linker.citation_href(citation, stated, page)
            state.views.append(CitationView(shown_text(citation), tuple(stated), href,
                                            card.card_id, citation_anchor(citation)))

    def fill(self, html: str, state: PageState, page: Page) -> str:
        """Badges, hover cards, the claims table and the card's header."""
        html = state.fill_citations(html, self.renderer.citations, page)
        html = state.fill_legend(html, lambda: self.renderer.legend(
            self._example(page), self.page_href(self.options.power_page, page)))
        card = state.card
        if card is None:
            return html
        meta = self.renderer.page_meta(
            card.card.status.value, card.card.updated_at.isoformat(), card.card.tags
        )
        if isinstance(card.card, PaperCard):
            claims = self.index.claims_of(card.card.paper_key)
            table = self.renderer.claims_table(
                claims,
                lambda link: self._source_href(link, page),
                lambda view: self._curve_href(view, page),
                power_href=self.page_href(self.options.power_page, page), back=True,
            )
            html = state.fill_table(html, table)
            header = (self.renderer.paper_header(card.card, claims) + meta
                      + self.renderer.paper_glance(claims))
            return _after_title(html, header)
        if isinstance(card.card, ConceptCard):
            cited = {view.global_id: view for cite in state.views for view in cite.claims}
            uncovered = sum(1 for cite in state.views if not cite.claims)
            meta += self.renderer.strip(list(cited.values()), uncovered)
        return _after_title(html, meta)

    def page_href(self, src: str | None, page: Page) -> str | None:
        """The URL of the wiki page ``src`` from ``page`` (``None``: no such page)."""
        target = self.files.get_file_from_path(src) if src else None
        return target.url_relative_to(page.file) if target is not None else None

    def _example(self, page: Page) -> HoverCard | None:
        """The legend's worked example: the card of a real claim with a measured interval."""
        claims = self.index.claims()
        measured = [claim for claim in claims if claim.measured != "—"]
        chosen = next((claim for claim in measured if "CI" in claim.measured),
                      measured[0] if measured else None)
        if chosen is None:
            return None
        book = CardBook(lambda claim: self.linker.claim_links(claim, page))
        return book.card_for([chosen])

    def add_cards(self, output: str, state: PageState) -> str:
        """The page's hover cards, at the end of its article (after search has read it)."""
        if not state.book.cards:
            return output
        cards = self.renderer.hover_cards(state.book.cards)
        at = output.rfind("</article>")
        if at == -1:
            at = output.rfind("</body>")
        if at == -1:
            return output + cards
        return output[:at] + cards + "\n" + output[at:]

    def _source_href(self, link: SourceLink | None, page: Page) -> str | None:
        if link is None:
            return None
        if self.options.repo_url:
            base_url = self.options.repo_url.rstrip("/")
            return f"{base_url}/blob/{self.options.branch}/{link.path}#L{link.line}"
        page_dir = (self.site_dir / page.file.dest_uri).parent
        return Path(os.path.relpath(self.root / link.path, page_dir)).as_posix()

    def _curve_href(self, view: ClaimView, page: Page) -> str | None:
        curve = self.files.get_file_from_path(curve_src(view.global_id))
        return None if curve is None else curve.url_relative_to(page.file)


def shown_text(citation: Citation) -> str:
    """The citation as a reader sees it: without its claim names (its badge speaks for them)."""
    text = citation.text
    for name in citation.claims:
        text = text.replace(f" #{name}", "", 1)
    return text


def curve_src(global_id: str) -> str:
    """Where a claim's training curve is published."""
    return f"claimcheck/artifacts/{global_id.replace('/', '__')}.svg"


def _after_title(html: str, header: str) -> str:
    """Insert ``header`` just after the page's first ``<h1>``, or at the top without one."""
    match = _H1_END.search(html)
    if match is None:
        return header + "\n" + html
    return html[: match.end()] + "\n" + header + html[match.end() :]
