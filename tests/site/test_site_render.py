"""Pure rendering: aggregation, formatting and escaping, without MkDocs."""

from __future__ import annotations

import dataclasses
import re

import pytest

from claimcheck.site.citeview import NO_CLAIM, CardBook, CitationView, ClaimLinks
from claimcheck.site.render import Renderer, papers_summary, tiers_summary
from claimcheck.site.views import ClaimView, format_expect, format_value, tally

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


def _cite(claims: list[ClaimView], text: str = "[arxiv:2101.12491 tab. 2]") -> CitationView:
    return CitationView(text, tuple(claims), "#c", "cc-card-0")


def _book() -> CardBook:
    return CardBook(lambda claim: ClaimLinks(f"p.html#{claim.anchor}", "p.html#cc-cite-3-1"))


def test_several_claims_show_counts_never_one_aggregate() -> None:
    claims = [_claim(n, "verified") for n in "abc"] + [_claim(n, "unverified") for n in "de"]
    cite = _cite(claims)
    assert cite.segments == [("unverified", 2), ("verified", 3)]  # ✗ ? ✓
    html = Renderer().citation(cite)
    assert 'class="cc-badge cc-badge--multi" tabindex="0" aria-describedby="cc-card-0"' in html
    assert '<span class="cc-sr">2 unverified, 3 verified</span>' in html  # no aria-label on a span
    assert ">✓3</span>" in html and ">?2</span>" in html
    assert "cc-badge--unverified" not in html and "\n" not in html


def test_citation_without_claims_is_unverified() -> None:
    card = _book().card_for([])
    cite = CitationView("[arxiv:2101.12491 §9]", (), "p.html", card.card_id)
    assert (cite.verdict, card.note, cite.stale) == ("unverified", NO_CLAIM, False)


def test_citation_is_stale_when_any_claim_is() -> None:
    claims = [_claim("a", "verified"), _claim("b", "verified", stale=True)]
    assert _cite(claims).stale and _cite(claims).counts.stale == 1


def test_cards_are_shared_by_citations_of_the_same_claims() -> None:
    book = _book()
    first = book.card_for([_claim("a", "verified")])
    assert book.card_for([_claim("a", "verified")]) is first
    assert book.card_for([_claim("b", "verified")]).card_id == "cc-card-1"
    html = Renderer().hover_cards(book.cards)
    assert html.startswith('<div class="cc-cards" data-search-exclude hidden>')
    assert html.count('class="cc-card"') == 2


def test_contradicted_card_links_to_its_row_and_explanation() -> None:
    book = _book()
    book.card_for([_claim("a", "verified"), _claim("b", "contradicted", measured="98.93")])
    html = Renderer().hover_cards(book.cards)
    assert "covers 2 claims: ✗1 contradicted ✓1 verified" in html
    assert html.count('<a href="p.html#claim-a">full evidence</a>') == 1
    row, explanation = "p.html#claim-b", "p.html#cc-cite-3-1"
    assert f'<a href="{row}">full evidence</a> · <a href="{explanation}">explanation</a>' in html
    assert html.count("explanation") == 1  # a verified claim needs none


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
    claim = _claim("b", "contradicted", measured="98.93")
    html = Renderer().citation(_cite([claim]))
    badge = 'class="cc-badge cc-badge--contradicted" tabindex="0" aria-describedby="cc-card-0"'
    assert badge in html
    assert '<span class="cc-badge__symbol" aria-hidden="true">✗</span>' in html
    assert '<span class="cc-badge__label">contradicted</span>' in html
    assert "\n" not in html
    book = _book()
    book.card_for([claim])
    cards = Renderer().hover_cards(book.cards)
    assert '<span class="cc-card" role="tooltip" id="cc-card-0">' in cards
    assert "measured <b class=\"cc-measured\">98.93</b>" in cards


def test_every_card_string_is_escaped() -> None:
    hostile = _claim(
        "a", "unverified", statement=HOSTILE, reason=HOSTILE, measured=HOSTILE,
        details=HOSTILE, paper_title=HOSTILE, locators=HOSTILE,
    )
    renderer = Renderer()
    book = _book()
    book.card_for([hostile])
    pieces = [
        renderer.citation(CitationView(HOSTILE, (hostile,), '"><script>', "c0")),
        renderer.hover_cards(book.cards),
        renderer.claims_table([hostile], lambda link: None, lambda claim: None),
        renderer.dashboard([hostile], {"2101.12491": "p.html"}, lambda c: "#", None),
        renderer.report("t", "wiki", "now", [hostile], lambda link: None),
    ]
    for html in pieces:
        assert "<script>" not in html
    for html in pieces[1:]:
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;quotes&#39;" in html


def test_dashboard_counts() -> None:
    claims = [
        _claim("a", "verified"),
        _claim("b", "contradicted", tier="train"),
        _claim("c", "unverified", stale=True),
    ]
    html = Renderer().dashboard(claims, {}, lambda c: f"#{c.anchor}", "legend.html")
    rows = re.findall(r'<tr><th scope="row">([^<]+)</th>(.*?)</tr>', html)
    assert [kind for kind, _ in rows] == ["basis not stated"]  # one row per evidence kind
    assert re.findall(r'cc-total--\w+">(\d+)<', rows[0][1]) == ["1", "1", "1", "1"]
    assert html.count('href="#claim-b"') == 2  # contradiction list and the table
    assert [name for name, _ in tiers_summary(claims)] == ["static", "train"]
    assert papers_summary(claims, {})[0].counts == tally(claims)
