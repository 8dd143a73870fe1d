"""The interval verdict rule: verified or contradicted only when the whole interval agrees."""

from __future__ import annotations

from typing import Any

import pytest

from claimcheck.cards.frontmatter import Claim
from claimcheck.checks.api import Evidence, Fidelity
from claimcheck.checks.stats import ChanceLevel, seed_interval
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import Verdict, describe_expect

V, C, U = Verdict.VERIFIED, Verdict.CONTRADICTED, Verdict.UNVERIFIED


def claim(expect: dict[str, Any], accept_proxy: bool = True) -> Claim:
    return Claim.model_validate({"id": "c", "cite": "tab. 1", "statement": "s", "check": "train",
                                 "expect": expect, "accept_proxy": accept_proxy})


def evidence(values: list[float], n: int | None = 1000, fidelity: Fidelity = Fidelity.PROXY,
             chance: float | None = None, higher: bool = True) -> Evidence:
    mean = sum(values) / len(values)
    extra: dict[str, Any] = {}
    if n:
        extra = {"proportions": [mean / 100], "n": n, "bounds": (0.0, 100.0)}
    if chance is not None:
        extra["chance"] = [ChanceLevel("held-out accuracy", chance, higher, tuple(values))]
    interval = seed_interval(values, 0.95, **extra)
    return Evidence(measured=interval.mean, fidelity=fidelity, interval=interval.as_record(),
                    data={"name": "mnist-5k"})


# (expect, per-seed values, verdict, substring of the reason)
ROWS: list[tuple[dict[str, Any], list[float], Verdict, str]] = [
    ({"at_least": 97.0}, [98.8, 99.0, 98.9], V, ""),
    ({"at_least": 97.0}, [97.6, 97.7, 97.8], U, "inconclusive: measured 97.7 ["),
    ({"at_least": 97.0}, [90.0, 91.0, 90.5], C, "wholly outside the expectation (at least 97)"),
    ({"at_most": 5.2}, [2.0, 2.1, 2.2], V, ""),
    ({"at_most": 5.2}, [5.0, 5.4, 5.2], U, "inconclusive"),
    ({"at_most": 0.255}, [4.0, 4.1, 4.2], C, "at most 0.255"),
    ({"between": [90, 95]}, [92.0, 93.0, 92.5], V, ""),
    ({"between": [90, 95]}, [97.0, 97.5, 97.2], C, "between 90 and 95"),
    ({"approx": 94.85, "abs_tol": 0.3}, [94.8, 94.9, 94.85], U, "inconclusive"),
    ({"approx": 50.0, "rel_tol": 0.2}, [50.0, 51.0, 49.0], V, ""),
    ({"equals": 3}, [3.0, 3.1, 2.9], U, "inconclusive"),
    ({"holds": True}, [1.0, 1.0, 1.0], U, "cannot be judged on an interval"),
]


@pytest.mark.parametrize("expect, values, verdict, reason", ROWS)
def test_interval_rule(expect: dict[str, Any], values: list[float], verdict: Verdict,
                       reason: str) -> None:
    judgement = judge(claim(expect), evidence(values))
    assert judgement.verdict is verdict, judgement.reason
    assert reason in judgement.reason


def test_a_mean_above_the_bound_with_a_wide_interval_is_inconclusive_not_verified() -> None:
    # The case: 97.7 on one seed with 1,000 held-out digits against "at least 97".
    judgement = judge(claim({"at_least": 97.0}), evidence([97.7]))
    assert judgement.verdict is U and "inconclusive" in judgement.reason
    assert "95% CI, 1 seed" in judgement.reason


def test_paper_mean_plus_std_is_compared_as_a_distribution() -> None:
    expect = {"approx": 0.25, "std": 0.005}
    assert describe_expect(claim(expect).expect) == "0.25 ± 0.005 (mean ± std)"  # type: ignore
    inside = judge(claim(expect), evidence([0.25, 0.252, 0.248], n=None))
    assert inside.verdict is V
    outside = judge(claim(expect), evidence([4.0, 4.1, 4.2], n=None))
    assert outside.verdict is C and "[0.2402, 0.2598]" in outside.reason
    # a single measurement: within 1.96 std
    assert judge(claim(expect), Evidence(measured=0.259)).verdict is V
    assert judge(claim(expect), Evidence(measured=0.261)).verdict is C


def test_no_signal_beats_any_expectation() -> None:
    at_chance = evidence([2.3, 2.0, 2.5], chance=2.22)
    judgement = judge(claim({"at_least": 0.0}), at_chance)
    assert judgement.verdict is U and judgement.reason.startswith("no signal at this budget")
    assert "chance 2.22" in judgement.reason
    error = evidence([97.5, 98.0, 97.8], chance=97.78, higher=False)
    assert judge(claim({"at_most": 99.0}), error).reason.startswith("no signal")
    assert judge(claim({"at_least": 90.0}), evidence([98.0, 98.5, 98.2], chance=10.0)
                 ).verdict is V


def test_proxy_rule_keeps_the_interval_in_the_reason() -> None:
    judgement = judge(claim({"at_most": 0.255}, accept_proxy=False), evidence([4.0, 4.1, 4.2]))
    assert judgement.verdict is U
    assert "does not accept proxies" in judgement.reason and "would violate expect" in \
        judgement.reason and "95% CI, 3 seeds" in judgement.reason


def test_the_project_level_recomputes_a_stored_interval() -> None:
    stored = evidence([97.2, 97.9, 97.6], n=4000)
    assert judge(claim({"at_least": 97.0}), stored, 0.80).verdict is V
    assert judge(claim({"at_least": 97.0}), stored, 0.999).verdict is U


def test_forged_or_broken_interval_records_are_not_trusted() -> None:
    honest = evidence([98.8, 99.0, 98.9])
    forged = Evidence(measured=99.9, fidelity=Fidelity.PROXY, interval=honest.interval)
    judgement = judge(claim({"at_least": 97.0}), forged)
    assert judgement.verdict is U and "disagrees with the mean of its own seeds" in \
        judgement.reason
    broken = Evidence(measured=99.0, interval={"values": "x"})
    assert judge(claim({"at_least": 97.0}), broken).reason == \
        "the stored confidence interval cannot be read"


def test_a_stored_result_is_judged_again_by_its_interval() -> None:
    from claimcheck.store.results import Result
    from claimcheck.verdicts.verdict import Verdict as Verdicts

    stored = evidence([97.2, 97.9, 97.6], n=4000)
    result = Result(claim="x/c", card="c.md", line=1, statement="s", cite=["tab. 1"],
                    check="train", tier="train", budget="short", verdict=Verdicts.VERIFIED,
                    reason="", measured=stored.measured, expected={"at_least": 97.0},
                    fidelity="proxy", fingerprint="f", interval=stored.interval)
    assert judge(claim({"at_least": 97.0}), result.as_evidence(), 0.80).verdict is V
    assert judge(claim({"at_least": 97.0}), result.as_evidence(), 0.999).verdict is U
