"""The claimcheck MkDocs plugin: options and event wiring; the work lives in the sibling modules.

The order of events, and why:

``on_pre_build``
    Refuse a linked folder that would lead MkDocs's own listing of the wiki out of it or round
    a loop (:func:`claimcheck.site.guard.linked_folder_problems`): that listing comes before
    ``on_files`` and follows links.
``on_files``
    Load the wiki once (:func:`claimcheck.site.siteindex.build_index`), refuse files that leave
    the wiki, are not regular, could run script, or take a generated page's name
    (:mod:`claimcheck.site.guard`: a build error listing every problem), and hand MkDocs each
    page's text from memory (:mod:`claimcheck.site.sources`), so MkDocs never opens a wiki file
    or parses front matter itself. Add the plugin's assets and generated pages.
``on_nav``
    Escape section titles; collapse crowded folders (:mod:`claimcheck.site.nav`).
``on_page_markdown``
    Give the page its escaped metadata; swap citations (found when the wiki was loaded) for
    inert placeholders. (Malformed citations were reported in ``on_files``: warnings, so
    ``--strict`` fails on them, or build errors with ``strict_verdicts``.)
``on_page_content`` (late)
    Sanitise the author's HTML (:mod:`claimcheck.site.sanitize`), then put the plugin's own
    markup in place of the placeholders: badges, claims tables, generated pages. Titles and
    table-of-contents entries become escaped text.
``on_post_template``
    ``404.html`` with relative URLs instead of root-absolute ones.
``on_post_page``
    Add the page's hover cards (after the search index has read the page, so neither their
    text nor their markup reaches it), the scripts the page needs; make sure no absolute path
    of this machine is left.

Options (``mkdocs.yml``)::

    plugins:
      - claimcheck:
          results: .claimcheck        # must be [tool.claimcheck] results (the store CI
                                      # checks); another folder is a build error
          repo_url: https://github.com/o/r   # check links: {repo_url}/blob/{branch}/{path}#L{line}
          branch: main
          strict_verdicts: false      # true: errored and stale claims are warnings
          dashboard_page: claims-dashboard.md
          legend_page: null           # default: generated at claims-legend.md; or a wiki page
          power_page: null            # the wiki's page on power: the legend, the dashboard
                                      # and each claim's evidence link to it
          graph_page: claim-graph.md  # the overview; per-paper graphs under claim-graph/
          nav_section_limit: 30       # folders with more pages collapse into their index
          templates: null             # folder of templates overriding the built-in ones
          unpublished: [shared]       # repository folders the site does not publish: a path
                                      # into one reads "(unpublished)" on every page
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from claimcheck.cards.wikifiles import leaves_project
from claimcheck.core.config import load_config
from claimcheck.core.errors import ClaimcheckError
from claimcheck.site import assets
from claimcheck.site.generated import GeneratedPages
from claimcheck.site.guard import Problem, check_files, linked_folder_problems, site_dir_problem
from claimcheck.site.nav import clean_titles, collapse
from claimcheck.site.pages import PageState, legend_markdown, paper_page_markdown
from claimcheck.site.pagework import PageWork
from claimcheck.site.paths import hide_unpublished, unpublished_pattern
from claimcheck.site.render import Renderer
from claimcheck.site.sanitize import (
    RENAMED,
    clean_fragment,
    clean_page_html,
    renamed_ids,
    unsafe_markup,
)
from claimcheck.site.siteindex import SiteIndex, build_index
from claimcheck.site.sources import PageSource, page_sources

log = logging.getLogger("mkdocs.plugins.claimcheck")


class ClaimcheckConfig(base.Config):  # type: ignore[no-untyped-call]
    """Options of the claimcheck plugin."""

    results = c.Optional(c.Type(str))
    repo_url = c.Optional(c.Type(str))
    branch = c.Type(str, default="main")
    strict_verdicts = c.Type(bool, default=False)
    dashboard_page = c.Type(str, default="claims-dashboard.md")
    legend_page = c.Optional(c.Type(str))
    power_page = c.Optional(c.Type(str))
    graph_page = c.Type(str, default="claim-graph.md")
    nav_section_limit = c.Type(int, default=30)
    templates = c.Optional(c.Dir(exists=True))
    unpublished = c.ListOfItems(c.Type(str), default=[])


class ClaimcheckPlugin(BasePlugin[ClaimcheckConfig]):  # type: ignore[no-untyped-call]
    """Badges on citations, claims tables, a dashboard, a legend and a claim graph, safely."""

    def __init__(self) -> None:
        self.renderer = Renderer()
        self.index: SiteIndex | None = None
        self.work: PageWork | None = None
        self.generated: GeneratedPages | None = None
        self.sources: dict[str, PageSource] = {}
        self.pages: dict[str, PageState] = {}
        self.root = Path.cwd()
        self.unpublished: re.Pattern[str] | None = None

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        """Find the project, set up the renderer and register the stylesheet."""
        config_file = Path(config.config_file_path or "mkdocs.yml").resolve()
        try:
            self.project = load_config(config_file.parent)
        except ClaimcheckError as error:
            raise base.ValidationError(f"claimcheck: {error.one_line()}") from None
        self.root = self.project.root
        templates = self.config.templates
        self.renderer = Renderer(Path(templates) if templates else None)
        self.unpublished = unpublished_pattern(list(self.config.unpublished))
        if assets.CSS_PATH not in config.extra_css:
            config.extra_css.append(assets.CSS_PATH)
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        """Stop before MkDocs lists the wiki if a linked folder would lead the listing astray, and
        before it empties the site folder if that is reached through a link."""
        problems = linked_folder_problems(Path(config.docs_dir))
        config_dir = Path(os.path.abspath(config.config_file_path or "mkdocs.yml")).parent
        site = site_dir_problem(Path(os.path.abspath(config.site_dir)), config_dir)
        problems += [site] if site is not None else []
        if problems:
            lines = "\n".join(f"  {problem.line()}" for problem in problems)
            raise PluginError(f"claimcheck: the wiki cannot be published as it is:\n{lines}")

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        """Check and read the wiki; add assets and generated pages (see the module docstring)."""
        # As written, before resolving, so that a committed symbolic link is seen for what it is.
        results = Path(self.config.results or str(self.project.raw.get("results", ".claimcheck")))
        if not results.is_absolute():
            results = self.root / results
        if os.path.normpath(results) != os.path.normpath(self.project.results):
            shown = os.path.relpath(os.path.normpath(results), self.root)
            raise PluginError(
                f"claimcheck: results: {shown} is not the results store CI checks "
                f"([tool.claimcheck] results: {os.path.relpath(self.project.results, self.root)}"
                "); the site publishes only that store (docs/reliability.md)")
        for folder in (Path(config.docs_dir), results):
            if leaves_project(folder, self.root):
                shown = os.path.relpath(os.path.abspath(folder), self.root)
                raise PluginError(f"claimcheck: {shown} is a symbolic "
                                  "link that leaves the project; the site is not built from it")
        try:
            index = build_index(self.project, Path(config.docs_dir), results)
        except ClaimcheckError as error:
            raise PluginError(f"claimcheck: {error.one_line()}") from None
        generated = GeneratedPages(self.config, config, files, index, self.renderer)
        problems = check_files(files, config, generated.reserved_names(),
                               generated.reserved_folders())
        self.sources, unreadable = page_sources(
            files, config, index, {problem.src for problem in problems}
        )
        problems += unreadable
        problems += self._malformed_citations()
        if problems:
            lines = "\n".join(f"  {problem.line()}" for problem in problems)
            raise PluginError(f"claimcheck: the wiki cannot be published as it is:\n{lines}")
        for src, source in self.sources.items():
            file = files.get_file_from_path(src)
            if file is not None:
                file.content_string = source.for_mkdocs()
        self._report_problems(index)
        for asset in assets.asset_files(config):
            files.append(asset)
        generated.add_files(self.sources)
        self.index, self.generated, self.pages = index, generated, {}
        self.work = PageWork(index, files, self.renderer, self.config, config, self.root)
        return files

    def _malformed_citations(self) -> list[Problem]:
        """Malformed citations: warnings (``--strict`` fails), errors with ``strict_verdicts``."""
        found = [
            Problem(f"{problem.path}:{problem.line}:{problem.col}",
                    f"malformed citation: {problem.message}"
                    + (f" ({problem.hint})" if problem.hint else ""))
            for source in self.sources.values() for problem in source.problems
        ]
        if self.config.strict_verdicts:
            return found
        for problem in found:
            log.warning("claimcheck: %s", problem.line())
        return []

    def _report_problems(self, index: SiteIndex) -> None:
        """Cards that did not load (info); errored or stale claims (warnings when strict)."""
        for error in index.wiki.load_errors:
            log.info("claimcheck: card not loaded (lint reports it): %s", error.one_line())
        report = log.warning if self.config.strict_verdicts else log.debug
        for claim in index.claims():
            if claim.needs_attention:
                what = "errored" if claim.errored else "stale"
                report("claimcheck: claim %s (%s) is %s", claim.global_id, claim.card_path, what)

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        """Escape section titles; collapse crowded folders into their index pages."""
        clean_titles(nav.items)
        if self.generated is not None:
            self.generated.listings = collapse(nav, self.generated.crowded)
        return nav

    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        """Metadata and citation placeholders (see the module docstring)."""
        if self.work is None:
            return markdown
        source = self.sources.get(page.file.src_uri)
        if source is not None:
            page.meta = dict(source.meta)
        state = self.work.new_state(page)
        self.pages[page.file.src_uri] = state
        if source is not None:
            markdown = state.replace_citations(markdown, source.citations_in(markdown))
            state.card = source.card
            self.work.describe_citations(state, page)
            if state.card is not None and state.card.card.kind == "paper":
                markdown = paper_page_markdown(markdown)
            markdown = legend_markdown(markdown)
        return markdown

    @event_priority(-50)
    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        """Sanitise, then put the plugin's markup in place (see the module docstring)."""
        if self.work is None or self.generated is None:
            return html
        removed = unsafe_markup(html)
        if removed:
            log.info("claimcheck: %s: removed unsafe HTML: %s", page.file.src_uri,
                        ", ".join(removed[:5]))
        html = clean_page_html(html)
        renamed = renamed_ids(html)
        state = self.pages.get(page.file.src_uri)
        if state is not None:
            html = self.work.fill(html, state, page)
        html = self.generated.fill(html, page)
        page.title = clean_fragment(page.title or "")
        _clean_toc(page.toc, renamed)
        return hide_unpublished(html, self.unpublished)

    def on_post_template(
        self, output_content: str, /, *, template_name: str, config: MkDocsConfig
    ) -> str:
        """``404.html`` without root-absolute URLs (it lies at the root of the site)."""
        if template_name != "404.html":
            return output_content
        return hide_unpublished(relative_to_root(output_content), self.unpublished)

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        """Hover cards, the scripts the page needs; no absolute path of this machine."""
        state = self.pages.get(page.file.src_uri)
        if state is not None and self.work is not None:
            output = self.work.add_cards(output, state)
        output = assets.add_page_scripts(output, page.url)
        return hide_unpublished(_without_root(output, str(self.root)), self.unpublished)


_ROOT_ABSOLUTE = re.compile(r'(?P<lead>(?:href|src)="|"(?:base|search)": ")/(?!/)(?P<rest>[^"]*)"')


def relative_to_root(output: str) -> str:
    """A page at the site's root with its root-absolute URLs (``/assets/...``) made relative.

    MkDocs writes ``404.html`` with URLs from ``/`` when ``site_url`` is not set; they break
    under ``file://`` and on a site served from a sub-path.
    """
    return _ROOT_ABSOLUTE.sub(lambda match: f'{match["lead"]}{match["rest"] or "."}"', output)


def _clean_toc(items: object, renamed: set[str]) -> None:
    for item in items or []:  # type: ignore[attr-defined]
        item.title = clean_fragment(item.title)
        if item.id in renamed:
            item.id = RENAMED + item.id
        _clean_toc(item.children, renamed)


def _without_root(output: str, root: str) -> str:
    """Drop the project root from any path left in ``output`` (results are scrubbed earlier)."""
    if root in ("", "/") or root not in output:
        return output
    output = re.sub(re.escape(root.rstrip("/")) + r"/?", "", output)
    return output
