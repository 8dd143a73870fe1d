"""Quotes and locators of a wiki, checked against the papers' cached sources.

One :class:`QuoteChecker` serves a whole pass (lint, status, verify, the site): it finds each
paper's source in the cache once (:mod:`claimcheck.sources.cache`) and answers

* :meth:`QuoteChecker.claim_quote`: where a claim's quote stands (:class:`QuoteCheck`);
* :meth:`QuoteChecker.citation_quote`: the same for a body citation that carries a quote;
* :meth:`QuoteChecker.missing_locators`: which of a claim's locators name nothing in the source;
* :meth:`QuoteChecker.textual_verdict`: the verdict of a ``textual`` claim.

A textual verdict is derived, never stored: whenever it is shown it is decided from the pinned
source in this machine's cache, so no results file can assert it. It is ``verified`` only when
the quote is found at the claim's locator; otherwise ``unverified`` with the reason (not found,
found elsewhere, no source cached). It is never ``contradicted``: a quote that is absent shows
that the card is wrong, not that the paper is.
"""

from __future__ import annotations

from dataclasses import dataclass

from claimcheck.cards.citations import Citation
from claimcheck.cards.frontmatter import Basis, Claim, PaperCard, SourceKind
from claimcheck.cards.locators import Locator, LocatorError, parse_locator
from claimcheck.core.config import ProjectConfig
from claimcheck.sources.cache import CachedSource, SourceCache
from claimcheck.sources.outcome import QuoteCheck, QuoteState

__all__ = ["QuoteChecker", "TextualVerdict", "is_textual"]


def is_textual(claim: Claim) -> bool:
    """Whether the claim is decided by its quote alone (textual, no check, no reason)."""
    return claim.basis is Basis.TEXTUAL and claim.check is None and claim.unverified is None


@dataclass(frozen=True)
class TextualVerdict:
    """A textual claim's verdict, its reason, and the quote check behind it."""

    verdict: str
    reason: str
    check: QuoteCheck


def _parsed(texts: list[str]) -> list[Locator]:
    parsed = []
    for text in texts:
        try:
            parsed.append(parse_locator(text))
        except LocatorError:
            continue
    return parsed


class QuoteChecker:
    """Checks quotes and locators against the source cache of one project."""

    def __init__(self, config: ProjectConfig | None, cache: SourceCache | None = None) -> None:
        self.cache = cache or SourceCache.for_config(config)
        self._sources: dict[str, CachedSource | None] = {}

    def source(self, card: PaperCard) -> CachedSource | None:
        """The paper's cached source (looked up once per checker)."""
        key = card.paper_key
        if key not in self._sources:
            self._sources[key] = self.cache.lookup(card)
        return self._sources[key]

    def why_missing(self, card: PaperCard) -> str:
        """Why the paper's source cannot be used, in words with the command that helps."""
        found = self.source(card)
        if found is not None and found.problem:
            return found.problem
        scheme = card.paper_id.scheme
        if card.source is None or card.source.url is None:
            # what `papers fetch` would get by the identifier alone (claimcheck.sources.fetch)
            if scheme == "doi":
                return ("a DOI names a landing page, not a file, so the source cannot be "
                        "fetched by it: give the file's address as `source: {url: …, sha256: "
                        f"…}}` and run `claimcheck papers fetch {card.paper_key} --pin`, which "
                        "writes the fetched file's sha256")
            if scheme == "openreview" and (card.source is None
                                           or card.source.kind is SourceKind.LATEX):
                return ("OpenReview serves only the PDF, which has no locator index: give a "
                        "LaTeX source as `source: {url: …, sha256: …}` if the authors "
                        f"published one, and run `claimcheck papers fetch {card.paper_key} "
                        "--pin`")
        if card.source is not None:
            return (f"the pinned source (sha256 {card.source.sha256[:12]}…) is not cached: run "
                    f"`claimcheck papers fetch {card.paper_key}`")
        return (f"the paper's source is not cached: run `claimcheck papers fetch "
                f"{card.paper_key}` (add --pin to pin it)")

    def _check(self, card: PaperCard, quote: str, locators: list[Locator]) -> QuoteCheck:
        from claimcheck.sources.quotes import check_quote  # the LaTeX machinery, when needed

        found = self.source(card)
        index = found.index if found is not None else None
        return check_quote(index, quote, locators, self.why_missing(card))

    def claim_quote(self, card: PaperCard, claim: Claim) -> QuoteCheck | None:
        """Where the claim's quote stands (``None`` when it has no quote)."""
        if claim.quote is None:
            return None
        return self._check(card, claim.quote, _parsed(claim.locators))

    def citation_quote(self, card: PaperCard, citation: Citation) -> QuoteCheck | None:
        """Where a body citation's quote stands (``None`` when it has no quote)."""
        if citation.quote is None:
            return None
        return self._check(card, citation.quote, list(citation.locators))

    def missing_locators(self, card: PaperCard, locators: list[str]) -> list[tuple[int, str]]:
        """``(position in the list, why)`` for each locator that names nothing in the source."""
        found = self.source(card)
        if found is None or found.index is None:
            return []
        problems = []
        for position, text in enumerate(locators):
            try:
                locator = parse_locator(text)
            except LocatorError:
                continue
            why = found.index.missing(locator)
            if why is not None:
                problems.append((position, why))
        return problems

    def textual_verdict(self, card: PaperCard, claim: Claim) -> TextualVerdict:
        """The derived verdict of a textual claim (see the module docstring)."""
        check = self.claim_quote(card, claim)
        if check is None:
            check = QuoteCheck(QuoteState.NOT_FOUND, "a textual claim needs a quote")
        if check.state is QuoteState.FOUND:
            return TextualVerdict("verified", "", check)
        reason = check.message
        if check.suggestion:
            reason += f" (cite {check.suggestion} if that is the claim's place)"
        return TextualVerdict("unverified", reason, check)
