"""The pages the plugin generates: dashboard, legend, claim graphs, folder indexes, curves.

Their names are reserved: a wiki file with one of them is a build error (see
:mod:`claimcheck.site.guard`), so a pull request cannot replace the dashboard with fake totals.
The one exception is a legend page the maintainers name in ``mkdocs.yml`` (``legend_page``) and
write themselves: a legend holds no figures. Training curves are published sanitised.
"""

from __future__ import annotations

import functools
import html
import json
import logging
import re
import subprocess
from pathlib import PurePosixPath
from typing import Any

from markupsafe import Markup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from claimcheck.cards.identifiers import paper_label, paper_link
from claimcheck.core.safe_fs import UnsafeEntry, read_bytes
from claimcheck.site.assets import ASSETS_DIR
from claimcheck.site.graph import Citer, dot_available, overview_dot, paper_dot, render_svgs
from claimcheck.site.nav import INDEX_NAMES, Listing, crowded_folders, index_src
from claimcheck.site.pagework import DEFAULT_LEGEND, curve_src
from claimcheck.site.render import Renderer, papers_summary
from claimcheck.site.siteindex import SiteIndex
from claimcheck.site.sources import PageSource
from claimcheck.site.svgclean import MAX_SVG_BYTES, clean_svg
from claimcheck.site.views import ClaimView
from claimcheck.store.results import result_stem

log = logging.getLogger("mkdocs.plugins.claimcheck")

_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
NO_DOT = (
    "The drawing needs Graphviz's dot, which is not installed where this site was built "
    "(Debian and Ubuntu: apt-get install graphviz). The table below holds the same links."
)
_TOKENS = {
    "dashboard": "ClaimcheckDashboardZ",
    "legend": "ClaimcheckLegendZ",
    "graph": "ClaimcheckGraphZ",
    "listing": "ClaimcheckListingZ",
}


