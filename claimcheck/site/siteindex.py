"""Join the wiki with the results store: one :class:`ClaimView` per claim, findable by page.

Used by the MkDocs plugin and by ``claimcheck report``. With no results folder at all, nothing
is read from the store and every claim with a check is "unverified: never run".
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, TypeVar

from claimcheck.cards.citations import Citation
from claimcheck.cards.loader import LoadedCard
from claimcheck.cards.plainpages import PlainPage
from claimcheck.cards.wiki import Wiki, load_wiki
from claimcheck.core.config import ProjectConfig
from claimcheck.site.about import needs_quotes
from claimcheck.site.powerview import CatalogueEntry, power_entries
from claimcheck.site.views import ClaimView, SourceLink, build_view, format_value
from claimcheck.store.conflicts import refused_identities
from claimcheck.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from claimcheck.store.status import StoredStatus

CURVE_ARTIFACT = "curve_svg"
Page = TypeVar("Page", LoadedCard, PlainPage)


@dataclass
class SiteIndex:
    """Claim views of a wiki, with the docs-relative source path of every card."""

    wiki: Wiki
    docs_dir: Path
    views: dict[str, ClaimView] = field(default_factory=dict)
    catalogue: list[CatalogueEntry] = field(default_factory=list)
    """The project's wrong variants (empty without a catalogue), for the dashboard's families."""
    _by_src: dict[str, LoadedCard] | None = field(default=None, repr=False)
    _paper_srcs: dict[str, str] | None = field(default=None, repr=False)
    _pages_by_src: dict[str, PlainPage] | None = field(default=None, repr=False)

    def card_src(self, card: LoadedCard | PlainPage) -> str | None:
        """The page's path relative to the docs folder (as MkDocs names its files)."""
        try:
            return PurePosixPath(card.path.absolute().relative_to(self.docs_dir)).as_posix()
        except ValueError:
            return None

    def cards_by_src(self) -> dict[str, LoadedCard]:
        """Every loaded card by its docs-relative path (computed once)."""
        if self._by_src is None:
            self._by_src = self._keyed(self.wiki.cards)
        return self._by_src

    def pages_by_src(self) -> dict[str, PlainPage]:
        """Every plain page (no front matter) by its docs-relative path (computed once)."""
        if self._pages_by_src is None:
            self._pages_by_src = self._keyed(self.wiki.pages)
        return self._pages_by_src

    def _keyed(self, items: Iterable[Page]) -> dict[str, Page]:
        keyed: dict[str, Page] = {}
        for item in items:
            src = self.card_src(item)
            if src is not None:
                keyed[src] = item
        return keyed

    def paper_src(self, arxiv: str) -> str | None:
        """The docs-relative path of the paper card of ``arxiv``, if there is one."""
        if self._paper_srcs is None:
            self._paper_srcs = {}
            for paper_id, card in self.wiki.papers().items():
                src = self.card_src(card)
                if src is not None:
                    self._paper_srcs[paper_id] = src
        return self._paper_srcs.get(arxiv)

    def claims(self) -> list[ClaimView]:
        """Every claim view, in wiki order."""
        return list(self.views.values())

    def claims_of(self, arxiv: str) -> list[ClaimView]:
        """The claim views of one paper, in card order."""
        return [view for view in self.views.values() if view.arxiv == arxiv]

    def stated(self, citation: Citation) -> list[ClaimView]:
        """The claims a citation speaks for: those it names, else every claim it covers."""
        covered = self.covered(citation)
        if not citation.claims:
            return covered
        by_id = {view.claim_id: view for view in covered}
        return [by_id[name] for name in citation.claims if name in by_id] or covered

    def covered(self, citation: Citation) -> list[ClaimView]:
        """The views of the claims that ``citation`` covers."""
        return [
            self.views[ref.global_id]
            for ref in self.wiki.covering_claims(citation)
            if ref.global_id in self.views
        ]


def build_index(config: ProjectConfig, docs_dir: Path, results: Path) -> SiteIndex:
    """Load the wiki under ``docs_dir`` and read every claim's stored result from ``results``."""
    wiki = load_wiki(config, docs_dir)
    index = SiteIndex(wiki, docs_dir.absolute())
    sources: dict[str, SourceLink | None] = {}
    quotes = None
    if any(needs_quotes(ref) for ref in wiki.claims()):
        from claimcheck.sources.checker import QuoteChecker

        quotes = QuoteChecker(config)
    if not os.path.lexists(results):
        for ref in wiki.claims():
            index.views[ref.global_id] = build_view(ref, None, False, config, None, sources,
                                                    quotes)
        return index
    from claimcheck.store.results import ResultStore
    from claimcheck.store.status import collect_status

    store = ResultStore(results, config.root)
    statuses = collect_status(wiki, store, ci_gate=True)  # published: what CI cannot re-make
    refused = refused_identities(wiki)  # a claim two cards could own shows no stored verdict
    for status in statuses:
        curve = None
        result = status.result
        if result is not None and status.ref.global_id in refused:
            result = dataclasses.replace(result, verdict=Verdict.UNVERIFIED, measured=None,
                                         interval=None, artifacts={}, timestamp="",
                                         reason=refused[status.ref.global_id])
        if result is not None:
            curve = store.artifact_path(result, CURVE_ARTIFACT)
            if curve is not None and not curve.is_file():
                curve = None
        index.views[status.ref.global_id] = build_view(
            status.ref, result, status.stale, config, curve, sources, quotes,
            status.stale_reason, status.environment_note,
        )
    if config.variants:
        _add_power(index, [s for s in statuses if s.ref.global_id not in refused], config,
                   results)
    return index


def _add_power(index: SiteIndex, statuses: list[StoredStatus], config: ProjectConfig,
               results: Path) -> None:
    """Each checked claim's power (:mod:`claimcheck.store.power`), for a project with a
    catalogue; ``statuses`` leave out the refused claims, which show no power (as
    :func:`claimcheck.engine.power_run.add_power`)."""
    from claimcheck.store.fingerprint import Fingerprinter
    from claimcheck.store.power import claim_power
    from claimcheck.store.power_results import PowerStore
    from claimcheck.trust.variants import load_catalogue

    fingerprints = Fingerprinter(config, cache_dir=results / "cache")
    catalogue = load_catalogue(config, fingerprints.index)
    store = PowerStore(results)
    index.catalogue = [
        CatalogueEntry(variant.name, variant.description,
                       variant.reference.partition(":")[0].rpartition(".")[2])
        for variant in catalogue.variants.values()
    ]
    for status in statuses:
        view = index.views.get(status.ref.global_id)
        if view is None or status.ref.claim.check is None:
            continue
        power = claim_power(status, catalogue, store, fingerprints, config.confidence)
        counted = bool(power.variants) and power.applicable
        index.views[status.ref.global_id] = dataclasses.replace(
            view, power=power.summary(), power_all_caught=power.all_caught if counted else None,
            power_entries=power_entries(power.to_json(), str(config.root), format_value))
