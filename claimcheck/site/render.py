"""Pure rendering: claim views in, HTML fragments out, through Jinja2 templates with autoescape.

Nothing here knows MkDocs. The plugin and ``claimcheck report`` both call :class:`Renderer`;
links are handed in as functions (``claim_href``, ``source_href``, ``curve_href``) because only
the caller knows where a page lives. Templates live in ``claimcheck/site/templates/`` and can be
overridden one by one from a folder given as ``template_dir``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from claimcheck.cards.basis import BASIS_LEGEND, BASIS_ORDER
from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.identifiers import PaperId, paper_label
from claimcheck.site.about import KINDS
from claimcheck.site.citeview import CitationView, HoverCard
from claimcheck.site.inline import inline_markdown
from claimcheck.site.legendview import badge_samples
from claimcheck.site.paperview import (
    PageNotes,
    first_of_kind,
    glance_anchor,
    glance_groups,
    short_statement,
)
from claimcheck.site.powerfigures import power_figures
from claimcheck.site.powerview import CatalogueEntry
from claimcheck.site.views import ClaimView, KindTally, SourceLink, Tally, kind_tallies, tally

ClaimHref = Callable[[ClaimView], str]
_SEPARATOR = "\x00"
SourceHref = Callable[[SourceLink | None], str | None]
CurveHref = Callable[[ClaimView], str | None]


@dataclass(frozen=True)
class PaperRow:
    """One line of the dashboard's per-paper table."""

    arxiv: str
    title: str
    href: str | None
    counts: Tally
    kinds: Mapping[str, Tally] | None = None
    """Counts per evidence kind (:func:`kinds_of`), which the site shows instead of ``counts``."""

    @property
    def label(self) -> str:
        """The paper's key in citation form (``arxiv:2101.12491``, ``doi:10.1038/...``)."""
        return paper_label(self.arxiv)


def _strip_link(verdict: str, kind: str) -> str:
    return glance_anchor(verdict, kind)


def _with_uncovered(kinds: list[KindTally], uncovered: int) -> list[KindTally]:
    """``kinds`` with citations that cover no claim counted as unverified about the paper."""
    if not uncovered:
        return kinds
    rows = {row.kind: row for row in kinds}
    paper = rows.get("paper", KindTally("paper", "about the paper", Tally()))
    counts = paper.counts
    rows["paper"] = KindTally("paper", paper.words, Tally(
        counts.verified, counts.contradicted, counts.unverified + uncovered, counts.stale))
    return [rows["paper"], *[row for row in kinds if row.kind != "paper"]]


def paper_links(card: PaperCard) -> list[tuple[str, str]]:
    """``(label, url)`` of each identifier of the paper that has a landing page, and its URL."""
    links = []
    for scheme in ("arxiv", "doi", "openreview"):
        value = getattr(card, scheme)
        url = PaperId(scheme, str(value)).link if value else None
        if url:
            links.append((PaperId(scheme, str(value)).label, url))
    if card.url:
        links.append(("the paper", card.url))
    return links


def stylesheet() -> str:
    """The site's CSS (badges, hover cards, tables, dashboard)."""
    return resources.files("claimcheck.site").joinpath("assets/claimcheck.css").read_text("utf-8")


def papers_summary(
    claims: Sequence[ClaimView], paper_hrefs: Mapping[str, str]
) -> list[PaperRow]:
    """Counts per paper, in the order papers first appear among ``claims``."""
    grouped: dict[str, list[ClaimView]] = {}
    for claim in claims:
        grouped.setdefault(claim.arxiv, []).append(claim)
    return [
        PaperRow(arxiv, group[0].paper_title, paper_hrefs.get(arxiv), tally(group),
                 kinds_of(group))
        for arxiv, group in grouped.items()
    ]


def kinds_of(claims: Iterable[ClaimView]) -> dict[str, Tally]:
    """Counts per verdict for each evidence kind present (``paper``, ``code``, ``wiki``)."""
    return {row.kind: row.counts for row in kind_tallies(claims)}


def kind_columns(claims: Iterable[ClaimView]) -> list[tuple[str, str]]:
    """``(kind, words)`` of the evidence kinds present among ``claims``: a table's columns."""
    return [(row.kind, row.words) for row in kind_tallies(claims)]


NO_TIER = "no check"
"""The tier row of claims that have no check (textual, or unverified with a reason)."""


def tiers_summary(claims: Iterable[ClaimView]) -> list[tuple[str, Tally]]:
    """Counts per tier, cheapest tier first, claims without a check ("no check") last."""
    return [(name, tally(group)) for name, group in _tiers(claims)]


def tier_kinds(claims: Iterable[ClaimView]) -> list[tuple[str, dict[str, Tally]]]:
    """Counts per tier and evidence kind, cheapest tier first."""
    return [(name, kinds_of(group)) for name, group in _tiers(claims)]


