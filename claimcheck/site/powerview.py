"""Power as readers see it: each claim's wrong variants, read from the store's JSON.

A claim's power (:mod:`claimcheck.store.power`) is read here from its JSON form, generically: one
:class:`PowerEntry` per variant the store names (name, description, state, the measurement under
it, whether the claim lists it). The state is shown as the store writes it, so a state the store
adds later (``not decided``, ``no longer a change``) reaches readers without a change here.

The figures over many claims (the dashboard's, the report's share) are
:mod:`claimcheck.site.powerfigures`, above the claim views this module's entries are part of.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from claimcheck.site.paths import scrub_paths

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
