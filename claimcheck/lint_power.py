"""Lint rules of power: the wrong variants a claim lists in ``catches:``.

==========================================================  =======
finding                                                      level
==========================================================  =======
a ``catches:`` name the catalogue lacks (with "did you mean") error
  or the trust boundary refuses (the message verify gives)
a wrong variant name defined twice in the catalogue          error
==========================================================  =======

Names are resolved against the catalogue of :mod:`claimcheck.variants`, read with :mod:`ast`;
nothing is imported.
"""

from __future__ import annotations

from collections.abc import Iterator

from claimcheck.cards import PaperCard
from claimcheck.errors import ClaimcheckError
from claimcheck.findings import Finding, Level
from claimcheck.loader import LoadedCard
from claimcheck.variants import Catalogue

__all__ = ["catalogue_findings", "catches_findings"]


def catalogue_findings(catalogue: Catalogue) -> Iterator[Finding]:
    """The catalogue's own problems (a name defined twice), at the variant's ``def``."""
    for problem in catalogue.problems:
        yield Finding(Level.ERROR, catalogue.config.relative(problem.file), problem.line, 1,
                      problem.message, "variant-catalogue")


def catches_findings(catalogue: Catalogue, loaded: LoadedCard) -> Iterator[Finding]:
    """Every ``catches:`` entry of ``loaded``'s claims that does not resolve, where it is."""
    card = loaded.card
    if not isinstance(card, PaperCard):
        return
    for index, claim in enumerate(card.claims):
        for position, name in enumerate(claim.catches):
            try:
                catalogue.resolve(name)
            except ClaimcheckError as exc:
                line, col = loaded.position("claims", index, "catches", position)
                yield Finding(Level.ERROR, loaded.display_path, line, col,
                              f"claim '{claim.id}': catches: {exc.message}", "catches")
