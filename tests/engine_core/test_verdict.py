"""Verdict comparator table: every comparator verifies one row and contradicts another."""

from __future__ import annotations

from typing import Any

import pytest

from claimcheck.cards.frontmatter import Claim
from claimcheck.checks.api import Evidence, Fidelity
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import Judgement, Verdict, unverified

V, C, U = Verdict.VERIFIED, Verdict.CONTRADICTED, Verdict.UNVERIFIED


def make_claim(expect: dict[str, Any], accept_proxy: bool = False) -> Claim:
    return Claim.model_validate(
        {
            "id": "c",
            "cite": "tab. 1",
            "statement": "a statement",
            "check": "params",
            "expect": expect,
            "accept_proxy": accept_proxy,
        }
    )


# (expect, measured, verdict, substring of the reason)
ROWS: list[tuple[dict[str, Any], Any, Verdict, str]] = [
    ({"equals": 5}, 5, V, ""),
    ({"equals": 5}, 5.0, V, ""),
    ({"equals": 5}, 6, C, "measured 6, expected 5"),
    ({"equals": 0.1}, 0.1000001, C, "measured 0.1, expected 0.1"),
    ({"equals": [1152, 8]}, [1152, 8], V, ""),
    ({"equals": [1152, 8]}, [1152, 16], C, "measured [1152, 16], expected [1152, 8]"),
    ({"equals": [1152, 8]}, [1152], C, "measured [1152]"),
    ({"equals": [1152, 8]}, 1152, U, "not a list"),
    ({"equals": "softmax"}, "softmax", V, ""),
    ({"equals": "softmax"}, "sigmoid", C, "measured 'sigmoid', expected 'softmax'"),
    ({"equals": "softmax"}, 3, U, "cannot be compared"),
    ({"equals": 3}, True, U, "not a number"),
    ({"approx": 161000, "rel_tol": 0.005}, 161500, V, ""),
    ({"approx": 161000, "rel_tol": 0.005}, 2205184,
     C, "measured 2205184, expected approx 161000 ± 0.5%"),
    ({"approx": 0.5, "abs_tol": 0.01}, 0.505, V, ""),
    ({"approx": 0.5, "abs_tol": 0.01}, 0.52, C, "expected approx 0.5 ± 0.01"),
    ({"approx": 0.5, "abs_tol": 0.01}, "0.5", U, "not a number"),
    ({"approx": 0.5, "abs_tol": 0.01}, float("nan"), U, "not a finite number"),
    ({"at_most": 3}, 3, V, ""),
    ({"at_most": 3}, 3.5, C, "measured 3.5, expected at most 3"),
    ({"at_least": 99.0}, 99.2, V, ""),
    ({"at_least": 99.0}, 98.7, C, "measured 98.7, expected at least 99"),
    ({"at_least": 99.0}, [99.5], U, "not a number"),
    ({"between": [1, 2]}, 1, V, ""),
    ({"between": [1, 2]}, 2, V, ""),
    ({"between": [1, 2]}, 2.01, C, "measured 2.01, expected between 1 and 2"),
    ({"holds": True}, True, V, ""),
    ({"holds": True}, False, C, "measured false, expected the property to hold"),
    ({"holds": True}, 1, U, "check returned 1, not true/false"),
    ({"holds": True}, "yes", U, "not true/false"),
    ({"at_most": 3}, None, U, "check returned no measurement"),
]


@pytest.mark.parametrize(("expect", "measured", "verdict", "reason"), ROWS)
def test_comparator_table(expect: dict[str, Any], measured: Any, verdict: Verdict,
                          reason: str) -> None:
    judgement = judge(make_claim(expect), Evidence(measured=measured))
    assert judgement.verdict is verdict
    assert reason in judgement.reason
    if verdict is not V:
        assert judgement.reason


def test_every_comparator_has_a_verifying_and_a_contradicting_row() -> None:
    comparators = {"equals", "approx", "at_most", "at_least", "between", "holds"}
    for wanted in (V, C):
        covered = {
            next(iter(set(expect) & comparators)) for expect, _, verdict, _ in ROWS
            if verdict is wanted
        }
        assert covered == comparators