class GeneratedPages:
    """Names, files and contents of the generated pages of one build."""

    def __init__(
        self, options: Any, config: MkDocsConfig, files: Files, index: SiteIndex,
        renderer: Renderer,
    ) -> None:
        self.options, self.config, self.files = options, config, files
        self.index, self.renderer = index, renderer
        legend = options.legend_page
        self.legend = legend or DEFAULT_LEGEND
        self.legend_authored = bool(legend) and files.get_file_from_path(legend) is not None
        self.graph_dir = PurePosixPath(options.graph_page).with_suffix("").as_posix()
        self.kinds: dict[str, str] = {}
        self.graphs: dict[str, str | None] = {}
        self.graph_note = ""
        self.citers: dict[str, list[Citer]] = {}
        self.crowded: set[str] = set()
        self.listings: dict[str, list[Page]] = {}
        self.titles: dict[str, str] = {}
        self.summaries: dict[str, str] = {}
        self._urls: dict[tuple[str, str], str] = {}

    def reserved_names(self) -> set[str]:
        """Page names the plugin generates (a wiki file with one of them is an error)."""
        names = {self.options.dashboard_page, self.options.graph_page}
        if not self.legend_authored:
            names.add(self.legend)
        return names

    def reserved_folders(self) -> set[str]:
        """Folders whose every name the plugin owns."""
        return {ASSETS_DIR, self.graph_dir}

    def add_files(self, sources: dict[str, PageSource]) -> None:
        """Add the generated pages and curves; lay out the claim graphs."""
        self.summaries = {src: html.unescape(str(source.meta.get("description", "")))
                          for src, source in sources.items()}
        self.titles = {src: html.unescape(str(source.meta.get("title") or "")) or _heading(source)
                       or _stem_title(src) for src, source in sources.items()}
        self._add("dashboard", self.options.dashboard_page, "Claims dashboard")
        if not self.legend_authored:
            self._add("legend", self.legend, "Verdict legend")
        self._add("graph", self.options.graph_page, "Claim graph")
        for arxiv in self._papers():
            self._add("graph", self._graph_src(arxiv), f"Claim graph of {paper_label(arxiv)}",
                      InclusionLevel.NOT_IN_NAV)
        self._add_listings(sources)
        self._add_curves()
        self.citers = self._citers(sources)
        self._lay_out_graphs()

    def _add(self, kind: str, src: str, title: str,
             inclusion: InclusionLevel = InclusionLevel.UNDEFINED) -> None:
        # The theme prints a page's title unescaped (in <title> and the nav): give it as text
        # already escaped, and the heading as Markdown that renders it literally.
        content = (f"---\ntitle: {json.dumps(html.escape(title))}\n---\n"
                   f"# {markdown_text(title)}\n\n{_TOKENS[kind]}\n")
        self.files.append(File.generated(self.config, src, content=content, inclusion=inclusion))
        self.kinds[src] = kind

    def _add_listings(self, sources: dict[str, PageSource]) -> None:
        pages = [file for file in self.files.documentation_pages() if file.src_uri in sources]
        self.crowded = crowded_folders(pages, self.options.nav_section_limit)
        existing = {file.src_uri for file in pages}
        for folder in sorted(self.crowded):
            own = index_src(folder, existing)
            if own is None:
                title = PurePosixPath(folder).name.replace("-", " ").replace("_", " ")
                self._add("listing", f"{folder}/{INDEX_NAMES[0]}", title.capitalize())
            else:
                self.kinds[own] = "listing"

    def _add_curves(self) -> None:
        for view in self.index.claims():
            if view.curve_svg is None:
                continue
            try:  # committed content: never through a link, never past the limit
                data = read_bytes(view.curve_svg.parent, view.curve_svg.name, MAX_SVG_BYTES)
                cleaned = clean_svg(data.decode("utf-8"))
            except (OSError, UnicodeDecodeError, UnsafeEntry):
                cleaned = None
            if cleaned is None:
                log.info("claimcheck: the curve of %s is not a safe SVG; not published",
                            view.global_id)
                continue
            self.files.append(File.generated(self.config, curve_src(view.global_id),
                                             content=cleaned))

    def _papers(self) -> list[str]:
        return list(dict.fromkeys(view.arxiv for view in self.index.claims()))

    def _graph_src(self, arxiv: str) -> str:
        return f"{self.graph_dir}/{result_stem(arxiv + '/x')[:-3]}.md"

    def _citers(self, sources: dict[str, PageSource]) -> dict[str, list[Citer]]:
        """Pages citing each claim, and (keyed by arXiv id) pages citing each paper."""
        found: dict[str, dict[str, Citer]] = {}
        for src, source in sources.items():
            citer = Citer(src, self.titles[src])
            for _, citation in source.citations:
                for claim in self.index.stated(citation):
                    found.setdefault(claim.global_id, {})[src] = citer
                    found.setdefault(claim.arxiv, {})[src] = citer
        return {key: list(group.values()) for key, group in found.items()}

    def _url(self, src: str, source: str) -> str:
        key = (src, source)
        if key not in self._urls:
            target = self.files.get_file_from_path(src)
            here = self.files.get_file_from_path(source)
            self._urls[key] = (
                "" if target is None or here is None else target.url_relative_to(here)
            )
        return self._urls[key]

    def _lay_out_graphs(self) -> None:
        """One ``dot`` run for the overview and every paper's graph."""
        overview = self.options.graph_page
        rows = papers_summary(self.index.claims(), {})
        sources = {overview: overview_dot(
            [(row.arxiv, row.title, row.counts, row.kinds or {}) for row in rows], self.citers,
            lambda arxiv: self._url(self._graph_src(arxiv), overview),
            lambda src: self._url(src, overview),
        )}
        for row in rows:
            here = self._graph_src(row.arxiv)
            paper = self.index.paper_src(row.arxiv)
            sources[here] = paper_dot(
                row.arxiv, row.title, self.index.claims_of(row.arxiv), self.citers,
                self._url(paper, here) if paper else None,
                functools.partial(self._claim_href, here=here),
                functools.partial(self._url, source=here),
            )
        self.graphs = dict.fromkeys(sources)
        if not dot_available():
            self.graph_note = NO_DOT
            log.info("claimcheck: Graphviz's dot is not installed; claim graphs are tables only")
            return
        try:
            drawings = render_svgs(list(sources.values()))
        except (OSError, subprocess.SubprocessError) as error:
            self.graph_note = f"Graphviz's dot failed, so the graph is not drawn: {error}"
            log.info("claimcheck: %s", self.graph_note)
            return
        self.graphs = dict(zip(sources, drawings, strict=True))

    def _claim_href(self, claim: ClaimView, here: str) -> str:
        return self._claim_url(claim.arxiv, claim.anchor, here)

    def _claim_url(self, arxiv: str, anchor: str, here: str) -> str:
        paper = self.index.paper_src(arxiv)
        return f"{self._url(paper, here)}#{anchor}" if paper else paper_link(arxiv)

    def fill(self, content: str, page: Page) -> str:
        """Put a generated page's content in place of its token."""
        src = page.file.src_uri
        kind = self.kinds.get(src)
        if kind is None:
            return content
        body = {
            "dashboard": self._dashboard, "legend": self._legend,
            "graph": self._graph, "listing": self._listing,
        }[kind](src)
        token = f"<p>{_TOKENS[kind]}</p>"
        if token in content:
            return content.replace(token, body, 1)
        return content + "\n" + body

    def _legend(self, src: str) -> str:
        power = self._url(self.options.power_page, src) if self.options.power_page else None
        return self.renderer.legend(power_href=power or None)

    def _dashboard(self, src: str) -> str:
        papers = {arxiv: self._url(paper, src) for arxiv in self._papers()
                  if (paper := self.index.paper_src(arxiv))}
        legend = self._url(self.legend, src) or None
        power = self._url(self.options.power_page, src) if self.options.power_page else None
        return self.renderer.dashboard(
            self.index.claims(), papers, lambda view: f"{papers.get(view.arxiv, '')}#{view.anchor}",
            legend, self._url(self.options.graph_page, src) or None, power or None,
            self.index.catalogue,
        )

    def _graph(self, src: str) -> str:
        svg = self.graphs.get(src)
        drawing = Markup(svg) if svg else None
        if src == self.options.graph_page:
            rows = papers_summary(self.index.claims(), {})
            links = {row.arxiv: self._url(self._graph_src(row.arxiv), src) for row in rows}
            return self.renderer.graph_overview(rows, links, self.citers, drawing,
                                                self.graph_note)
        arxiv = next(a for a in self._papers() if self._graph_src(a) == src)
        paper = self.index.paper_src(arxiv)
        return self.renderer.paper_graph(
            self.index.claims_of(arxiv), self.citers,
            lambda claim: self._claim_url(claim.arxiv, claim.anchor, src),
            lambda page: self._url(page, src), drawing, self.graph_note,
            self._url(paper, src) if paper else None, self._url(self.options.graph_page, src),
        )

    def _listing(self, src: str) -> str:
        here = self.files.get_file_from_path(src)
        if here is None:
            return ""
        entries = [
            Listing(self.titles.get(page.file.src_uri, _stem_title(page.file.src_uri)),
                    page.file.url_relative_to(here), self.summaries.get(page.file.src_uri, ""))
            for page in self.listings.get(src, [])
        ]
        return self.renderer.listing(entries) if entries else ""


def _heading(source: PageSource) -> str:
    """The text of a page's first level-one heading, as a title for lists and graphs."""
    found = _H1.search(source.text)
    return found[1].strip() if found else ""


def markdown_text(text: str) -> str:
    """``text`` as Markdown that renders it literally: every character but letters, digits and
    spaces as a numeric character reference, so an identifier (a DOI may hold ``<``, ``[``,
    ``*``) or a folder name never becomes markup, a link or emphasis."""
    return "".join(ch if ch.isalnum() or ch == " " else f"&#{ord(ch)};" for ch in text)


def _stem_title(src: str) -> str:
    stem = PurePosixPath(src).stem
    return stem.replace("-", " ").replace("_", " ").capitalize()
