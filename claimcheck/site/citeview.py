"""What a citation shows: counts per verdict of the claims it covers, and one hover card per page.

A citation whose locator covers several claims (``§5`` covers ``§5.1`` and ``§5.2``) shows how
many of them are contradicted, unverified and verified (``?2 ✓3``: ✗ first, then ?, then ✓),
never one aggregate that would hide verified figures behind an unverified neighbour. A citation
that names its claims (``[arxiv:2101.12491 tab. 2 #mnist-params]``) speaks for those only: they
are its badge, and the other claims at the locator are listed in its hover card, below them.

A card that lists three claims or more shows one line per claim (verdict, id, measured against
expected, a link to its row) and a shared † note once; a card of one or two claims shows each
in full, without the rows that would only hold "—". Every card links to the legend.

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


BADGE_ORDER = ("contradicted", "unverified", "verified")
"""The order of a badge's segments and of a card's lines: what needs a reader's eye first."""
LIST_FROM = 3
"""A card with at least this many claims shows one line per claim."""


def present(counts: Tally) -> list[tuple[str, int]]:
    """``[(verdict, count)]`` of the verdicts present, in :data:`BADGE_ORDER`."""
    return [(name, getattr(counts, name)) for name in BADGE_ORDER if getattr(counts, name)]


def by_verdict(claims: Sequence[ClaimView]) -> list[ClaimView]:
    """``claims`` sorted ✗, ?, ✓ (stable within a verdict)."""
    rank = {name: place for place, name in enumerate(BADGE_ORDER)}
    return sorted(claims, key=lambda claim: rank.get(claim.verdict, 1))


@dataclass
class HoverCard:
    """One card of a page: the claims some citations state, and the others at their locator.

    ``claims`` are the claims the citations name (or, when they name none, every claim the
    locator covers); ``others`` the rest of the locator's claims, reachable below them.
    """

    card_id: str
    claims: tuple[ClaimView, ...]
    links: dict[str, ClaimLinks] = field(default_factory=dict)
    note: str = ""
    others: tuple[ClaimView, ...] = ()
    legend: str | None = None

    @property
    def counts(self) -> list[tuple[str, int]]:
        """``[(verdict, count)]`` of the verdicts present among the card's claims."""
        return present(tally(self.claims))

    @property
    def as_list(self) -> bool:
        """Whether the card's claims are shown one line each."""
        return len(self.claims) >= LIST_FROM

    @property
    def lines(self) -> list[ClaimView]:
        """The claims shown one line each, ✗ first."""
        return by_verdict(self.claims) if self.as_list else []

    @property
    def secondary(self) -> bool:
        """Whether a claim shown as a line rests on a secondary source (the † note)."""
        return any(claim.about.secondary_source for claim in [*self.lines, *self.others])


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
        """``[(verdict, count)]`` of the verdicts present, ✗ then ? then ✓."""
        return present(self.counts)

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

    def __init__(
        self, links: Callable[[ClaimView], ClaimLinks], legend: str | None = None
    ) -> None:
        self._links = links
        self._legend = legend
        self._by_claims: dict[tuple[tuple[str, ...], tuple[str, ...]], HoverCard] = {}

    def card_for(
        self, claims: Sequence[ClaimView], others: Sequence[ClaimView] = ()
    ) -> HoverCard:
        """The page's card for exactly these claims and others (created on first use)."""
        key = (tuple(claim.global_id for claim in claims),
               tuple(claim.global_id for claim in others))
        card = self._by_claims.get(key)
        if card is None:
            shown = [*claims, *others]
            card = HoverCard(f"cc-card-{len(self._by_claims)}", tuple(claims),
                             {claim.global_id: self._links(claim) for claim in shown},
                             "" if shown else NO_CLAIM, tuple(by_verdict(others)),
                             self._legend)
            self._by_claims[key] = card
        return card

    @property
    def cards(self) -> list[HoverCard]:
        """Every card of the page, in order of first use."""
        return list(self._by_claims.values())