def _tiers(claims: Iterable[ClaimView]) -> list[tuple[str, list[ClaimView]]]:
    order = {"static": 0, "unit": 1, "bench": 2, "train": 3}
    grouped: dict[str, list[ClaimView]] = {}
    for claim in claims:
        grouped.setdefault(claim.tier if claim.tier != "—" else NO_TIER, []).append(claim)
    names = sorted(grouped, key=lambda name: (order.get(name, len(order)), name))
    return [(name, grouped[name]) for name in names]


def breakable(text: str) -> Markup:
    """``text`` escaped, with a line-break opportunity after each ``.``, ``:`` and ``/``.

    Dotted check names and paths then wrap between their parts, never inside a word.
    """
    return Markup(re.sub(r"([./:])", r"\1<wbr>", str(escape(text))))


def id_breakable(text: str) -> Markup:
    """A claim id escaped, with a line-break opportunity after each ``-`` and ``/``.

    ``tab1-three-iterations-no-reconstruction`` then wraps between its words, so a claims table
    fits its column on a laptop without breaking a word of the id.
    """
    return Markup(re.sub(r"([-/])", r"\1<wbr>", str(escape(text))))


def basis_meanings() -> list[tuple[str, str]]:
    """Each basis and the sentence that says what a verdict on it is evidence of."""
    return [(basis.value, BASIS_LEGEND[basis]) for basis in BASIS_ORDER]


def bases_summary(claims: Iterable[ClaimView]) -> list[tuple[str, Tally]]:
    """Counts per basis, in the legend's order, claims whose basis is not stated last."""
    grouped: dict[str, list[ClaimView]] = {}
    for claim in claims:
        grouped.setdefault(claim.about.basis or "not stated", []).append(claim)
    order = [basis.value for basis in BASIS_ORDER]
    names = sorted(grouped, key=lambda name: order.index(name) if name in order else len(order))
    return [(name, tally(grouped[name])) for name in names]


