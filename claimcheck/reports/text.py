"""Claim rows a person can read at any width, and the one summary line every run ends with.

A table of seven columns cannot fit 80 columns without squeezing the figures to nothing, so a
terminal gets one block per claim instead, wrapped to the terminal's width::

    ✗ 2101.12491/params  contradicted · paper-vs-code · wiki/papers/efficient-capsnet.md:23
        measured 161,500 · expected ≈ 161,000 (±0.5%)
        reason: measured 161,500 is outside 161,000 ± 0.5%
        details: 161,500 parameters (trainable) in EfficientCapsNet; by top-level submodule: …

Compact by default: no statement, and details only where a claim is contradicted;
``--verbose`` adds both. An errored check names the file and line it raised at.

Figures are never cut: a line breaks only between words, and a word longer than the width (a
long id) keeps its own line whole. Anything that is not a terminal (a pipe, a file, CI) gets
one plain line per claim (:func:`plain_line`), which greps well.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterable
from typing import Any

from claimcheck.cards.frontmatter import Expect
from claimcheck.reports.rows import ClaimRow
from claimcheck.verdicts.verdict import describe_expect, format_value

__all__ = ["MARKS", "claim_block", "fitted_summary", "plain_line", "raised_at", "summary_line",
           "wrapped"]

MARKS = {"verified": "✓", "contradicted": "✗", "unverified": "?"}
"""The mark of each verdict, as the badges show it."""
INDENT = "    "


def _label(row: ClaimRow) -> str:
    return "errored" if row.errored else row.verdict


def wrapped(text: str, width: int, indent: str = INDENT, first: str | None = None) -> list[str]:
    """``text`` in lines of at most ``width`` characters, breaking only between words; the
    first line starts with ``first`` (default: ``indent``)."""
    return textwrap.wrap(" ".join(text.split()), width=max(width, 20),
                         initial_indent=indent if first is None else first,
                         subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or []


def expected_text(expected: dict[str, Any] | None) -> str:
    """The expectation in words (``approx 161000 ± 0.5%``), or ``-``."""
    if not expected:
        return "-"
    try:
        return describe_expect(Expect.model_validate(expected))
    except ValueError:
        return json.dumps(expected)


def _measured(row: ClaimRow) -> str:
    return row.measured_text() if row.measured is not None else "-"


_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>.+)$',
                    re.MULTILINE)


def raised_at(error: str | None) -> str | None:
    """``wiki_checks/registry.py:40 (make_attention)``: the innermost frame of a kept
    traceback in the project's own files (stored tracebacks name other files ``<site-packages>``
    or ``<outside>``), else the innermost frame; ``None`` without a traceback."""
    frames = list(_FRAME.finditer(error or ""))
    if not frames:
        return None
    own = [frame for frame in frames if not frame["file"].startswith("<")]
    frame = (own or frames)[-1]
    return f"{frame['file']}:{frame['line']} ({frame['function']})"


def claim_block(row: ClaimRow, width: int, basis: str, verbose: bool = False) -> list[str]:
    """One claim as lines of at most ``width`` characters (a longer word keeps its line).

    Compact by default: the head, measured against expected (when something was measured),
    the reason, a contradicted claim's details (a parameter count's split by submodule) and
    where an errored check raised; ``verbose`` adds the statement and every claim's details.
    No text is ever cut: a figure stays whole.
    """
    stale = " (stale)" if row.stale else ""
    head = (f"{MARKS[row.verdict]} {row.claim}  {_label(row)}{stale} · {basis} · "
            f"{row.where()}")
    lines = wrapped(head, width, first="")
    if verbose or row.measured is not None:  # nothing measured: the reason says why
        lines += wrapped(f"measured {_measured(row)} · expected {expected_text(row.expected)}",
                         width)
    if verbose:
        lines += wrapped(row.statement, width)
    notes = "; ".join(note for note in (row.reason, row.environment_note) if note)
    if notes:
        lines += wrapped(f"reason: {notes}", width)
    if row.details and (verbose or row.verdict == "contradicted"):
        lines += wrapped(f"details: {row.details}", width)
    where = raised_at(row.error) if row.errored else None
    if where is not None:
        lines += wrapped(f"raised at {where}; `--debug` shows the traceback", width)
    return lines


def plain_line(row: ClaimRow, basis: str, verbose: bool = False) -> str:
    """``claim  basis  verdict[ (stale)]  measured M  expected E  card:line  reason``, with
    where an errored check raised, a contradicted claim's details, and with ``verbose`` every
    claim's details and statement."""
    measured = format_value(row.measured) if row.measured is not None else "-"
    parts = [row.claim, basis, row.verdict + (" (stale)" if row.stale else ""),
             f"measured {measured}", f"expected {expected_text(row.expected)}", row.where()]
    notes = " ".join("; ".join(note for note in (row.reason, row.environment_note)
                               if note).split())
    where = raised_at(row.error) if row.errored else None
    if where is not None:
        notes += f" (raised at {where}; `--debug` shows the traceback)"
    if row.details and (verbose or row.verdict == "contradicted"):
        notes += " details: " + " ".join(row.details.split())
    if verbose:
        notes += " statement: " + " ".join(row.statement.split())
    return "  ".join([*parts, notes] if notes else parts)


def summary_line(rows: Iterable[ClaimRow], seconds: float) -> str:
    """``ran 3, up to date 119: verified 83, contradicted 3, unverified 36, stale 0, errors 0
    (12.4 s)``: what this run did and where the wiki stands."""
    rows = list(rows)
    ran = sum(row.ran for row in rows)
    fresh = sum(not row.ran and not row.stale for row in rows)
    counts = {verdict: sum(row.verdict == verdict for row in rows) for verdict in MARKS}
    stale = sum(row.stale for row in rows)
    errors = sum(row.errored for row in rows)
    return (f"ran {ran}, up to date {fresh}: verified {counts['verified']}, contradicted "
            f"{counts['contradicted']}, unverified {counts['unverified']}, stale {stale}, "
            f"errors {errors} ({seconds:.1f} s)")


def fitted_summary(summary: str, width: int | None) -> str:
    """The summary line, broken after ``ran R, up to date U:`` when it is wider than the
    terminal's ``width`` (``None``: a file or a pipe, where it stays one line)."""
    if width is None or len(summary) <= width:
        return summary
    head, sep, tail = summary.partition(": ")
    return f"{head}:\n{tail}" if sep else summary
