"""Pure rendering: aggregation, formatting and escaping, without MkDocs."""

from __future__ import annotations

import dataclasses
import re

import pytest

from claimcheck.site.render import Renderer, papers_summary, tiers_summary
from claimcheck.site.views import (
    NO_CLAIM,
    ClaimView,
    citation_view,
    format_expect,
    format_value,
    tally,
    worst_verdict,
)

HOSTILE = "<script>alert(\"x\")</script> & 'quotes'"


def _claim(claim_id: str, verdict: str, **changes: object) -> ClaimView:
    base = ClaimView(
        global_id=f"2101.12491/{claim_id}", arxiv="2101.12491", claim_id=claim_id,
        paper_title="Paper", card_path="wiki/papers/p.md", locators="tab. 2",
        statement=f"Statement of {claim_id}.", check="params", check_source=None,
        expected="≈ 161,000 (±0.5%)", measured="161,824", verdict=verdict, reason="",
        stale=False, errored=False, fidelity="exact", tier="static", budget="smoke",
        run_date="2026-11-29 12:00 UTC", details="",
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["verified", "contradicted", "unverified"], "contradicted"),
        (["verified", "unverified"], "unverified"),
        (["verified", "verified"], "verified"),
        ([], "unverified"),
    ],
)
def test_worst_verdict_wins(verdicts: list[str], expected: str) -> None:
    assert worst_verdict(verdicts) == expected


def test_citation_without_claims_is_unverified() -> None:
    cite = citation_view("[arxiv:2101.12491 §9]", "arxiv:2101.12491", [], "p.html")
    assert (cite.verdict, cite.note, cite.stale) == ("unverified", NO_CLAIM, False)


def test_citation_is_stale_when_any_claim_is() -> None:
    claims = [_claim("a", "verified"), _claim("b", "verified", stale=True)]
    assert citation_view("[x]", "k", claims, "#").stale


@pytest.mark.parametrize(
    ("expect", "text"),
    [
        ({"approx": 161000, "rel_tol": 0.005}, "≈ 161,000 (±0.5%)"),
        ({"approx": 0.5, "abs_tol": 0.01}, "≈ 0.5 (±0.01)"),
        ({"at_most": 2.0}, "≤ 2"),
        ({"at_least": 99.7}, "≥ 99.7"),
        ({"between": [1, 3]}, "between 1 and 3"),
        ({"equals": [1, 10, 32]}, "= [1, 10, 32]"),
        ({"holds": True}, "holds"),
        (None, "—"),
    ],
)
def test_format_expect(expect: dict[str, object] | None, text: str) -> None:
    assert format_expect(expect) == text


def test_format_value() -> None:
    assert [format_value(v) for v in (None, True, 8215568, 42, 0.123456, "x")] == [
        "—", "true", "8,215,568", "42", "0.1235", "x"
    ]


def test_badge_has_symbol_label_and_card_link() -> None:
    claims = [_claim("a", "verified"), _claim("b", "contradicted", measured="98.93")]
    html = Renderer().citation(citation_view("[arxiv:2101.12491 tab. 2]", "k", claims, "#c"), "c7")
    assert 'class="cc-badge cc-badge--contradicted" tabindex="0" aria-describedby="c7"' in html
    assert '<span class="cc-card" role="tooltip" id="c7">' in html
    assert '<span class="cc-badge__symbol" aria-hidden="true">✗</span>' in html
    assert '<span class="cc-badge__label">contradicted</span>' in html
    assert "measured <b class=\"cc-measured\">98.93</b>" in html
    assert "\n" not in html


def test_every_card_string_is_escaped() -> None:
    hostile = _claim(
        "a", "unverified", statement=HOSTILE, reason=HOSTILE, measured=HOSTILE,
        details=HOSTILE, paper_title=HOSTILE, locators=HOSTILE,
    )
    renderer = Renderer()
    pieces = [
        renderer.citation(citation_view(HOSTILE, "k", [hostile], '"><script>'), "c0"),
        renderer.claims_table([hostile], lambda link: None, lambda claim: None),
        renderer.dashboard([hostile], {"2101.12491": "p.html"}, lambda c: "#", None),
        renderer.report("t", "wiki", "now", [hostile], lambda link: None),
    ]
    for html in pieces:
        assert "<script>" not in html
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;quotes&#39;" in html


def test_dashboard_counts() -> None:
    claims = [
        _claim("a", "verified"),
        _claim("b", "contradicted", tier="train"),
        _claim("c", "unverified", stale=True),
    ]
    html = Renderer().dashboard(claims, {}, lambda c: f"#{c.anchor}", "legend.html")
    numbers = re.findall(r'cc-total__number">(\d+)<', html)
    assert numbers == ["1", "1", "1", "1"]
    assert html.count('href="#claim-b"') == 2  # contradiction list and the table
    assert [name for name, _ in tiers_summary(claims)] == ["static", "train"]
    assert papers_summary(claims, {})[0].counts == tally(claims)
