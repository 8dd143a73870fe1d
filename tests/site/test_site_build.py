"""The plugin on a real MkDocs build of a mini-site, compared with golden HTML fragments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_html import build_site, check_golden, copy_fixture, plugin_fragments

PAGES = {
    "concept": "concepts/routing.html",
    "paper": "papers/routing-paper.html",
    "dashboard": "claims-dashboard.html",
    "legend": "claims-legend.html",
    "home": "index.html",
}


@pytest.fixture(scope="module")
def unrun_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini-site built without any results store (built once for this module)."""
    return build_site(copy_fixture("minisite", tmp_path_factory.mktemp("unrun")))


@pytest.mark.parametrize("page", sorted(PAGES))
def test_without_store_matches_golden(unrun_site: Path, page: str, update_goldens: bool) -> None:
    html = (unrun_site / PAGES[page]).read_text(encoding="utf-8")
    check_golden(f"unrun-{page}.html", plugin_fragments(html), update_goldens)


def test_without_store_every_citation_is_never_run(unrun_site: Path) -> None:
    html = (unrun_site / PAGES["concept"]).read_text(encoding="utf-8")
    badges = re.findall(r'class="cc-badge cc-badge--(\w+)[^"]*" tabindex="0"', html)
    assert badges == ["multi", "unverified", "unverified", "unverified", "unverified", "multi"]
    # tab. 2 covers params and accuracy
    assert html.count('<span class="cc-sr">2 unverified</span>') == 2
    # One hover card per distinct set of claims: {params, accuracy}, {divisor}, {speed}, {}.
    assert html.count('class="cc-card"') == 4
    assert html.count("reason: never run") == 3
    assert html.count("unverified: no claim registered at this locator") == 1


def test_citation_links_to_claim_anchor(unrun_site: Path) -> None:
    concept = (unrun_site / PAGES["concept"]).read_text(encoding="utf-8")
    assert 'href="../papers/routing-paper.html#claim-params"' in concept
    assert 'href="../papers/routing-paper.html#claim-divisor"' in concept
    paper = (unrun_site / PAGES["paper"]).read_text(encoding="utf-8")
    assert 'id="claim-params"' in paper and 'id="claim-divisor"' in paper


def test_citations_in_code_stay_text(unrun_site: Path) -> None:
    home = (unrun_site / PAGES["home"]).read_text(encoding="utf-8")
    assert home.count('class="cc-cite ') == 1
    assert "<code>[arxiv:2101.12491 tab. 2]</code>" in home
    concept = (unrun_site / PAGES["concept"]).read_text(encoding="utf-8")
    code = concept[concept.index('<code class="language-python">') :]
    code = code[: code.index("</pre>")]
    assert "[arxiv:2101.12491 tab. 2]" in code and "cc-cite" not in code


def test_claims_table_replaces_marker(unrun_site: Path) -> None:
    paper = (unrun_site / PAGES["paper"]).read_text(encoding="utf-8")
    assert "claimcheck:claims" not in paper and "Claimcheck" not in paper
    assert paper.index('class="cc-evidence"') < paper.index('id="notes"')
    assert paper.index('class="cc-glance"') < paper.index('class="cc-evidence"')


def test_card_text_is_escaped_everywhere(unrun_site: Path) -> None:
    for page in unrun_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html, page
    paper = (unrun_site / PAGES["paper"]).read_text(encoding="utf-8")
    # a statement is inline Markdown through the sanitiser: the script goes, the text stays
    assert "alert(&#39;statement&#39;)" not in paper and "alert('statement')" not in paper
    assert '&amp; "quotes"' in paper
    assert "<title>Routing &lt;script&gt;alert(&#39;title&#39;)" in paper


def test_a_legend_named_in_mkdocs_yml_is_the_wikis_own(tmp_path: Path) -> None:
    project = copy_fixture("minisite", tmp_path)
    (project / "wiki" / "our-legend.md").write_text("# Our own legend\n", encoding="utf-8")
    site = build_site(project, legend_page="our-legend.md")
    legend = (site / "our-legend.html").read_text(encoding="utf-8")
    assert "Our own legend" in legend and "cc-legend" not in legend
    assert not (site / PAGES["legend"]).exists()
    dashboard = (site / PAGES["dashboard"]).read_text(encoding="utf-8")
    assert 'class="cc-legend"' in dashboard and 'href="our-legend.html"' in dashboard


def test_no_external_urls_in_minisite(unrun_site: Path) -> None:
    allowed = ("https://arxiv.org/abs/", "https://doi.org/")
    for page in unrun_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        for url in re.findall(r'(?:href|src)="((?:https?:)?//[^"]+)"', html):
            assert url.startswith(allowed), f"{page}: {url}"


def test_templates_can_be_overridden_one_by_one(tmp_path: Path) -> None:
    project = copy_fixture("minisite", tmp_path)
    overrides = project / "overrides"
    overrides.mkdir()
    (overrides / "legend.html").write_text(
        '<p class="cc-house-legend">House legend for {{ "<b>" }}</p>\n', encoding="utf-8"
    )
    site = build_site(project, templates=str(overrides))
    legend = (site / PAGES["legend"]).read_text(encoding="utf-8")
    assert '<p class="cc-house-legend">House legend for &lt;b&gt;</p>' in legend
    concept = (site / PAGES["concept"]).read_text(encoding="utf-8")
    assert 'class="cc-badge cc-badge--unverified"' in concept  # the other templates still apply
