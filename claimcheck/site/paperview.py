"""A paper page's claims as a reader meets them: grouped by verdict, one compact line each, and
the provenance notes that many claims share said once.

The page opens with one line per claim (:func:`glance_groups`): contradicted first, then
unverified, then verified, and within a verdict the evidence kinds in the legend's order (about
the paper, about our code, the wiki's own). Each line has the badge, the claim's id and the first
sentence of its statement (:func:`short_statement`), its evidence kind, its power in words and,
short of verified, its reason in full. The full evidence of each claim follows the card's text.

Provenance notes (:class:`PageNotes`): a quote's state ("quote not yet checked against the
paper"), a secondary source, the copy a locator was read in. A note that two claims of the page
share is listed once, numbered, and each claim carries its number; a note of one claim stays
with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from claimcheck.site.about import KINDS
from claimcheck.site.citeview import BADGE_ORDER
from claimcheck.site.views import ClaimView, Tally, tally

SHORT_LIMIT = 160
"""The longest first sentence a line shows whole; a longer one is cut at a word, with "…"."""
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(\"'`$\\])")


@dataclass(frozen=True)
class GlanceGroup:
    """The claims of one verdict, in kind order, with the id of their heading."""

    verdict: str
    claims: tuple[ClaimView, ...]
    anchor: str
    counts: Tally


def glance_groups(claims: Sequence[ClaimView]) -> list[GlanceGroup]:
    """The page's claims by verdict (✗, ?, ✓), each verdict's claims by evidence kind."""
    order = {key: place for place, (key, _, _) in enumerate(KINDS)}
    groups = []
    for verdict in BADGE_ORDER:
        chosen = [claim for claim in claims if claim.verdict == verdict]
        if chosen:
            chosen.sort(key=lambda claim: order.get(claim.about.kind, len(order)))
            groups.append(GlanceGroup(verdict, tuple(chosen), glance_anchor(verdict),
                                      tally(chosen)))
    return groups


def glance_anchor(verdict: str, kind: str = "") -> str:
    """The id of a verdict's group, or of the first line of one kind inside it."""
    return f"cc-glance-{verdict}" + (f"-{kind}" if kind else "")


def first_of_kind(groups: Sequence[GlanceGroup]) -> dict[str, str]:
    """``{claim_id: anchor}`` for the first line of each (verdict, kind) run: the strip's counts
    link there."""
    firsts: dict[str, str] = {}
    for group in groups:
        seen: set[str] = set()
        for claim in group.claims:
            if claim.about.kind not in seen:
                seen.add(claim.about.kind)
                firsts[claim.global_id] = glance_anchor(group.verdict, claim.about.kind)
    return firsts


def short_statement(statement: str) -> str:
    """The statement's first sentence (Markdown, never cut inside a code span or maths), or its
    beginning up to :data:`SHORT_LIMIT` characters, cut at a word, with "…"."""
    text = " ".join(statement.split())
    end = len(text)
    for match in _SENTENCE_END.finditer(text, 0, 2 * SHORT_LIMIT):  # bounded: a long statement
        if _balanced(text[: match.start()]):
            end = match.start() + 1
            break
    text = text[:end]
    if len(text) <= SHORT_LIMIT:
        return text
    cut = text[:SHORT_LIMIT]
    while cut and not (cut.endswith(" ") and _balanced(cut)):
        cut = cut[:-1]
    return (cut.rstrip(" ,;:") or text[:SHORT_LIMIT]) + " …"


def _balanced(text: str) -> bool:
    """Whether ``text`` closes every code span and every ``$`` maths it opens."""
    outside_code = re.sub(r"`[^`]*`", "", text)
    return text.count("`") % 2 == 0 and outside_code.count("$") % 2 == 0


@dataclass
class PageNotes:
    """Provenance notes shared by several claims of a page, numbered in order of first use."""

    numbers: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, claims: Sequence[ClaimView]) -> PageNotes:
        """Number every note that at least two of ``claims`` carry."""
        seen: dict[str, int] = {}
        for claim in claims:
            for note in set(notes_of(claim)):
                seen[note] = seen.get(note, 0) + 1
        shared = cls()
        for claim in claims:
            for note in notes_of(claim):
                if seen[note] > 1 and note not in shared.numbers:
                    shared.numbers[note] = len(shared.numbers) + 1
        return shared

    def number(self, note: str) -> int | None:
        """The note's number, if the page lists it once for every claim."""
        return self.numbers.get(note)

    @property
    def listed(self) -> list[tuple[int, str]]:
        """``[(number, note)]`` in order."""
        return [(number, note) for note, number in self.numbers.items()]


def notes_of(claim: ClaimView) -> list[str]:
    """The provenance notes of a claim that may repeat across a page."""
    about = claim.about
    found = [about.quote_note, about.secondary_source, about.reading]
    return [note for note in found if note]
