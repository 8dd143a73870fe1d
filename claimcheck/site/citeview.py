"""What a citation shows: counts per verdict of the claims it covers, and one hover card per page.

A citation whose locator covers several claims (``§5`` covers ``§5.1`` and ``§5.2``) shows how
many of them are verified, contradicted and unverified (``✓3 ?2``), never one aggregate that
would hide verified figures behind an unverified neighbour. The hover card lists every claim.

Hover cards are rendered once per page: citations that cover the same claims share one card,
kept at the end of the page (excluded from search), and the badge names it with
``aria-describedby``. ``claimcheck.js`` moves the card next to the badge being hovered or
focused; without script the badge still links to the claim's row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from claimcheck.site.views import ClaimView, Tally, tally

NO_CLAIM = "no claim registered at this locator"


@dataclass(frozen=True)
class ClaimLinks:
    """Where a hover card sends a reader: the claim's row, and the card's explanation of it."""

    row: str
    explanation: str | None = None


@dataclass
class HoverCard:
    """One card of a page: the claims some citations cover (none: a note instead)."""

    card_id: str
    claims: tuple[ClaimView, ...]
    links: dict[str, ClaimLinks] = field(default_factory=dict)
    note: str = ""

    @property
    def counts(self) -> list[tuple[str, int]]:
        """``[(verdict, count)]`` of the verdicts present among the card's claims."""
        return [(name, count) for name, count in tally(self.claims).as_pairs() if count]


@dataclass(frozen=True)
class CitationView:
    """One citation of a page, the claims it covers (possibly none) and its hover card."""

    text: str
    claims: tuple[ClaimView, ...]
    href: str
    card_id: str
    anchor: str = ""

    @property
    def counts(self) -> Tally:
        """How many covered claims have each verdict (and how many are stale)."""
        return tally(self.claims)

    @property
    def segments(self) -> list[tuple[str, int]]:
        """``[(verdict, count)]`` of the verdicts present, in legend order."""
        return [(name, count) for name, count in self.counts.as_pairs() if count]

    @property
    def verdict(self) -> str:
        """The one verdict shown, for a citation covering one claim (or none: unverified)."""
        return self.claims[0].verdict if len(self.claims) == 1 else "unverified"

    @property
    def stale(self) -> bool:
        """Whether any covered claim's stored result is stale."""
        return any(claim.stale for claim in self.claims)


class CardBook:
    """The hover cards of one page, one per distinct set of covered claims."""

    def __init__(self, links: Callable[[ClaimView], ClaimLinks]) -> None:
        self._links = links
        self._by_claims: dict[tuple[str, ...], HoverCard] = {}

    def card_for(self, claims: Sequence[ClaimView]) -> HoverCard:
        """The page's card for exactly these claims (created on first use)."""
        key = tuple(claim.global_id for claim in claims)
        card = self._by_claims.get(key)
        if card is None:
            card = HoverCard(f"cc-card-{len(self._by_claims)}", tuple(claims),
                             {claim.global_id: self._links(claim) for claim in claims},
                             "" if claims else NO_CLAIM)
            self._by_claims[key] = card
        return card

    @property
    def cards(self) -> list[HoverCard]:
        """Every card of the page, in order of first use."""
        return list(self._by_claims.values())
