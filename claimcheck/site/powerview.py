"""Power as readers see it: each claim's wrong variants, and the figures the dashboard reports.

A claim's power (:mod:`claimcheck.store.power`) is read here from its JSON form, generically: one
:class:`PowerEntry` per variant the store names (name, description, state, the measurement under
it, whether the claim lists it). The state is shown as the store writes it, so a state the store
adds later (``not decided``, ``no longer a change``) reaches readers without a change here.

The dashboard's figures (:func:`power_figures`) are those a reader can use: how many distinct
variants some claim catches, how many verified claims rest on a single caught variant, and the
families of bugs (the catalogue's modules) with variants no claim catches. It leaves out the
share of claims that catch every variant they list: ``lint --strict`` already guarantees it in CI,
so it tells a reader nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claimcheck.site.paths import scrub_paths

if TYPE_CHECKING:
    from claimcheck.site.views import ClaimView

CAUGHT = "caught"
_COMMAND = re.compile(r"[:;,]?\s*\(?\s*(?:run|see)\s+`claimcheck [^`]*`.*$", re.DOTALL)
"""How to run a variant (``run `claimcheck verify --power```) is the command line's business;
the site says only why it has no result."""


def reader_note(note: str) -> str:
    """``note`` without the command a developer would type to act on it."""
    return _COMMAND.sub("", note).strip()


@dataclass(frozen=True)
class PowerEntry:
    """One wrong variant as the store's power data gives it for one claim."""

    name: str
    description: str
    state: str
    measured: str
    listed: bool = True
    note: str = ""

    @property
    def slug(self) -> str:
        """The state as a CSS class word (``not run`` is ``not-run``)."""
        return "-".join("".join(c if c.isalnum() else " " for c in self.state).split()) or "none"


@dataclass(frozen=True)
class CatalogueEntry:
    """One variant of the project's catalogue: its card name, the bug it stands for, and its
    family (the module that declares it, such as ``dynamic`` or ``losses``)."""

    name: str
    description: str
    family: str


def power_entries(
    data: Mapping[str, Any], root: str, shown: Any = str
) -> tuple[PowerEntry, ...]:
    """The entries of a claim's power data (its JSON form): every mapping in ``variants`` with a
    ``name``. A missing key is empty; ``shown`` formats a measurement."""
    entries = []
    for item in data.get("variants") or ():
        if not isinstance(item, Mapping) or not item.get("name"):
            continue

        def text(key: str, default: str = "", item: Mapping[str, Any] = item) -> str:
            value = item.get(key)
            return scrub_paths(str(getattr(value, "value", value) or default), root)

        measured = item.get("measured")
        entries.append(PowerEntry(
            text("name"), text("description"), text("state", "unknown"),
            "—" if measured is None else scrub_paths(shown(measured), root),
            bool(item.get("listed", True)), reader_note(text("note") or text("reason")),
        ))
    return tuple(entries)


def power_words(summary: str, entries: Sequence[PowerEntry]) -> str:
    """A claim's power in words: ``catches 3 of 3 listed wrong variants``, ``catches 1 of 2
    listed wrong variants (1 missed)``, ``no wrong variant listed``; empty without power data
    (no check, or no catalogue). Counted from the entries, each state under its own name."""
    if not summary:
        return ""
    if not entries:
        return "no wrong variant listed"
    listed = [entry for entry in entries if entry.listed]
    caught = sum(entry.state == CAUGHT for entry in listed)
    words = (f"catches {caught} of {len(listed)} listed wrong "
             f"variant{'s' if len(listed) != 1 else ''}")
    more = sum(entry.state == CAUGHT for entry in entries if not entry.listed)
    if more:
        words += f", and {more} more"
    others: dict[str, int] = {}
    for entry in listed:
        if entry.state != CAUGHT:
            others[entry.state] = others.get(entry.state, 0) + 1
    if others:
        words += " (" + ", ".join(f"{count} {state}" for state, count in others.items()) + ")"
    return words


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
