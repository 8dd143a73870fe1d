"""The verdict of one claim: its evidence judged against the card's ``expect``.

A measurement with a confidence interval (several seeds) is judged by
:func:`~claimcheck.verdicts.interval.judge_interval`; a single measurement by the comparators of
:mod:`claimcheck.verdicts.verdict`. Either way the fidelity rule applies: a ``proxy`` measurement
never verifies or contradicts a claim that does not accept proxies.
"""

from __future__ import annotations

from claimcheck.cards.frontmatter import Claim
from claimcheck.checks.api import Evidence, Fidelity
from claimcheck.verdicts.interval import judge_interval
from claimcheck.verdicts.verdict import (
    Judgement,
    Verdict,
    _Incomparable,
    _meets,
    _proxy_source,
    describe_expect,
    format_value,
    unverified,
)


def judge(claim: Claim, evidence: Evidence, confidence: float | None = None) -> Judgement:
    """Decide the verdict of ``claim`` from ``evidence`` (comparators plus the fidelity rule).

    ``confidence`` is the project's confidence level for evidence with an interval (default:
    the level the interval was stored with).
    """
    if claim.expect is None:
        return unverified(claim.unverified or "the claim has no expect to compare with")
    expect = claim.expect
    if evidence.measured is None:
        return unverified("check returned no measurement")
    try:
        fidelity = Fidelity(evidence.fidelity)
    except ValueError:
        return unverified(f"check returned unknown fidelity {evidence.fidelity!r}")
    if evidence.interval is not None:
        return judge_interval(claim, evidence, fidelity, confidence)
    shown = format_value(evidence.measured)
    wanted = describe_expect(expect)
    try:
        met: bool | None = _meets(expect, evidence.measured)
        problem = ""
    except _Incomparable as exc:
        met, problem = None, str(exc)
    except (TypeError, ValueError, RecursionError) as exc:  # a hostile stored value
        met, problem = None, f"the measurement cannot be compared ({type(exc).__name__})"
    if fidelity is Fidelity.PROXY and not claim.accept_proxy:
        if met is None:
            outcome = f"cannot be compared ({problem})"
        else:
            outcome = f"would {'meet' if met else 'violate'} expect ({wanted})"
        return unverified(
            f"proxy measurement ({_proxy_source(evidence)}): the claim does not accept proxies; "
            f"measured {shown}, {outcome}"
        )
    if met is None:
        return unverified(problem)
    if met:
        return Judgement(Verdict.VERIFIED)
    if "holds" in expect.model_fields_set:
        return Judgement(Verdict.CONTRADICTED, "measured false, expected the property to hold")
    return Judgement(Verdict.CONTRADICTED, f"measured {shown}, expected {wanted}")
