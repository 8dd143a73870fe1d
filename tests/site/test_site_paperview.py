"""A paper page's lines, shared notes, evidence kinds and power, rendered without MkDocs."""

from __future__ import annotations

import dataclasses
import re

import pytest

from claimcheck.site.about import About
from claimcheck.site.paperview import PageNotes, glance_groups, short_statement
from claimcheck.site.powerfigures import power_figures
from claimcheck.site.powerview import CatalogueEntry, power_entries, power_words
from claimcheck.site.render import Renderer
from claimcheck.site.views import ClaimView, format_value, kind_tallies

HOSTILE = "<script>alert(1)</script>"


def _claim(claim_id: str, verdict: str, basis: str = "paper-vs-code",
           **changes: object) -> ClaimView:
    base = ClaimView(
        global_id=f"2101.12491/{claim_id}", arxiv="2101.12491", claim_id=claim_id,
        paper_title="Paper", card_path="wiki/papers/p.md", locators="tab. 2",
        statement=f"Statement of {claim_id}.", check="params", check_source=None,
        expected="≈ 161,000 (±0.5%)", measured="161,824", verdict=verdict, reason="",
        stale=False, errored=False, fidelity="exact", tier="static", budget="smoke",
        run_date="2026-11-29 12:00 UTC", details="", about=About(basis=basis),
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def _power(*states: str, listed: bool = True) -> dict[str, object]:
    return {"variants": [{"name": f"v{n}", "description": f"bug {n}", "state": state,
                          "measured": 0.5, "listed": listed} for n, state in enumerate(states)]}


@pytest.mark.parametrize(("statement", "short"), [
    ("One sentence only.", "One sentence only."),
    ("First sentence. Second sentence.", "First sentence."),
    ("Code `a. B` stays whole. Then more.", "Code `a. B` stays whole."),
    ("Maths $x. Y$ stays whole. Then more.", "Maths $x. Y$ stays whole."),
    ("A 3.5 figure is not an end. Next.", "A 3.5 figure is not an end."),
    ("word " * 60, ("word " * 32).strip() + " …"),  # cut at a word, before 160 characters
    ("Open ` tick. Next " + "word " * 60, "Open …"),
])
def test_a_line_shows_the_first_sentence_never_cut_inside_code_or_maths(
    statement: str, short: str
) -> None:
    assert short_statement(statement) == short


def test_lines_group_by_verdict_then_kind() -> None:
    claims = [_claim("a", "verified", "implementation"), _claim("b", "unverified"),
              _claim("c", "verified", "reproduction"), _claim("d", "contradicted", "wiki")]
    groups = glance_groups(claims)
    assert [group.verdict for group in groups] == ["contradicted", "unverified", "verified"]
    assert [claim.claim_id for claim in groups[2].claims] == ["c", "a"]  # paper, then our code


def test_counts_are_kept_apart_by_evidence_kind() -> None:
    claims = [_claim("a", "verified", "implementation"), _claim("b", "verified", "textual"),
              _claim("c", "verified", "paper-vs-code"), _claim("d", "contradicted", "wiki")]
    rows = {row.kind: row.counts for row in kind_tallies(claims)}
    assert rows["paper"].verified == 2 and rows["code"].verified == 1
    assert rows["wiki"].contradicted == 1 and rows["wiki"].verified == 0


def test_the_paper_glance_links_every_count_and_shows_each_reason() -> None:
    claims = [_claim("a", "unverified", reason="never run", statement=HOSTILE + " More."),
              _claim("b", "contradicted", "implementation", reason=HOSTILE),
              _claim("c", "verified", power="catches 1 of 1 listed wrong variants",
                     power_entries=power_entries(_power("caught"), "/r", format_value))]
    renderer = Renderer()
    html = renderer.paper_glance(claims)
    hrefs = re.findall(r'href="#([^"]+)"', renderer.paper_strip(claims))
    assert len(hrefs) == 3
    for href in hrefs:
        assert f'id="{href}"' in html
    assert "reason: never run" in html and HOSTILE not in html
    assert "&lt;script&gt;" in html
    assert "power: catches 1 of 1 listed wrong variant" in html


@pytest.mark.parametrize(("note", "shown"), [
    ("never run: run `claimcheck verify --power`", "never run"),
    ("never run: run `claimcheck verify --power --budget short` (a training claim's variants "
     "run at its result's budget)", "never run"),
    ("the claim's result is stale", "the claim's result is stale"),
])
def test_a_variants_note_holds_no_developer_command(note: str, shown: str) -> None:
    data = {"variants": [{"name": "v", "state": "not run", "note": note}]}
    assert power_entries(data, "/r", format_value)[0].note == shown


def test_power_entries_are_read_generically_and_escaped() -> None:
    data = {"variants": [
        {"name": "v-new", "description": HOSTILE, "state": "no longer a change",
         "measured": [1, 2], "listed": False},
        {"name": "v-old", "state": "caught", "measured": None},
        {"description": "no name: skipped"},
        "not a mapping",
    ]}
    entries = power_entries(data, "/root", format_value)
    assert [entry.name for entry in entries] == ["v-new", "v-old"]
    assert entries[0].state == "no longer a change" and entries[0].slug == "no-longer-a-change"
    assert entries[0].measured == "[1, 2]" and not entries[0].listed
    assert entries[1].measured == "—" and entries[1].listed
    claim = _claim("a", "verified", power="x", power_entries=entries)
    html = Renderer().claims_table([claim], lambda link: None, lambda view: None)
    assert HOSTILE not in html and "no longer a change" in html and "(not listed)" in html


@pytest.mark.parametrize(("states", "words"), [
    ((), "no wrong variant listed"),
    (("caught", "caught"), "catches 2 of 2 listed wrong variants"),
    (("caught", "missed", "not decided"),
     "catches 1 of 3 listed wrong variants (1 missed, 1 not decided)"),
])
def test_power_in_words_counts_each_state_by_its_name(states: tuple[str, ...],
                                                       words: str) -> None:
    entries = power_entries(_power(*states), "/r", format_value)
    assert power_words("summary", entries) == words
    assert power_words("", entries) == ""  # no power data: nothing said


def test_the_dashboard_reports_figures_a_reader_can_use() -> None:
    single = _claim("a", "verified", power="x",
                    power_entries=power_entries(_power("caught", "missed"), "/r", format_value))
    double = _claim("b", "verified", power="x",
                    power_entries=power_entries(_power("caught", "caught"), "/r", format_value))
    catalogue = [CatalogueEntry("v0", "bug 0", "routing"), CatalogueEntry("v1", "bug 1", "routing"),
                 CatalogueEntry("v9", "a bug nobody catches", "losses")]
    figures = power_figures([single, double], catalogue)
    assert figures is not None
    assert figures.caught == ("v0", "v1") and [c.claim_id for c in figures.single] == ["a"]
    assert {family.name: [v.name for v in family.uncovered] for family in figures.families} == {
        "losses": ["v9"], "routing": []}
    html = Renderer().dashboard([single, double], {}, lambda c: f"#{c.anchor}", None,
                                power_href="power.html", catalogue=catalogue)
    assert "a bug nobody catches" in html and 'href="power.html"' in html
    assert "catch all of them" not in html  # the share lint guarantees is not reported


def test_a_note_shared_by_several_claims_is_said_once() -> None:
    shared = About(basis="paper-vs-code", quote="q", quote_note="quote not yet checked")
    claims = [_claim(name, "verified", about=shared) for name in "abc"]
    claims.append(_claim("d", "verified", about=About(secondary_source="only here")))
    notes = PageNotes.of(claims)
    assert notes.listed == [(1, "quote not yet checked")]
    html = Renderer().claims_table(claims, lambda link: None, lambda view: None)
    assert html.count("quote not yet checked") == 1 and html.count('href="#cc-note-1"') == 3
    assert "only here" in html
