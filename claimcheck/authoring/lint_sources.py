"""Lint rules that read the papers' cached sources: quotes and locators.

With a paper's source in the cache (``claimcheck papers fetch``), lint checks

==========================================================  =======
finding                                                      level
==========================================================  =======
a quote (claim or citation) that is not in the source        error
a quote found elsewhere (with the locator to paste)          warning
a quote under a page locator LaTeX cannot check              warning
a claim locator that names nothing in the source             warning
quotes that cannot be checked: no source cached (per card)   info
==========================================================  =======

Without a cached source nothing here fails: a reader without the network still gets a clean
lint, and the site shows those quotes as unchecked.
"""

from __future__ import annotations

from collections.abc import Iterator

from claimcheck.authoring.findings import Finding, Level
from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.loader import LoadedCard
from claimcheck.cards.plainpages import PlainPage
from claimcheck.sources.checker import QuoteChecker
from claimcheck.sources.outcome import QuoteCheck, QuoteState

__all__ = ["source_findings"]

_LEVELS = {
    QuoteState.NOT_FOUND: Level.ERROR,
    QuoteState.ELSEWHERE: Level.WARNING,
    QuoteState.UNCHECKABLE: Level.WARNING,
}


def _message(check: QuoteCheck, what: str) -> str:
    text = f"{what}: {check.message}"
    if check.state is QuoteState.ELSEWHERE and check.suggestion:
        text += f" (if that is its place, cite `{check.suggestion}`)"
    return text


def source_findings(
    loaded: LoadedCard | PlainPage, papers: dict[str, LoadedCard], quotes: QuoteChecker
) -> Iterator[Finding]:
    """Quote and locator findings of one page (claims, and citations with a quote)."""
    unchecked: set[str] = set()
    card = getattr(loaded, "card", None)
    if isinstance(loaded, LoadedCard) and isinstance(card, PaperCard):
        for index, claim in enumerate(card.claims):
            for position, why in quotes.missing_locators(card, claim.locators):
                where = ("claims", index, "cite") + (
                    (position,) if isinstance(claim.cite, list) else ())
                line, col = loaded.position(*where)
                yield Finding(Level.WARNING, loaded.display_path, line, col,
                              f"claim '{claim.id}': {why}", "locator-source")
            check = quotes.claim_quote(card, claim)
            if check is None:
                continue
            if check.state is QuoteState.NO_SOURCE:
                unchecked.add(quotes.why_missing(card))
            elif check.state in _LEVELS:
                line, col = loaded.position("claims", index, "quote")
                yield Finding(_LEVELS[check.state], loaded.display_path, line, col,
                              _message(check, f"claim '{claim.id}'"), "quote")
    for citation in loaded.citations:
        if citation.quote is None:
            continue
        paper = papers.get(citation.paper_key)
        if paper is None or not isinstance(paper.card, PaperCard):
            continue
        check = quotes.citation_quote(paper.card, citation)
        if check is None:
            continue
        if check.state is QuoteState.NO_SOURCE:
            unchecked.add(quotes.why_missing(paper.card))
        elif check.state in _LEVELS:
            yield Finding(_LEVELS[check.state], citation.path, citation.line, citation.col,
                          _message(check, citation.text), "quote")
    for why in sorted(unchecked):
        yield Finding(Level.INFO, loaded.display_path, 1, 1, f"quotes not checked: {why}",
                      "quote-source")
