"""A paper's comparison against the other rows of its own results table.

"State of the art on three datasets" (arxiv:2101.12491 p. 1) is a claim about the tables that
come with it: on each dataset the method's error should be the lowest of the rows it is compared
with. The card copies the rows it read (method → error in percent) into ``args``; the card is
the one place those figures live. This check measures how far the subject row lies above the
best other row: the subject's error minus the lowest error among the others. Zero or below means
no other row beats it; the engine compares the margin with the claim's ``expect``.

The figures are the table's, read by hand; the check decides nothing about whether they were
read right (each claim's ``reading`` and ``secondary_source`` say where they come from). It
decides only what the figures, as read, say about the ranking.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence


def _rows(value: Any) -> dict[str, float]:
    if not isinstance(value, Mapping) or len(value) < 2:
        raise ValueError("args.rows must map at least two methods to their error in percent")
    rows: dict[str, float] = {}
    for name, error in value.items():
        if isinstance(error, bool) or not isinstance(error, (int, float)):
            raise ValueError(f"args.rows[{name!r}] must be a number (an error in percent)")
        rows[str(name)] = float(error)
    return rows


@dataclass(frozen=True)
class TableArgs(CheckArgs):
    """``rows``: method → error in percent, as the table prints it; ``subject``: the method."""

    rows: dict[str, Any]
    subject: str


@claim_check(args=TableArgs)
def margin_over_best_other(ctx: CheckContext) -> Evidence:
    """The subject row's error minus the lowest error of the other rows, in points.

    Args: ``rows`` (method → error in percent, as the table prints it) and ``subject`` (the
    method the claim is about). Negative: the subject is best; zero: a tie; positive: another
    row is better by that many points.
    """
    args = TableArgs.of(ctx)
    rows, subject = _rows(args.rows), args.subject
    if subject not in rows:
        raise ValueError(f"args.subject {subject!r} is not one of the rows ({', '.join(rows)})")
    others = {name: error for name, error in rows.items() if name != subject}
    best = min(others, key=others.__getitem__)
    margin = round(rows[subject] - others[best], 10)
    return Evidence(
        measured=margin,
        details=(f"{subject} {rows[subject]:g}% against the best other row, {best} "
                 f"{others[best]:g}% ({len(others)} other rows): margin {margin:+g} points"),
    )
