"""Claims whose identity is ambiguous: one table that lint reports and verify refuses.

A claim's global id (``PAPER-KEY/claim-id``) names its result file, its artifacts, its power
results and its published page. When two cards could own one id, a run of one overwrites the
other's result, and removing a card later leaves the survivor showing a verdict it never earned.
:func:`identity_conflicts` finds every such ambiguity:

* a second paper card for a paper key (every claim of every card of that paper);
* a claim id repeated inside one paper card (the claims holding it);
* a slug shared by two cards (the claims of those cards, if they are paper cards);
* two global ids whose result files differ only by case, and so are one file on a
  case-insensitive file system (macOS, Windows).

Lint prints each conflict's message at its place; verify refuses each conflict's claims with the
same message, never runs them and never writes their results (:mod:`claimcheck.engine.planning`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.loader import LoadedCard
from claimcheck.cards.wiki import Wiki
from claimcheck.store.results import result_stem

__all__ = ["IdentityConflict", "identity_conflicts", "refused_identities"]


@dataclass(frozen=True)
class IdentityConflict:
    """One ambiguity: where lint reports it, its message, the claims verify refuses for it."""

    card: LoadedCard
    where: tuple[str | int, ...]
    message: str
    rule: str
    global_ids: frozenset[str]


def identity_conflicts(wiki: Wiki) -> list[IdentityConflict]:
    """Every identity conflict of ``wiki``, in card order."""
    conflicts: list[IdentityConflict] = []
    first_slug: dict[str, LoadedCard] = {}
    first_paper: dict[str, LoadedCard] = {}
    papers: dict[str, list[LoadedCard]] = {}
    for loaded in wiki.cards:
        card = loaded.card
        if isinstance(card, PaperCard):
            papers.setdefault(card.paper_key, []).append(loaded)
    for loaded in wiki.cards:
        card = loaded.card
        slug_owner = first_slug.setdefault(card.slug, loaded)
        if slug_owner is not loaded:
            conflicts.append(IdentityConflict(
                loaded, ("slug",),
                f"duplicate slug '{card.slug}' (also in {slug_owner.display_path})",
                "duplicate-slug", _claim_ids((slug_owner, loaded))))
        if not isinstance(card, PaperCard):
            continue
        paper_owner = first_paper.setdefault(card.paper_key, loaded)
        if paper_owner is not loaded:
            paper = card.paper_id
            conflicts.append(IdentityConflict(
                loaded, (paper.scheme if paper.scheme != "url" else "url",),
                f"a second paper card for {paper.label} (first: {paper_owner.display_path})",
                "duplicate-paper", _claim_ids(papers[card.paper_key])))
        seen: set[str] = set()
        for index, claim in enumerate(card.claims):
            if claim.id in seen:
                conflicts.append(IdentityConflict(
                    loaded, ("claims", index, "id"), f"duplicate claim id '{claim.id}'",
                    "duplicate-claim", frozenset({card.global_id(claim)})))
            seen.add(claim.id)
    conflicts.extend(_case_collisions(wiki))
    return conflicts


def refused_identities(wiki: Wiki) -> dict[str, str]:
    """Each claim in a conflict, with the message of its first conflict (what verify says)."""
    refused: dict[str, str] = {}
    for conflict in identity_conflicts(wiki):
        for global_id in sorted(conflict.global_ids):
            refused.setdefault(global_id, conflict.message)
    return refused


def _claim_ids(cards: Iterable[LoadedCard]) -> frozenset[str]:
    return frozenset(card.card.global_id(claim) for card in cards
                     if isinstance(card.card, PaperCard) for claim in card.card.claims)


def _case_collisions(wiki: Wiki) -> list[IdentityConflict]:
    by_file: dict[str, str] = {}
    conflicts: list[IdentityConflict] = []
    for ref in wiki.claims():
        try:
            folded = result_stem(ref.global_id).casefold()
        except ValueError:
            continue
        other = by_file.setdefault(folded, ref.global_id)
        if other != ref.global_id:
            index = ref.card.card.claims.index(ref.claim) if isinstance(
                ref.card.card, PaperCard) else 0
            conflicts.append(IdentityConflict(
                ref.card, ("claims", index, "id"),
                f"the results of {other} and {ref.global_id} would share one file on a "
                "case-insensitive file system", "duplicate-claim",
                frozenset({other, ref.global_id})))
    return conflicts
