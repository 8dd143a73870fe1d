"""Verdicts, and the comparators that hold a measurement against ``expect``.

A check measures; this module and :mod:`claimcheck.verdicts.judge` decide. The vocabulary is closed
(:class:`Verdict`) and every judgement that is not ``verified`` carries a one-line reason that a
reader can act on:

* ``contradicted`` says what was measured against what was expected
  (``measured 2205184, expected approx 161000 ± 0.5%``);
* ``unverified`` says why no decision was possible: no measurement, a value of the wrong type, or
  proxy evidence for a claim that does not declare ``accept_proxy: true`` (the value is still
  shown, with what it would have meant).

Comparators (``claimcheck.cards.frontmatter.Expect``): ``equals`` (numbers exactly, lists
elementwise), ``approx`` with ``rel_tol`` (measured within ±rel_tol·|expected| of expected, a band
symmetric around it, as the reason text and the badge say) or ``abs_tol`` (within ±abs_tol),
``at_most``, ``at_least``, ``between`` (all bounds inclusive) and ``holds`` (the measurement must be
a bool).

Numbers that cannot be compared honestly make the claim unverified with the reason, never a
traceback: a non-finite measurement or expectation, and an integer too large for a float.
``approx`` with ``std`` (a paper's "mean ± std over runs") accepts ``approx ± z·std`` at 95% for a
single measurement.

Evidence with an ``interval`` (a figure measured over several seeds) is judged
(:func:`claimcheck.verdicts.judge.judge`) by the interval rule of
:mod:`claimcheck.verdicts.interval`: verified or contradicted only when the whole confidence
interval lies on one side, otherwise unverified, "inconclusive".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any

from claimcheck.cards.frontmatter import Expect
from claimcheck.checks.api import Evidence

_Z95 = 1.959963984540054  # the two-sided 95% normal quantile


class Verdict(str, Enum):
    """The closed set of verdicts; see ``LEGEND`` for one sentence on each."""

    VERIFIED = "verified"
    CONTRADICTED = "contradicted"
    UNVERIFIED = "unverified"


LEGEND: dict[Verdict, str] = {
    Verdict.VERIFIED: "The check ran with sufficient fidelity and the measurement meets expect.",
    Verdict.CONTRADICTED: "The check ran with sufficient fidelity and the measurement violates "
    "expect.",
    Verdict.UNVERIFIED: "No decision: no check, the check failed, the data was missing, or the "
    "evidence was only a proxy; the reason says which.",
}


@dataclass(frozen=True)
class Judgement:
    """A verdict with its reason (empty only for ``verified``)."""

    verdict: Verdict
    reason: str = ""


def unverified(reason: str) -> Judgement:
    """An ``unverified`` judgement; the reason is mandatory."""
    if not reason.strip():
        raise ValueError("an unverified judgement needs a reason")
    return Judgement(Verdict.UNVERIFIED, reason)


class _Incomparable(Exception):
    """The measurement cannot be compared with the expectation at all."""


def format_value(value: Any) -> str:
    """A value as a reader would write it: ``true``, ``0.0123``, ``[1, 2]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 64 * 8:
            return f"an integer of about {_digits(value)} digits"
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        shown = [format_value(item) for item in value[:_SHOWN_ITEMS]]
        more = f", ... ({len(value)} items)" if len(value) > _SHOWN_ITEMS else ""
        return "[" + ", ".join(shown) + more + "]"
    if value is None:
        return "nothing"
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "...'"


_SHOWN_ITEMS = 20
_SHOWN_CHARS = 200


def _digits(value: int) -> int:
    return int(abs(value).bit_length() * math.log10(2)) + 1