class Renderer:
    """Renders the site's fragments from claim views."""

    def __init__(self, template_dir: Path | None = None) -> None:
        loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader("claimcheck.site", "templates")]
        if template_dir is not None:
            loaders.insert(0, jinja2.FileSystemLoader(str(template_dir)))
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            auto_reload=False,
        )
        self.env.filters["breakable"] = breakable
        self.env.filters["id_breakable"] = id_breakable
        self.env.filters["inline"] = inline_markdown
        self.env.filters["short_statement"] = short_statement
        self._batch = self.env.from_string(
            '{%- from "citation.html" import citation -%}'
            "{%- for cite in cites %}{{ citation(cite) }}" + _SEPARATOR + "{% endfor -%}"
        )

    def _render(self, name: str, **context: Any) -> str:
        return self.env.get_template(name).render(**context).strip()

    def citation(self, cite: CitationView) -> str:
        """An inline citation: link and badge (one line, no block tags); its card is apart."""
        return self.citations([cite])[0]

    def citations(self, cites: Sequence[CitationView]) -> list[str]:
        """Every citation of a page, rendered in one template call (a page may hold hundreds)."""
        if not cites:
            return []
        text = self._batch.render(cites=cites)
        return [piece.strip() for piece in text.split(_SEPARATOR)[: len(cites)]]

    def hover_cards(self, cards: Sequence[HoverCard]) -> str:
        """A page's hover cards, each once, in a block hidden from view and from search."""
        return self._render("hover_cards.html", cards=cards)

    def claims_table(
        self,
        claims: Sequence[ClaimView],
        source_href: SourceHref,
        curve_href: CurveHref,
        anchor_prefix: str = "",
        power_href: str | None = None,
        back: bool = False,
    ) -> str:
        """The full evidence of each claim of a paper, one collapsed block each, with the
        provenance notes that several claims share listed once.

        ``anchor_prefix`` keeps ids unique when several papers share one page (the report);
        ``back`` links each block to its line in :meth:`paper_glance`.
        """
        return self._render(
            "claims_table.html", claims=claims, source_href=source_href, curve_href=curve_href,
            prefix=anchor_prefix, notes=PageNotes.of(claims), power_href=power_href, back=back,
        )

    def paper_glance(self, claims: Sequence[ClaimView], anchor_prefix: str = "") -> str:
        """A paper page's claims at a glance: filters and one line per claim, by verdict."""
        groups = glance_groups(claims)
        kinds = [("all", "every kind")] + [(row.kind, row.words) for row in kind_tallies(claims)]
        return self._render("paper_glance.html", groups=groups, firsts=first_of_kind(groups),
                            kinds=kinds if len(kinds) > 2 else kinds[:1], prefix=anchor_prefix)

    def strip(self, claims: Sequence[ClaimView], uncovered: int) -> str:
        """A concept page's verdict counts among its citations, per evidence kind."""
        return self._render("strip.html", kinds=_with_uncovered(kind_tallies(claims), uncovered),
                            uncovered=uncovered, links=None, title="Claims cited here:",
                            label="Verdicts of the claims cited on this page")

    def paper_header(self, card: PaperCard, claims: Sequence[ClaimView]) -> str:
        """A paper page's header: authors, year, venue, links, its claims' verdict strip (each
        count a link into the list of claims), and that list (:meth:`paper_glance`)."""
        header = self._render(
            "paper_header.html", authors=card.authors, year=card.year, venue=card.venue,
            paper_links=paper_links(card), code=sorted(card.code, key=lambda c: not c.official),
        )
        return header + self.paper_strip(claims)

    def paper_strip(self, claims: Sequence[ClaimView]) -> str:
        """A paper's verdict counts per evidence kind, each a link into :meth:`paper_glance`."""
        return self._render(
            "strip.html", kinds=kind_tallies(claims), uncovered=0, links=_strip_link,
            title="Claims of this paper, by what their verdict is evidence of:",
            label="Verdicts of this paper's claims")

    def page_meta(self, status: str, updated_at: str | None, tags: Sequence[str]) -> str:
        """The small header with a card's editorial status, date and tags."""
        return self._render("page_meta.html", status=status, updated_at=updated_at, tags=tags)

    def legend(self, example: HoverCard | None = None, power_href: str | None = None) -> str:
        """What each verdict means, each badge as it appears, a worked hover card, and a link
        to the page on power (where the site has one)."""
        return self._render("legend.html", basis_meanings=basis_meanings(),
                            samples=badge_samples(), example=example, power_href=power_href)

    def dashboard(
        self,
        claims: Sequence[ClaimView],
        paper_hrefs: Mapping[str, str],
        claim_href: ClaimHref,
        legend_href: str | None,
        graph_href: str | None = None,
        power_href: str | None = None,
        catalogue: Sequence[CatalogueEntry] = (),
    ) -> str:
        """Every claim; counts per evidence kind and verdict, per paper, tier and basis;
        contradictions, stale results and the power figures (:func:`power_figures`)."""
        return self._render(
            "dashboard.html",
            graph_href=graph_href,
            power_href=power_href,
            claims=claims,
            totals=kind_tallies(claims),
            total=len(claims),
            columns=kind_columns(claims),
            papers=papers_summary(claims, paper_hrefs),
            tiers=tier_kinds(claims),
            bases=bases_summary(claims),
            basis_meanings=basis_meanings(),
            contradicted=[claim for claim in claims if claim.verdict == "contradicted"],
            stale=[claim for claim in claims if claim.stale],
            power=power_figures(claims, catalogue),
            claim_href=claim_href,
            legend_href=legend_href,
            samples=badge_samples(),
            example=None,
        )

    def listing(self, entries: Sequence[Any]) -> str:
        """The pages of a folder whose navigation entry is its index page."""
        return self._render("listing.html", entries=entries)

    def graph_overview(
        self,
        papers: Sequence[PaperRow],
        links: Mapping[str, str],
        citers: Mapping[str, Sequence[Any]],
        drawing: Markup | None,
        note: str,
    ) -> str:
        """The overview graph (sanitised SVG) and the table of papers."""
        columns = list(dict.fromkeys(
            (kind, words) for kind, words, _ in KINDS
            for paper in papers if kind in (paper.kinds or {})))
        return self._render("graph_overview.html", papers=papers, links=links, citers=citers,
                            drawing=drawing, note=note, columns=columns)

    def paper_graph(
        self,
        claims: Sequence[ClaimView],
        citers: Mapping[str, Sequence[Any]],
        claim_href: ClaimHref,
        page_href: Callable[[str], str],
        drawing: Markup | None,
        note: str,
        paper_href: str | None,
        overview_href: str,
    ) -> str:
        """One paper's graph (sanitised SVG) and the table of its claims and citing pages."""
        return self._render(
            "paper_graph.html", claims=claims, citers=citers, claim_href=claim_href,
            page_href=page_href, drawing=drawing, note=note, paper_href=paper_href,
            overview_href=overview_href,
        )

    def report(
        self,
        title: str,
        wiki: str,
        generated: str,
        claims: Sequence[ClaimView],
        source_href: SourceHref,
    ) -> str:
        """A self-contained HTML document: dashboard and every paper's claims table."""
        by_paper = papers_summary(claims, {})
        prefixes = {row.arxiv: f"paper-{index}-" for index, row in enumerate(by_paper, 1)}
        sections = [
            {
                "title": row.title,
                "arxiv": row.arxiv,
                "label": row.label,
                "table": Markup(
                    self.claims_table(
                        [claim for claim in claims if claim.arxiv == row.arxiv],
                        source_href,
                        lambda claim: None,
                        prefixes[row.arxiv],
                    )
                ),
            }
            for row in by_paper
        ]
        dashboard = self.dashboard(
            claims,
            {arxiv: f"#{prefix.rstrip('-')}" for arxiv, prefix in prefixes.items()},
            lambda claim: f"#{prefixes[claim.arxiv]}{claim.anchor}",
            legend_href=None,
        )
        return self._render(
            "report.html",
            title=title,
            wiki=wiki,
            generated=generated,
            css=Markup(stylesheet()),
            dashboard=Markup(dashboard),
            papers=sections,
        ) + "\n"
