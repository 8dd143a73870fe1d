"""The plugin with a results store: badges, aggregation, stale markers, curves, strictness."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import Abort
from site_html import build_site, check_golden, copy_fixture, plugin_fragments
from store_fixture import MINISITE_RESULTS, write_results

PAGES = {
    "concept": "concepts/routing.html",
    "paper": "papers/routing-paper.html",
    "dashboard": "claims-dashboard.html",
}


@pytest.fixture(scope="module")
def stored_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini-site with a store: params verified, accuracy contradicted, speed stale."""
    project = copy_fixture("minisite", tmp_path_factory.mktemp("stored"))
    write_results(project, MINISITE_RESULTS)
    return project


@pytest.fixture(scope="module")
def stored_site(stored_project: Path) -> Path:
    return build_site(stored_project)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_with_store_matches_golden(stored_site: Path, page: str, update_goldens: bool) -> None:
    html = (stored_site / PAGES[page]).read_text(encoding="utf-8")
    check_golden(f"stored-{page}.html", plugin_fragments(html), update_goldens)


def _citation_verdicts(html: str) -> list[tuple[str, bool]]:
    return [
        (verdict, bool(stale))
        for verdict, stale in re.findall(
            r'class="cc-badge cc-badge--(\w+)( cc-badge--stale)?" tabindex="0"', html
        )
    ]


def test_counts_per_verdict_and_stale_is_marked(stored_site: Path) -> None:
    html = (stored_site / PAGES["concept"]).read_text(encoding="utf-8")
    assert _citation_verdicts(html) == [
        ("multi", False),  # tab. 2: params verified + accuracy contradicted, shown as ✓1 ✗1
        ("unverified", False),  # eq. 5: an unverified-by-design claim
        ("verified", True),  # tab. 3: speed, stored under another fingerprint
        ("unverified", False),  # §9: no claim there
        ("unverified", False),  # a paper without a card
        ("multi", False),  # the table cell
    ]
    assert html.count('<span class="cc-sr">1 contradicted, 1 verified</span>') == 2
    segments = '>✗1</span><span class="cc-seg cc-seg--verified" aria-hidden="true">✓1<'
    assert html.count(segments) == 2
    assert "98.93" in html and "161,500" in html
    assert 'href="../papers/routing-paper.html#claim-params"' in html


def test_contradicted_card_links_to_row_and_explanation(stored_site: Path) -> None:
    html = (stored_site / PAGES["concept"]).read_text(encoding="utf-8")
    card = html[html.index('<span class="cc-card" role="tooltip" id="cc-card-0">') :]
    card = card[: card.index('<span class="cc-card" role="tooltip" id="cc-card-1">')]
    assert '<a href="../papers/routing-paper.html#claim-accuracy">full evidence</a>' in card
    explanation = '<a href="../papers/routing-paper.html#cc-cite-46-64">explanation</a>'
    assert explanation in card
    paper = (stored_site / PAGES["paper"]).read_text(encoding="utf-8")
    assert 'id="cc-cite-46-64"' in paper


def test_each_hover_card_is_rendered_once_and_not_searched(stored_site: Path) -> None:
    """Six citations of four sets of claims: four cards, kept out of the search index."""
    html = (stored_site / PAGES["concept"]).read_text(encoding="utf-8")
    cited = re.findall(r'class="cc-badge[^"]*" tabindex="0" aria-describedby="(cc-card-\d+)"', html)
    cards = re.findall(r'<span class="cc-card" role="tooltip" id="(cc-card-\d+)">', html)
    assert len(cited) == 6 and sorted(set(cited)) == sorted(cards) and len(cards) == 4
    assert html.count('<div class="cc-cards" data-search-exclude hidden>') == 1
    index = json.loads((stored_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = json.dumps(index)
    assert "cc-card" not in text and "full evidence" not in text
    assert any("Self-attention routing is cheap" in doc["text"] for doc in index["docs"])


def test_concept_strip_counts_cited_claims(stored_site: Path) -> None:
    html = (stored_site / PAGES["concept"]).read_text(encoding="utf-8")
    strip = html[html.index('class="cc-strip"') :]
    strip = strip[: strip.index("</div>")]
    strip = strip[: strip.index("</ul>")]
    rows = re.findall(r'cc-strip__name">([^<]+):</span>(.*?)</li>', strip)
    values: dict[str, int] = {}
    for _, row in rows:
        for number, name in re.findall(r"</span> (\d+) (verified|contradicted|unverified|stale)",
                                       row):
            values[name] = values.get(name, 0) + int(number)
    assert values == {"verified": 2, "contradicted": 1, "unverified": 3, "stale": 1}
    assert len(rows) >= 2  # the evidence kinds are counted apart, never summed in the strip


def test_training_curve_is_copied_into_the_site(stored_site: Path) -> None:
    curve = stored_site / "claimcheck" / "artifacts" / "2101.12491__accuracy.svg"
    assert curve.read_text(encoding="utf-8").startswith("<svg")
    paper = (stored_site / PAGES["paper"]).read_text(encoding="utf-8")
    assert '<img src="../claimcheck/artifacts/2101.12491__accuracy.svg"' in paper


def test_store_text_is_escaped(stored_site: Path) -> None:
    paper = (stored_site / PAGES["paper"]).read_text(encoding="utf-8")
    assert "<img src=x" not in paper and "<script>alert" not in paper
    assert "&lt;img src=x onerror=&#34;alert(&#39;reason&#39;)&#34;&gt;" in paper


def test_strict_verdicts_turns_stale_claims_into_warnings(stored_project: Path) -> None:
    with pytest.raises(Abort):
        build_site(stored_project, strict_verdicts=True)
    build_site(stored_project, strict_verdicts=False)


def test_every_view_of_a_verdict_names_its_basis(stored_site: Path) -> None:
    paper = (stored_site / PAGES["paper"]).read_text(encoding="utf-8")
    label = '<span class="cc-badge__label">verified</span>'
    assert label + '<span class="cc-badge__basis">paper</span>' in paper
    assert '<span class="cc-badge__basis">our code</span>' in paper  # accuracy: implementation
    assert "† from a secondary source: seed card shared/seeds/000" in paper
    assert ("quote: <q>The model has 161K parameters.</q> (quote not yet checked against the "
            "paper)") in paper
    concept = (stored_site / PAGES["concept"]).read_text(encoding="utf-8")
    assert 'basis <b class="cc-basis"' in concept and "basis not stated" in concept  # speed
    dashboard = (stored_site / PAGES["dashboard"]).read_text(encoding="utf-8")
    per_basis = dashboard[dashboard.index('id="per-basis"') : dashboard.index('id="every-claim"')]
    cells = r"<tr><td>([\w -]+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>"
    rows = re.findall(cells, per_basis)
    assert rows == [("paper-vs-code", "1", "0", "0"), ("implementation", "0", "1", "0"),
                    ("not stated", "1", "0", "1")]
