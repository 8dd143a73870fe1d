"""The verdict of a measurement that carries a confidence interval (several seeds).

:func:`claimcheck.verdicts.judge.judge` hands evidence with an ``interval`` record here. The
record is rebuilt with :func:`claimcheck.checks.stats.interval_from_record` at the project's
confidence level (``[tool.claimcheck] confidence``), so changing the level re-judges stored results
without re-running them. Then, in order:

1. **No signal.** If a proportion the record names (the held-out accuracy, or each arm of a
   comparison) does not beat chance by a clear margin
   (:func:`claimcheck.checks.stats.clears_chance`), the verdict is ``unverified``: "no signal at
   this budget", whatever the expectation.
2. **The expectation as a band** of accepted values: ``at_least X`` is ``[X, ∞)``, ``at_most X``
   ``(-∞, X]``, ``between`` its two ends, ``approx E`` with ``abs_tol a`` ``[E - a, E + a]``,
   with ``rel_tol r`` ``E ± r·|E|``, with ``std s`` (a paper's "mean ± std over runs")
   ``E ± z·s``, the range a single run of that distribution falls in with the confidence level's
   probability (z = 1.96 at 95%), and ``equals X`` the single point X.
3. **The rule.** *verified* when the whole interval lies inside the band; *contradicted* when it
   lies wholly outside; otherwise *unverified*, "inconclusive", with the interval in the reason.
   Proxy evidence for a claim without ``accept_proxy`` stays unverified, saying what it would
   have meant, as for a single measurement.
4. **Controls.** When the record carries controls (the same seeds trained with another valid
   random stream, :class:`claimcheck.checks.stats.Control`), each is judged by 1-3 too; if any
   outcome differs from the run's own, the verdict is *unverified*, "not decided at this
   budget", with both intervals: a verdict must not depend on the random draw. This comes
   before the proxy rule.

A record whose mean disagrees with the stored ``measured`` is refused (a hand-edited result).
"""

from __future__ import annotations

import math

from claimcheck.cards.frontmatter import Claim, Expect
from claimcheck.checks.api import Evidence, Fidelity
from claimcheck.checks.stats import Interval, interval_from_record, t_quantile
from claimcheck.verdicts.verdict import (
    Judgement,
    Verdict,
    _proxy_source,
    describe_expect,
    unverified,
)


def expectation_band(expect: Expect, level: float) -> tuple[float, float] | None:
    """The values ``expect`` accepts, as a closed band; ``None`` for non-numeric comparators."""
    fields = expect.model_fields_set
    if "approx" in fields and expect.approx is not None:
        centre = float(expect.approx)
        if expect.std is not None:
            half = t_quantile(level, None) * float(expect.std)
        elif expect.rel_tol is not None:
            half = float(expect.rel_tol) * abs(centre)
        else:
            half = float(expect.abs_tol or 0.0)
        return centre - half, centre + half
    if "at_least" in fields and expect.at_least is not None:
        return float(expect.at_least), math.inf
    if "at_most" in fields and expect.at_most is not None:
        return -math.inf, float(expect.at_most)
    if "between" in fields and expect.between is not None:
        return float(expect.between[0]), float(expect.between[1])
    equals = expect.equals
    if "equals" in fields and isinstance(equals, (int, float)) and not isinstance(equals, bool):
        return float(equals), float(equals)
    return None


def band_text(expect: Expect, band: tuple[float, float], level: float) -> str:
    """The expectation in words, with the band it stands for when that is not obvious."""
    words = describe_expect(expect)
    if expect.std is not None:
        return (f"{words}: a run of that spread lies in [{band[0]:.4g}, {band[1]:.4g}] "
                f"with {level * 100:g}% probability")
    return words


def judge_interval(claim: Claim, evidence: Evidence, fidelity: Fidelity,
                   confidence: float | None) -> Judgement:
    """The verdict of ``evidence`` (which has an ``interval``) against ``claim.expect``."""
    expect = claim.expect
    if expect is None:  # judge() handles this before calling
        return unverified("the claim has no expect to compare with")
    interval = interval_from_record(evidence.interval, confidence)
    if interval is None:
        return unverified("the stored confidence interval cannot be read")
    measured = evidence.measured
    if (not isinstance(measured, (int, float)) or isinstance(measured, bool)
            or not math.isclose(float(measured), interval.mean, rel_tol=1e-6, abs_tol=1e-6)):
        return unverified(f"measured {measured!r} disagrees with the mean of its own seeds "
                          f"({interval.mean:.6g})")
    shown = interval.text()
    weak = interval.without_signal()
    if weak:
        return unverified(f"no signal at this budget: {'; '.join(weak)} (not clearly better "
                          f"than guessing); measured {shown}")
    band = expectation_band(expect, interval.level)
    if band is None:
        return unverified(f"expect ({describe_expect(expect)}) cannot be judged on an interval; "
                          f"measured {shown}")
    outcome = decide(interval, band)
    wanted = band_text(expect, band, interval.level)
    for label, other in interval.control_intervals():  # the same seeds, another random stream
        theirs = "no signal" if other.without_signal() else decide(other, band)
        if theirs != outcome:
            return unverified(
                f"not decided at this budget: {outcome} with the run's own random streams "
                f"({shown}) but {theirs} with {label} ({other.text()}) against the expectation "
                f"({wanted}); the verdict depends on the random draw, and more seeds, more "
                "held-out examples or a larger budget would settle it")
    if fidelity is Fidelity.PROXY and not claim.accept_proxy:
        would = {"verified": "meet expect", "contradicted": "violate expect",
                 "inconclusive": "be inconclusive against expect"}[outcome]
        return unverified(f"proxy measurement ({_proxy_source(evidence)}): the claim does not "
                          f"accept proxies; measured {shown}, would {would} ({wanted})")
    if outcome == "verified":
        return Judgement(Verdict.VERIFIED)
    if outcome == "contradicted":
        return Judgement(Verdict.CONTRADICTED,
                         f"measured {shown}, wholly outside the expectation ({wanted})")
    return unverified(f"inconclusive: measured {shown}, which straddles the expectation "
                      f"({wanted}); more seeds or a larger budget would narrow it")


def decide(interval: Interval, band: tuple[float, float]) -> str:
    """``verified`` (inside the band), ``contradicted`` (wholly outside) or ``inconclusive``."""
    low, high = band
    if low <= interval.low and interval.high <= high:
        return "verified"
    if interval.high < low or interval.low > high:
        return "contradicted"
    return "inconclusive"


def interval_display(record: object, level: float | None = None,
                     budget: str | None = None) -> str | None:
    """The figure as every view shows it, or ``None`` without a readable interval:
    ``97.7 [97.1, 98.3] (95% CI, 3 seeds) · chance 10 · budget short``, or, when a proportion
    does not clear chance, ``no signal at this budget: ...``."""
    if record is None:
        return None
    interval = interval_from_record(record, level)
    if interval is None:
        return None
    parts = [interval.text()]
    weak = interval.without_signal()
    if weak:
        parts = [f"no signal at this budget ({'; '.join(weak)})"]
    elif interval.chance:
        parts.append("chance " + ", ".join(f"{entry.chance:.3g}" for entry in interval.chance))
    if budget:
        parts.append(f"budget {budget}")
    return " · ".join(parts)
