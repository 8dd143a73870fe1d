"""The claimcheck MkDocs plugin: options and event wiring; rendering lives in ``render.py``.

Where the replacement happens, and why. Citations are found on the *Markdown*
(``on_page_markdown``) with :func:`claimcheck.citations.scan_citations`, the same scanner that
lint and verify use, so the site agrees with them about what is a citation, including that text
in code spans and code blocks is not one. Each citation is swapped for an inert placeholder word
(``ClaimcheckToken7Z``) that Markdown leaves alone, and the placeholders are swapped for the
rendered HTML in ``on_page_content``. So the badge HTML never passes through Markdown (which would
re-parse ``*`` or ``_`` in a statement), and scanning HTML for citations (which loses the code
context and the exact positions) is never needed.

Options (``mkdocs.yml``)::

    plugins:
      - claimcheck:
          results: .claimcheck        # default: [tool.claimcheck] results
          repo_url: https://github.com/o/r   # check links: {repo_url}/blob/{branch}/{path}#L{line}
          branch: main
          strict_verdicts: false      # true: errored and stale claims are warnings
          dashboard_page: claims-dashboard.md
          legend_page: claims-legend.md   # an existing wiki page of that name is kept
          templates: null             # folder of templates overriding the built-in ones
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from markupsafe import escape
from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from claimcheck.cards import ConceptCard, PaperCard
from claimcheck.citations import scan_citations
from claimcheck.config import load_config
from claimcheck.errors import ClaimcheckError
from claimcheck.site.pages import PageState, paper_page_markdown
from claimcheck.site.render import Renderer, stylesheet
from claimcheck.site.siteindex import SiteIndex, build_index
from claimcheck.site.views import (
    ClaimView,
    SourceLink,
    Tally,
    citation_view,
    tally,
    worst_verdict,
)

log = logging.getLogger("mkdocs.plugins.claimcheck")

CSS_PATH = "claimcheck/claimcheck.css"
ARTIFACTS_DIR = "claimcheck/artifacts"
_DASHBOARD_TOKEN = "ClaimcheckDashboardZ"
_LEGEND_TOKEN = "ClaimcheckLegendZ"


class ClaimcheckConfig(base.Config):  # type: ignore[no-untyped-call]
    """Options of the claimcheck plugin."""

    results = c.Optional(c.Type(str))
    repo_url = c.Optional(c.Type(str))
    branch = c.Type(str, default="main")
    strict_verdicts = c.Type(bool, default=False)
    dashboard_page = c.Type(str, default="claims-dashboard.md")
    legend_page = c.Type(str, default="claims-legend.md")
    templates = c.Optional(c.Dir(exists=True))


class ClaimcheckPlugin(BasePlugin[ClaimcheckConfig]):  # type: ignore[no-untyped-call]
    """Badges on citations, claims tables on paper pages, a dashboard and a legend."""

    def __init__(self) -> None:
        self.index: SiteIndex | None = None
        self.renderer = Renderer()
        self.files: Files | None = None
        self.pages: dict[str, PageState] = {}
        self.curves: dict[str, File] = {}
        self.generated: set[str] = set()
        self.root = Path.cwd()
        self.site_dir = Path.cwd()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """Find the project, set up the renderer and register the stylesheet."""
        config_file = Path(config.config_file_path or "mkdocs.yml").resolve()
        try:
            self.project = load_config(config_file.parent)
        except ClaimcheckError as error:
            raise base.ValidationError(f"claimcheck: {error.one_line()}") from None
        self.root = self.project.root
        self.site_dir = Path(config.site_dir).resolve()
        templates = self.config.templates
        self.renderer = Renderer(Path(templates) if templates else None)
        if CSS_PATH not in config.extra_css:
            config.extra_css.append(CSS_PATH)
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        """Read the wiki and the store; add the stylesheet, curves, dashboard and legend."""
        results = Path(self.config.results) if self.config.results else self.project.results
        if not results.is_absolute():
            results = self.root / results
        self.index = build_index(self.project, Path(config.docs_dir), results)
        self.files = files
        self.pages = {}
        self._report_problems(self.index)
        files.append(File.generated(config, CSS_PATH, content=stylesheet()))
        self.curves = {}
        for view in self.index.claims():
            if view.curve_svg is not None:
                stem = view.global_id.replace("/", "__")
                curve = File.generated(
                    config, f"{ARTIFACTS_DIR}/{stem}.svg", abs_src_path=str(view.curve_svg)
                )
                files.append(curve)
                self.curves[view.global_id] = curve
        self.generated = set()
        pages = (
            (self.config.dashboard_page, "Claims dashboard", _DASHBOARD_TOKEN),
            (self.config.legend_page, "Verdict legend", _LEGEND_TOKEN),
        )
        for src, title, token in pages:
            if files.get_file_from_path(src) is not None:
                log.info("claimcheck: %s exists in the wiki; not generating it", src)
                continue
            files.append(File.generated(config, src, content=f"# {title}\n\n{token}\n"))
            self.generated.add(src)
        return files

    def _report_problems(self, index: SiteIndex) -> None:
        """Cards that did not load (info); errored or stale claims (warnings when strict)."""
        for error in index.wiki.load_errors:
            log.info("claimcheck: card not loaded: %s", error.one_line())
        attention = [claim for claim in index.claims() if claim.needs_attention]
        report = log.warning if self.config.strict_verdicts else log.debug
        for claim in attention:
            what = "errored" if claim.errored else "stale"
            report("claimcheck: claim %s (%s) is %s", claim.global_id, claim.card_path, what)

    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        """Swap citations and the claims marker for placeholders; escape the card's title."""
        if self.index is None:
            return markdown
        state = PageState()
        self.pages[page.file.src_uri] = state
        if isinstance(page.meta.get("title"), str):
            page.meta["title"] = str(escape(page.meta["title"]))
        card = self.index.cards_by_src().get(page.file.src_uri)
        if card is not None:
            # The card's editorial status goes in claimcheck's own header; Material would show
            # it again as an unexplained nav icon.
            page.meta.pop("status", None)
        citations, _ = scan_citations(markdown, page.file.src_uri)
        prose = [citation for citation in citations if not citation.in_code]
        markdown = state.replace_citations(markdown, prose)
        for citation in state.citations:
            covered = self.index.covered(citation)
            href = self._citation_href(citation.scheme, citation.id, covered, page)
            state.views.append(citation_view(citation.text, citation.key, covered, href))
        if card is not None:
            state.card = card
            if isinstance(card.card, PaperCard):
                markdown = paper_page_markdown(markdown)
        return markdown

    def _citation_href(self, scheme: str, ident: str, covered: list[ClaimView], page: Page) -> str:
        if scheme == "arxiv" and self.index is not None:
            paper = self.index.paper_src(ident)
            if paper is not None and self.files is not None:
                target = self.files.get_file_from_path(paper)
                if target is not None:
                    url = target.url_relative_to(page.file)
                    if covered:
                        verdict = worst_verdict(view.verdict for view in covered)
                        worst = next(view for view in covered if view.verdict == verdict)
                        return f"{url}#{worst.anchor}"
                    return url
            return f"https://arxiv.org/abs/{ident}"
        return f"https://doi.org/{ident}"

    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        """Put the rendered badges, tables, strips and generated pages in place."""
        if self.index is None:
            return html
        src = page.file.src_uri
        if src in self.generated and self.files is not None:
            return self._generated_content(html, page, self.index, self.files)
        state = self.pages.get(src)
        if state is None:
            return html
        html = state.fill_citations(html, self.renderer, page)
        card = state.card
        if card is None:
            return html
        if isinstance(card.card, PaperCard):
            table = self.renderer.claims_table(
                self.index.claims_of(card.card.arxiv),
                lambda link: self._source_href(link, page),
                lambda view: self._curve_href(view, page),
            )
            html = state.fill_table(html, table)
        header = self.renderer.page_meta(
            card.card.status.value, card.card.updated_at.isoformat(), card.card.tags
        )
        if isinstance(card.card, ConceptCard):
            claims = {view.global_id: view for cite in state.views for view in cite.claims}
            uncovered = sum(1 for cite in state.views if not cite.claims)
            header += self.renderer.strip(_with_uncovered(claims, uncovered), uncovered)
        return _after_title(html, header)

    def _generated_content(self, html: str, page: Page, index: SiteIndex, files: Files) -> str:
        if page.file.src_uri == self.config.legend_page:
            return html.replace(f"<p>{_LEGEND_TOKEN}</p>", self.renderer.legend())
        papers: dict[str, str] = {}
        for view in index.claims():
            src = index.paper_src(view.arxiv)
            target = files.get_file_from_path(src) if src else None
            if target is not None:
                papers[view.arxiv] = target.url_relative_to(page.file)
        legend_file = files.get_file_from_path(self.config.legend_page)
        legend = legend_file.url_relative_to(page.file) if legend_file else None
        dashboard = self.renderer.dashboard(
            index.claims(),
            papers,
            lambda view: f"{papers.get(view.arxiv, '')}#{view.anchor}",
            legend,
        )
        return html.replace(f"<p>{_DASHBOARD_TOKEN}</p>", dashboard)

    def _source_href(self, link: SourceLink | None, page: Page) -> str | None:
        if link is None:
            return None
        if self.config.repo_url:
            base_url = self.config.repo_url.rstrip("/")
            return f"{base_url}/blob/{self.config.branch}/{link.path}#L{link.line}"
        page_dir = (self.site_dir / page.file.dest_uri).parent
        return Path(os.path.relpath(self.root / link.path, page_dir)).as_posix()

    def _curve_href(self, view: ClaimView, page: Page) -> str | None:
        curve = self.curves.get(view.global_id)
        return None if curve is None else curve.url_relative_to(page.file)


def _with_uncovered(claims: dict[str, ClaimView], uncovered: int) -> Tally:
    """Counts of the distinct claims cited, with citations that cover none as unverified."""
    counts = tally(claims.values())
    return Tally(counts.verified, counts.contradicted, counts.unverified + uncovered, counts.stale)


_H1_END = re.compile(r"</h1>", re.IGNORECASE)


def _after_title(html: str, header: str) -> str:
    """Insert ``header`` just after the page's first ``<h1>``, or at the top without one."""
    match = _H1_END.search(html)
    if match is None:
        return header + "\n" + html
    return html[: match.end()] + "\n" + header + html[match.end() :]