def describe_expect(expect: Expect) -> str:
    """``approx 161000 ± 0.5%``, ``at most 3``, ``between 1 and 2``: the expectation in words."""
    fields = expect.model_fields_set
    if "approx" in fields:
        if expect.rel_tol is not None:
            return f"approx {format_value(expect.approx)} ± {expect.rel_tol * 100:g}%"
        if expect.std is not None:
            return f"{format_value(expect.approx)} ± {format_value(expect.std)} (mean ± std)"
        return f"approx {format_value(expect.approx)} ± {format_value(expect.abs_tol)}"
    if "at_most" in fields:
        return f"at most {format_value(expect.at_most)}"
    if "at_least" in fields:
        return f"at least {format_value(expect.at_least)}"
    if "between" in fields and expect.between is not None:
        low, high = expect.between
        return f"between {format_value(low)} and {format_value(high)}"
    if "holds" in fields:
        return "the property to hold"
    return format_value(expect.equals)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(value: Any) -> float | int:
    if not _is_number(value):
        raise _Incomparable(f"check returned {type(value).__name__} {format_value(value)}, "
                            "not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Incomparable(f"check returned {format_value(value)}, not a finite number")
    _fits_a_float(value, "check returned an integer")
    number: float | int = value
    return number


def _fits_a_float(value: float | int, what: str) -> None:
    try:
        float(value)
    except OverflowError:
        raise _Incomparable(f"{what} too large to compare as a number "
                            f"(about {_digits(int(value))} digits)") from None


def _expected_number(value: float | int) -> float | int:
    if isinstance(value, float) and not math.isfinite(value):
        raise _Incomparable(f"expect holds {format_value(value)}, not a finite number")
    _fits_a_float(value, "expect holds an integer")
    return value


def within(measured: float | int, expected: float | int, rel_tol: float | None,
           abs_tol: float | None) -> bool:
    """``|measured - expected| <= rel_tol·|expected|`` (or ``<= abs_tol``): the symmetric band
    that ``approx E ± r%`` describes."""
    allowed = abs_tol if abs_tol is not None else (rel_tol or 0.0) * abs(expected)
    return abs(measured - expected) <= allowed


def _equal(measured: Any, expected: Any) -> bool:
    if _is_number(expected):
        return bool(_number(measured) == _expected_number(expected))
    if isinstance(expected, (list, tuple)):
        if not isinstance(measured, (list, tuple)):
            raise _Incomparable(
                f"check returned {type(measured).__name__} {format_value(measured)}, not a list"
            )
        if len(measured) != len(expected):
            return False
        return all(_equal(m, e) for m, e in zip(measured, expected, strict=True))
    if type(measured) is not type(expected):
        raise _Incomparable(
            f"check returned {type(measured).__name__} {format_value(measured)}, "
            f"which cannot be compared with {type(expected).__name__} {format_value(expected)}"
        )
    return bool(measured == expected)


def _meets(expect: Expect, measured: Any) -> bool:
    """Whether ``measured`` meets ``expect``; raises :class:`Incomparable` when undecidable."""
    fields = expect.model_fields_set
    if "holds" in fields:
        if not isinstance(measured, bool):
            raise _Incomparable(f"check returned {format_value(measured)}, not true/false")
        return measured
    if "equals" in fields:
        return _equal(measured, expect.equals)
    value = _number(measured)
    try:
        if "approx" in fields and expect.approx is not None and expect.std is not None:
            centre, spread = _expected_number(expect.approx), _expected_number(expect.std)
            return abs(value - centre) <= _Z95 * spread
        if "approx" in fields and expect.approx is not None:
            tolerances = [t for t in (expect.rel_tol, expect.abs_tol) if t is not None]
            for number in (expect.approx, *tolerances):
                _expected_number(number)
            return within(value, expect.approx, expect.rel_tol, expect.abs_tol)
        if "at_most" in fields and expect.at_most is not None:
            return value <= _expected_number(expect.at_most)
        if "at_least" in fields and expect.at_least is not None:
            return value >= _expected_number(expect.at_least)
        if "between" in fields and expect.between is not None:
            low, high = (_expected_number(bound) for bound in expect.between)
            return low <= value <= high
    except OverflowError:
        raise _Incomparable("the numbers are too large to compare") from None
    raise _Incomparable("expect has no comparator")


def _proxy_source(evidence: Evidence) -> str:
    """What a proxy measurement was made on: its dataset's name, or its first detail line."""
    if evidence.data and isinstance(evidence.data.get("name"), str):
        return str(evidence.data["name"])
    first_line = evidence.details.strip().split("\n", 1)[0]
    if first_line:
        return first_line if len(first_line) <= 80 else first_line[:77] + "..."
    return "scaled-down stand-in"
