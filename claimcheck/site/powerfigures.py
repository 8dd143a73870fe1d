"""Power over many claims: the dashboard's figures and the Markdown report's share.

The dashboard's figures (:func:`power_figures`) are those a reader can use: how many distinct
variants some claim catches, how many verified claims rest on a single caught variant, and the
families of bugs (the catalogue's modules) with variants no claim catches. It leaves out the
share of claims that catch every variant they list: ``lint --strict`` already guarantees it in CI,
so it tells a reader nothing. The report's line (:func:`power_share`) does give that share.

Each claim's entries are :mod:`claimcheck.site.powerview`'s, read into its
:class:`~claimcheck.site.views.ClaimView`; this module sits above both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from claimcheck.site.powerview import CAUGHT, CatalogueEntry
from claimcheck.site.views import ClaimView


@dataclass(frozen=True)
class PowerShare:
    """Verified claims whose listed variants are all caught, of those that list variants, and
    the checked claims that list none (the Markdown report's line)."""

    all_caught: int
    counted: int
    unlisted: int


def power_share(claims: Iterable[ClaimView]) -> PowerShare | None:
    """The share of verified claims whose listed variants are all caught (``None`` where the
    project has no catalogue, so no claim shows power)."""
    shown = [claim for claim in claims if claim.power]
    if not shown:
        return None
    counted = [claim.power_all_caught for claim in shown if claim.power_all_caught is not None]
    unlisted = sum(not claim.power_entries for claim in shown)
    return PowerShare(sum(counted), len(counted), unlisted)


@dataclass(frozen=True)
class Family:
    """One family of bugs: the catalogue's variants of one module, and those no claim catches."""

    name: str
    variants: int
    uncovered: tuple[CatalogueEntry, ...]


@dataclass(frozen=True)
class PowerFigures:
    """What the dashboard reports about power (see the module docstring)."""

    caught: tuple[str, ...]
    """The distinct variants some claim catches."""
    single: tuple[ClaimView, ...]
    """Verified claims whose power rests on a single caught variant."""
    none_caught: tuple[ClaimView, ...]
    """Verified claims with a check that catch no variant (none listed, or none caught)."""
    families: tuple[Family, ...]
    """Every family of the catalogue, with the variants no claim catches."""
    catalogue: int

    @property
    def uncovered(self) -> int:
        """How many variants of the catalogue no claim catches."""
        return sum(len(family.uncovered) for family in self.families)


def power_figures(
    claims: Sequence[ClaimView], catalogue: Sequence[CatalogueEntry]
) -> PowerFigures | None:
    """The dashboard's figures, or ``None`` where no claim shows power."""
    shown = [claim for claim in claims if claim.power]
    if not shown:
        return None
    caught = sorted({entry.name for claim in shown for entry in claim.power_entries
                     if entry.state == CAUGHT})
    verified = [claim for claim in shown if claim.verdict == "verified" and not claim.stale]

    def count(claim: ClaimView) -> int:
        return sum(entry.state == CAUGHT for entry in claim.power_entries)

    families: dict[str, list[CatalogueEntry]] = {}
    for variant in catalogue:
        families.setdefault(variant.family, []).append(variant)
    return PowerFigures(
        tuple(caught),
        tuple(claim for claim in verified if count(claim) == 1),
        tuple(claim for claim in verified if count(claim) == 0),
        tuple(Family(name, len(group), tuple(v for v in group if v.name not in caught))
              for name, group in sorted(families.items())),
        len(catalogue),
    )
