"""CI's gate: a committed result or power entry stands only if CI re-made it alike.

A pull request can commit a result file (or a power file) by hand. CI re-makes every one that
differs from the base (``verify --recheck-results-changed-since BASE``,
:mod:`claimcheck.store.recheck`); this module compares what the pull request committed with what
CI re-made, and verify exits :attr:`~claimcheck.core.exitcodes.ExitCode.GATE` when they differ:

1. the verdict written in the committed file and the re-made one must be the same;
2. so must the fidelity (``exact`` / ``proxy``), and whether it carries a confidence interval
   (a custom check over seeds whose committed file lost its interval would otherwise be judged on
   its mean alone, whatever tier the card declares);
3. the measurement must agree within the claim's declared tolerance: a figure measured over
   seeds must have its committed mean inside the re-made confidence interval; an ``approx``
   claim's ``rel_tol``/``abs_tol``/``std`` is the band two measurements may differ by; integers,
   booleans and strings agree exactly; other numbers to :data:`FLOAT_REL` relative or
   :data:`FLOAT_ABS` absolute (float arithmetic differs between CPUs); a ``bench`` claim's
   measurement is a timing of the machine it ran on, so only its verdict and fidelity count.
4. a committed result that CI tried and could not re-make (the check errored, and the store kept
   the committed file) differs; one whose re-make measured nothing because the data or device
   is missing here (``DataUnavailable``) is not a difference but "not re-made by CI": the kept
   file then carries that attempt as its ``last_attempt``, and every published view shows it as
   unverified (:func:`claimcheck.store.status.not_remade`).

A committed result that CI does not try, because its budget is above what CI runs
(:data:`claimcheck.store.status.CI_BUDGET`), is not a difference: every published view shows it
as "unverified: not re-made by CI" (:func:`claimcheck.store.status.not_remade`). Power entries
are compared variant by variant with the same rules, and so are the fields their state is derived
from (``raised``, ``called``, the unvaried run's measurement and interval); an entry the power run
did not re-make (a training claim above CI's budget) is reported, never counted as re-made, but
once CI rewrote a claim's power file, a committed entry that file lacks (an unknown name, another
spelling of a variant, a variant the check does not reach) is a difference.
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Any, TextIO

from claimcheck.cards.frontmatter import Tier
from claimcheck.cards.wiki import ClaimRef, Wiki
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.errors import CheckReferenceError
from claimcheck.core.visible import visible
from claimcheck.store.power_results import PowerStore, VariantRun
from claimcheck.store.result import Result
from claimcheck.store.results import ResultStore
from claimcheck.store.status import ci_remakes
from claimcheck.verdicts.verdict import format_value

__all__ = ["FLOAT_ABS", "FLOAT_REL", "Committed", "GateReport", "compare", "print_gate",
           "snapshot"]

FLOAT_REL = 1e-3
FLOAT_ABS = 1e-6


@dataclass(frozen=True)
class Committed:
    """What the pull request committed, read before CI re-makes it."""

    results: dict[str, Result | None]
    power: dict[str, dict[str, VariantRun]]
    unreadable: frozenset[str] = frozenset()
    """Claims whose committed result file is there but is not a result of that claim (corrupt,
    unsafe, another claim's): verify never writes one, so a pull request that commits one fails
    the gate, even though the claim is re-made and the file replaced."""


@dataclass
class GateReport:
    """The differences that fail the gate, and what CI did not re-make (shown, not failed)."""

    differences: list[str] = field(default_factory=list)
    not_remade: list[str] = field(default_factory=list)


def snapshot(wiki: Wiki, results: frozenset[str], power: frozenset[str]) -> Committed:
    """The committed result of each claim in ``results`` and power entries of each in ``power``."""
    store = ResultStore(wiki.config.results, wiki.config.root)
    powers = PowerStore(wiki.config.results)
    committed = {key: store.read(key) for key in sorted(results)}
    unreadable = frozenset(key for key, result in committed.items()
                           if result is None and os.path.lexists(store.path_of(key)))
    return Committed(committed, {key: powers.read(key) for key in sorted(power)}, unreadable)


def compare(wiki: Wiki, committed: Committed) -> GateReport:
    """Read the store again, after the re-make, and compare it with ``committed``."""
    store = ResultStore(wiki.config.results, wiki.config.root)
    powers = PowerStore(wiki.config.results)
    claims = {ref.global_id: ref for ref in wiki.claims()}
    report = GateReport()
    for key in sorted(committed.unreadable):
        if key in claims and claims[key].claim.check is not None:
            report.differences.append(
                f"{key}: the committed result file is not a readable result of this claim "
                "(corrupt, unsafe, or another claim's moved onto it); verify never writes one")
    for key, before in committed.results.items():
        ref = claims.get(key)
        if before is None or ref is None or ref.claim.check is None:
            continue
        after = store.read(key)
        unchanged = after is not None and after.to_json() == before.to_json()
        if unchanged or not ci_remakes(ref.claim, before.budget):
            report.not_remade.append(f"{key}: not re-made by CI (budget {before.budget})")
            continue
        kept, errored = _kept(before, after)
        if kept and not errored:  # no data or device here: shown "not re-made by CI"
            report.not_remade.append(f"{key}: not re-made by CI: {kept}")
            continue
        if kept:
            report.differences.append(f"{key}: CI could not re-make it: {kept}")
            continue
        assert after is not None
        problem = _difference(_entry(before), _entry(after), ref.claim.expect, _bench(ref.claim))
        if problem:
            report.differences.append(f"{key}: {problem}")
    for key, variants in committed.power.items():
        _compare_power(key, variants, claims.get(key), powers, report)
    return report


def _compare_power(key: str, variants: dict[str, VariantRun], ref: ClaimRef | None,
                   powers: PowerStore, report: GateReport) -> None:
    """Compare one claim's committed power entries with the re-made file. CI re-made the
    claim's power when it rewrote the file (it re-runs every variant of a changed file); a
    committed entry the rewritten file lacks (a name the catalogue does not hold, another
    spelling of a variant, a variant found unreached) is a difference, never "not re-made"."""
    remade, unreached = powers.read_file(key)
    rewritten = remade != variants
    for name, before_run in sorted(variants.items()):
        after_run = remade.get(name)
        if after_run is None and rewritten and ref is not None:
            why = ("the claim's check does not reach that variant" if name in unreached
                   else "no variant of the catalogue is stored under that name")
            report.differences.append(f"{key} under {name}: committed a power entry that CI's "
                                      f"re-made power file does not hold: {why}")
            continue
        if after_run is None or after_run == before_run:
            report.not_remade.append(f"{key} under {name}: power entry not re-made by CI")
            continue
        expect = ref.claim.expect if ref is not None else None
        bench = ref is not None and _bench(ref.claim)
        problem = (_difference(_power_entry(before_run), _power_entry(after_run), expect, bench)
                   or _derived_difference(before_run, after_run, expect, bench))
        if problem:
            report.differences.append(f"{key} under {name}: {problem}")


def print_gate(report: GateReport, stream: TextIO) -> bool:
    """Print the gate's findings (escaped: they quote committed files); ``True`` when it fails."""
    for line in report.not_remade:
        print(f"gate: {visible(line)}", file=stream)
    for line in report.differences:
        print(f"gate: FAILED: {visible(line)}", file=stream)
    if report.differences:
        print(f"gate: {len(report.differences)} committed result(s) or power entries differ "
              "from what CI re-made; the pull request must commit what verify makes "
              "(docs/reliability.md, \"What CI guarantees\")", file=stream, flush=True)
    return bool(report.differences)


@dataclass(frozen=True)
class _Entry:
    verdict: str
    fidelity: str | None
    measured: Any
    interval: dict[str, Any] | None


def _entry(result: Result) -> _Entry:
    return _Entry(result.verdict.value, result.fidelity, result.measured, result.interval)


def _power_entry(run: VariantRun) -> _Entry:
    return _Entry(run.verdict, run.fidelity, run.measured, run.interval)


def _derived_difference(before: VariantRun, after: VariantRun, expect: Any, bench: bool) -> str:
    """Why the fields a power entry's state is derived from (:func:`claimcheck.store.power.
    claim_power`: whether the check raised, what original the variant called, the unvaried
    run's measurement and interval) differ between committed and re-made; ``""`` if alike."""
    if before.raised != after.raised:
        return (f"committed raised {str(before.raised).lower()}, re-made "
                f"{str(after.raised).lower()}")
    if before.called != after.called:
        return f"committed called {before.called!r}, re-made {after.called!r}"
    if (before.base_measured is None) != (after.base_measured is None):
        return (f"committed unvaried measured {format_value(before.base_measured)}, re-made "
                f"{format_value(after.base_measured)}")
    unvaried = _difference(_Entry("", before.fidelity, before.base_measured, before.base_interval),
                           _Entry("", after.fidelity, after.base_measured, after.base_interval),
                           expect, bench)
    return f"without the variant: {unvaried}" if unvaried else ""


def _kept(before: Result, after: Result | None) -> tuple[str, bool]:
    """Why CI's re-make did not replace the committed file (``""``: it did), and whether the
    attempt errored: the store keeps a successful result when an attempt fails
    (:mod:`claimcheck.store.results`), and notes the attempt at the end of its history. An
    attempt that did not error but measured nothing lacked its data or device here."""
    if after is None:
        return "no result is stored after the re-make", True
    unchanged = dataclasses.replace(after, history=before.history,
                                    last_attempt=before.last_attempt)
    if unchanged.to_json() != before.to_json() or not after.history:
        return "", False
    attempt = after.history[-1]
    why = str(attempt.get("reason") or attempt.get("kept_earlier_result") or "it failed")
    return why, attempt.get("errored") is not False


def _bench(claim: Any) -> bool:
    try:
        return claim_tier(claim) is Tier.BENCH
    except CheckReferenceError:
        return False


def _difference(before: _Entry, after: _Entry, expect: Any, bench: bool) -> str:
    """Why ``after`` (re-made) does not reproduce ``before`` (committed); ``""`` if it does."""
    if before.verdict != after.verdict:
        return (f"committed {before.verdict} (measured {format_value(before.measured)}), "
                f"re-made {after.verdict} (measured {format_value(after.measured)})")
    if before.fidelity != after.fidelity:
        return f"committed fidelity {before.fidelity}, re-made {after.fidelity}"
    if (before.interval is None) != (after.interval is None):  # any kind, tier or none
        held = "none" if before.interval is None else "one"
        return (f"committed {held} confidence interval, re-made "
                f"{'one' if after.interval is not None else 'none'}: a figure over seeds is "
                "judged by its interval, never by its mean alone")
    if bench:
        return ""
    if not _agree(before.measured, after.measured, expect, after.interval):
        return (f"committed measured {format_value(before.measured)}, re-made "
                f"{format_value(after.measured)}, beyond {_tolerance_text(expect, after.interval)}")
    return ""


def _agree(a: Any, b: Any, expect: Any, interval: dict[str, Any] | None) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            _agree(x, y, expect, None) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool) or not _number(a) or not _number(b):
        return type(a) is type(b) and a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    x, y = float(a), float(b)
    if not (math.isfinite(x) and math.isfinite(y)):
        return x == y or (math.isnan(x) and math.isnan(y))
    low, high = _bounds(interval)
    if low is not None and high is not None:
        return low <= x <= high
    return abs(x - y) <= _allowed(expect, x, y)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _bounds(interval: dict[str, Any] | None) -> tuple[float | None, float | None]:
    if not isinstance(interval, dict):
        return None, None
    low, high = interval.get("low"), interval.get("high")
    if isinstance(low, bool) or isinstance(high, bool):
        return None, None
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        return float(low), float(high)
    return None, None


def _allowed(expect: Any, x: float, y: float) -> float:
    """How far two measurements may lie apart: the ``approx`` band the card declares, else
    float noise."""
    default = max(FLOAT_ABS, FLOAT_REL * max(abs(x), abs(y)))
    if expect is None or expect.approx is None:
        return default
    if expect.abs_tol is not None:
        return max(default, float(expect.abs_tol))
    if expect.rel_tol is not None:
        return max(default, float(expect.rel_tol) * abs(float(expect.approx)))
    if expect.std is not None:
        return max(default, float(expect.std))
    return default


def _tolerance_text(expect: Any, interval: dict[str, Any] | None) -> str:
    low, high = _bounds(interval)
    if low is not None:
        return f"the re-made confidence interval [{low:.6g}, {high:.6g}]"
    if expect is not None and expect.approx is not None:
        return "the tolerance of the claim's approx"
    return f"float noise ({FLOAT_REL:g} relative, {FLOAT_ABS:g} absolute)"
