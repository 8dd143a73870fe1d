"""What a claim's verdict is evidence of, as every view of it shows: basis, quote, secondary source.

A green badge on ``eq. 3`` may speak about the paper or only about our code; the basis says which
(:mod:`claimcheck.cards.basis`), and the site shows it wherever it shows the verdict: on the badge,
in the hover card, in the claims table and in the dashboard's counts. A claim's quote is shown
with the state of its check against the paper's cached source; a claim whose figure rests on a
secondary source says so. The site speaks to readers: where the paper's source is not in the
cache, it says "quote not yet checked against the paper"; the command that fetches it is
``claimcheck lint``'s business. A claim whose locator was confirmed only at second hand (in a
translation or a secondary quotation: :class:`claimcheck.cards.readings.CopyKind`) shows a ‡ and the
copy's name.

A ``textual`` claim's verdict is derived from its quote on every read
(:meth:`claimcheck.sources.checker.QuoteChecker.textual_verdict`), never read from the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimcheck.cards.basis import BASIS_LEGEND
from claimcheck.cards.frontmatter import Basis, Claim, PaperCard
from claimcheck.cards.wiki import ClaimRef
from claimcheck.sources.outcome import QuoteCheck, QuoteState

if TYPE_CHECKING:  # the quote checker (LaTeX indexing) is imported only for wikis with quotes
    from claimcheck.sources.checker import QuoteChecker

SHORT = {
    "paper-vs-code": "paper",
    "implementation": "our code",
    "reproduction": "reproduction",
    "textual": "text",
    "wiki": "wiki",
}
"""The basis as the badge names it, in a word or two."""
NOT_CHECKED = "quote not yet checked against the paper"
"""What a reader sees where the paper's source is not cached (lint says how to fetch it)."""

KINDS = (
    ("paper", "about the paper", ("paper-vs-code", "reproduction", "textual")),
    ("code", "about our code", ("implementation",)),
    ("wiki", "the wiki's own", ("wiki",)),
    ("unstated", "basis not stated", ("",)),
)
"""The evidence kinds a reader keeps apart: ``(key, words, bases)``. A verdict about the paper
(a figure measured on a faithful model, a reproduction, the paper's words) is never added to one
about our code (an implementation test) or to the wiki's own experiment."""
KIND_OF = {basis: key for key, _, bases in KINDS for basis in bases}
KIND_WORDS = {key: words for key, words, _ in KINDS}


@dataclass(frozen=True)
class About:
    """The basis of a claim's verdict, its quote and its secondary source (all may be empty)."""

    basis: str = ""
    legend: str = ""
    quote: str = ""
    quote_note: str = ""
    secondary_source: str = ""
    reading: str = ""
    second_hand: bool = False
    reading_note: str = ""
    """The claim's own words on its reading; ``reading`` names the copy (shared by claims)."""

    @property
    def short(self) -> str:
        """The basis in a word or two, for the badge (empty: the author has not said)."""
        return SHORT.get(self.basis, self.basis)

    @property
    def kind(self) -> str:
        """The evidence kind (:data:`KINDS`): ``paper``, ``code``, ``wiki`` or ``unstated``."""
        return KIND_OF.get(self.basis, "unstated")

    @property
    def kind_words(self) -> str:
        """The evidence kind as a reader reads it (``about the paper``)."""
        return KIND_WORDS[self.kind]


def about(ref: ClaimRef, quotes: QuoteChecker | None) -> About:
    """The basis, quote and secondary source of ``ref``'s claim."""
    claim = ref.claim
    basis = ref.basis
    note = ""
    paper = ref.card.card if isinstance(ref.card.card, PaperCard) else None
    if quotes is not None and paper is not None and claim.quote:
        check = quotes.claim_quote(paper, claim)
        note = reader_note(check) if check is not None else ""
    reading, second_hand = _reading(paper, claim)
    return About(
        basis.value if basis is not None else "",
        BASIS_LEGEND[basis] if basis is not None else "",
        claim.quote or "",
        note,
        claim.secondary_source or "",
        reading,
        second_hand,
        claim.reading.note if claim.reading is not None and claim.reading.note else "",
    )


def _reading(paper: PaperCard | None, claim: Claim) -> tuple[str, bool]:
    """The claim's reading in words (the copy it was read in; the claim's own note is apart),
    and whether its locator was confirmed only second-hand."""
    if paper is None or claim.reading is None:
        return "", False
    copy = paper.copies.get(claim.reading.source)
    named = copy.what if copy is not None else claim.reading.source
    if not claim.reading.confirmed:
        return "locator not confirmed", False
    if copy is not None and not copy.kind.first_hand:
        return f"locator confirmed only in a {copy.kind.value} copy: {named}", True
    return f"locator confirmed in {named}", False


def needs_quotes(ref: ClaimRef) -> bool:
    """Whether showing ``ref`` needs the paper's source: a quote, or a textual basis."""
    return bool(ref.claim.quote) or ref.claim.basis is Basis.TEXTUAL


def textual_verdict(ref: ClaimRef, quotes: QuoteChecker | None) -> tuple[str, str] | None:
    """``(verdict, reason)`` of a textual claim, decided now from its quote; else ``None``."""
    from claimcheck.sources.checker import is_textual

    paper = ref.card.card if isinstance(ref.card.card, PaperCard) else None
    if paper is None or not is_textual(ref.claim):
        return None
    if quotes is None:
        return "unverified", NOT_CHECKED
    decided = quotes.textual_verdict(paper, ref.claim)
    if decided.check.state is QuoteState.NO_SOURCE:
        return decided.verdict, NOT_CHECKED
    return decided.verdict, decided.reason


def reader_note(check: QuoteCheck) -> str:
    """Where a quote stands, for a reader: how to fetch the source is for ``claimcheck lint``."""
    return NOT_CHECKED if check.state is QuoteState.NO_SOURCE else check.message