@pytest.mark.parametrize(
    ("measured", "outcome"),
    [(97.5, "would meet expect (at least 97)"), (96.0, "would violate expect (at least 97)")],
)
def test_proxy_evidence_needs_accept_proxy(measured: float, outcome: str) -> None:
    evidence = Evidence(measured=measured, fidelity=Fidelity.PROXY, data={"name": "mnist-5k"})
    judgement = judge(make_claim({"at_least": 97}), evidence)
    assert judgement.verdict is U
    assert judgement.reason == (
        f"proxy measurement (mnist-5k): the claim does not accept proxies; measured "
        f"{measured:g}, {outcome}"
    )


def test_proxy_source_falls_back_to_details() -> None:
    evidence = Evidence(measured=1, fidelity=Fidelity.PROXY, details="3 epochs on 5k images\nmore")
    reason = judge(make_claim({"equals": 1}), evidence).reason
    assert reason.startswith("proxy measurement (3 epochs on 5k images):")


@pytest.mark.parametrize(("measured", "verdict"), [(97.5, V), (96.0, C)])
def test_proxy_evidence_decides_when_accepted(measured: float, verdict: Verdict) -> None:
    evidence = Evidence(measured=measured, fidelity=Fidelity.PROXY)
    assert judge(make_claim({"at_least": 97}, accept_proxy=True), evidence).verdict is verdict


def test_proxy_string_fidelity_is_understood() -> None:
    evidence = Evidence(measured=1, fidelity="proxy")  # type: ignore[arg-type]
    assert judge(make_claim({"equals": 1}), evidence).verdict is U


def test_unverified_requires_a_reason() -> None:
    assert unverified("dataset not available: smallnorb") == Judgement(
        U, "dataset not available: smallnorb"
    )
    with pytest.raises(ValueError):
        unverified("  ")


def test_claim_without_check_keeps_its_reason() -> None:
    claim = Claim.model_validate(
        {"id": "c", "cite": "eq. 5", "statement": "s", "unverified": "paper body unreadable"}
    )
    assert judge(claim, Evidence(measured=1)) == Judgement(U, "paper body unreadable")


def test_verdict_is_a_str_enum() -> None:
    assert Verdict("contradicted") is C
    assert C == "contradicted"


@pytest.mark.parametrize(
    ("expected", "rel_tol"), [(100.0, 0.05), (161000, 0.005), (-2.0, 0.1), (0.3, 0.2)]
)
def test_approx_rel_tol_is_a_band_symmetric_around_the_expectation(
    expected: float, rel_tol: float
) -> None:
    """``approx E ± r`` means |measured - E| <= r·|E|, on both sides, as the reason says; not
    ``math.isclose``, which scales by the larger of the two values."""
    claim = make_claim({"approx": expected, "rel_tol": rel_tol})
    band = rel_tol * abs(expected)
    just = band * 1e-6
    for edge in (expected - band, expected + band):
        inside = edge + just if edge < expected else edge - just
        outside = edge - just if edge < expected else edge + just
        assert judge(claim, Evidence(measured=inside)).verdict is V, inside
        verdict = judge(claim, Evidence(measured=outside))
        assert verdict.verdict is C, outside
        assert f"± {rel_tol * 100:g}%" in verdict.reason


def test_approx_above_the_band_by_isclose_is_contradicted() -> None:
    """E = 100, r = 5%: 105.1 lies above the band; math.isclose(105.1, 100, rel_tol=0.05) says
    it is close (0.05 · 105.1 = 5.26 > 5.1)."""
    claim = make_claim({"approx": 100, "rel_tol": 0.05})
    assert judge(claim, Evidence(measured=105.1)).verdict is C
    assert judge(claim, Evidence(measured=94.9)).verdict is C


@pytest.mark.parametrize(
    ("expect", "measured"),
    [({"approx": 1e10, "rel_tol": 0.1}, 10**400), ({"at_most": 1.5}, 10**400),
     ({"equals": 1.5}, -(10**400)), ({"between": [0, 1]}, [10**400])],
)
def test_an_integer_too_large_for_a_float_is_incomparable(
    expect: dict[str, Any], measured: Any
) -> None:
    judgement = judge(make_claim(expect), Evidence(measured=measured))
    assert judgement.verdict is U
    assert "too large" in judgement.reason or "not a number" in judgement.reason


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_non_finite_expectation_is_never_judged(value: float) -> None:
    for expect in ({"approx": value, "rel_tol": 0.1}, {"at_most": value}, {"equals": value}):
        judgement = judge(make_claim(expect), Evidence(measured=1.0))
        assert judgement.verdict is U and "not a finite number" in judgement.reason
