"""How the report formats show power (:mod:`claimcheck.store.power`), from ``ClaimRow.power``.

Text (``verify``, ``status``): one share line (with the unlisted variants caught and the listed
runs not decided), then a line for each claim whose listed variants are not all caught.
JUnit: a ``power`` property on each checked claim's test case, and the
missed variants in its ``system-out``. GitHub: a warning at the claim's line for each claim that
misses a listed variant. JSON carries the whole section (``ClaimRow.to_json``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

__all__ = ["missed_message", "power_lines", "power_share", "power_summary"]


class _Row(Protocol):
    @property
    def claim(self) -> str: ...

    @property
    def power(self) -> dict[str, Any] | None: ...

    def where(self) -> str: ...


def power_summary(row: _Row) -> str | None:
    """The claim's one-line power (``catches 2 of 2 listed wrong variants``), if derived."""
    return str(row.power["summary"]) if row.power else None


def power_share(rows: Iterable[_Row]) -> tuple[int, int]:
    """(claims whose listed variants are all caught, verified claims that list variants)."""
    measured = [row.power for row in rows
                if row.power and row.power["listed"] and row.power["applicable"]]
    return sum(p["caught"] == p["listed"] for p in measured), len(measured)


def power_lines(rows: list[_Row]) -> list[str]:
    """The text report's power section (empty when no claim lists a wrong variant)."""
    listing = [row for row in rows if row.power and row.power["listed"]]
    if not listing:
        return []
    caught, measured = power_share(rows)
    unlisted = sum(1 for row in rows if row.power and not row.power["listed"])
    undecided = sum(len(row.power.get("not_decided", ())) for row in rows if row.power)
    also = sum(len(row.power.get("unlisted_caught", ())) for row in rows if row.power)
    lines = [f"power: {caught} of {measured} verified claim(s) that list wrong variants catch "
             f"all of them; {unlisted} checked claim(s) list none"
             + (f"; {also} unlisted variant(s) caught" if also else "")
             + (f"; {undecided} listed variant run(s) not decided (an error, exhaustion or "
                "refusal under the variant: neither caught nor missed)" if undecided else "")]
    lines += [f"  {row.claim}: {power_summary(row)} ({row.where()})" for row in listing
              if row.power and row.power["caught"] != row.power["listed"]]
    return lines


def missed_message(row: _Row) -> str | None:
    """The GitHub/JUnit message of a claim that misses listed variants, else ``None``."""
    if not row.power or not row.power["missed"]:
        return None
    return (f"{row.claim}: {power_summary(row)} (its check stays verified under each missed "
            "wrong variant)")
