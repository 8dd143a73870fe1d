"""The claim graph: one per paper and an overview, every node a link, and a build without dot."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest
from site_html import build_site, copy_fixture
from store_fixture import MINISITE_RESULTS, write_results

from claimcheck.site.graph import MAX_CITERS, Citer, paper_dot, quoted
from claimcheck.site.views import ClaimView

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")


@pytest.fixture(scope="module")
def graph_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_fixture("minisite", tmp_path_factory.mktemp("graph"))
    write_results(project, MINISITE_RESULTS)
    return build_site(project)


def _svg(html: str) -> str:
    figure = html[html.index('<figure class="cc-graph"') :]
    return figure[: figure.index("</figure>")]


@needs_dot
def test_a_papers_graph_links_claims_and_citing_pages(graph_site: Path) -> None:
    svg = _svg((graph_site / "claim-graph" / "2101.12491.html").read_text(encoding="utf-8"))
    links = set(re.findall(r'<a (?:xlink:)?href="([^"]+)"', svg))
    claims = {f"../papers/routing-paper.html#claim-{name}"
              for name in ("params", "accuracy", "speed", "divisor")}
    assert claims <= links
    assert {"../concepts/routing.html", "../index.html", "../papers/routing-paper.html"} <= links
    assert svg.count('fill="#b3261e"') == 1  # accuracy, contradicted
    assert svg.count('fill="#1b6e35"') == 2  # params, and speed (stale)
    assert "⟳ stale" in svg and 'stroke-dasharray' in svg
    assert "<script" not in svg and " on" not in svg.replace(" one", "")


@needs_dot
def test_the_overview_links_each_papers_graph(graph_site: Path) -> None:
    html = (graph_site / "claim-graph.html").read_text(encoding="utf-8")
    svg = _svg(html)
    assert 'href="claim-graph/2101.12491.html"' in svg
    assert 'href="concepts/routing.html"' in svg  # few citing pages: drawn
    # one line per evidence kind, never one count across kinds
    assert "paper: ✓1" in svg and "our code: ✗1" in svg and "basis?: ✓1 ?1 ⟳1" in svg


def test_without_dot_the_graph_pages_keep_their_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    project = copy_fixture("minisite", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    with caplog.at_level(logging.INFO):
        site = build_site(project)
    assert "Graphviz's dot is not installed; claim graphs are tables only" in caplog.text
    html = (site / "claim-graph" / "2101.12491.html").read_text(encoding="utf-8")
    assert "<svg" not in html[html.index('<div class="cc-graph-page">') :]
    assert "apt-get install graphviz" in html
    assert 'href="../papers/routing-paper.html#claim-accuracy"' in html


def test_dot_strings_cannot_add_attributes() -> None:
    assert quoted('a" image="/etc/passwd', "b\\lc &amp;") == (
        '"a\\" image=\\"/etc/passwd\\nb\\\\lc &amp;amp;"'
    )


def test_a_paper_cited_by_many_pages_stays_readable() -> None:
    claim = ClaimView(
        global_id="2101.12491/c", arxiv="2101.12491", claim_id="c", paper_title="P",
        card_path="wiki/p.md", locators="tab. 1", statement="S.", check="params",
        check_source=None, expected="= 1", measured="1", verdict="verified", reason="",
        stale=False, errored=False, fidelity="exact", tier="static", budget="smoke",
        run_date="—", details="",
    )
    citers = {claim.global_id: [Citer(f"c{n}.md", f"Concept {n}") for n in range(100)]}
    dot = paper_dot("2101.12491", "P", [claim], citers, None, lambda view: "#", lambda src: src)
    assert dot.count("shape=\"ellipse\"") == MAX_CITERS
    assert f"{100 - MAX_CITERS} more citations (listed below)" in dot


def test_a_papers_claims_are_boxed_by_locator_and_linked_to_pages_once_per_box() -> None:
    """30 claims at three locators, each cited by the same five pages: 3 boxes, 15 page edges."""
    claims = [
        ClaimView(
            global_id=f"2101.12491/c{n}", arxiv="2101.12491", claim_id=f"c{n}", paper_title="P",
            card_path="wiki/p.md", locators=f"tab. {n % 3 + 1}", statement="S.", check="params",
            check_source=None, expected="= 1", measured="1", verdict="verified", reason="",
            stale=False, errored=False, fidelity="exact", tier="static", budget="smoke",
            run_date="—", details="",
        )
        for n in range(30)
    ]
    citers = {claim.global_id: [Citer(f"p{n}.md", f"Page {n}") for n in range(5)]
              for claim in claims}
    dot = paper_dot("2101.12491", "P", claims, citers, None, lambda view: "#", lambda src: src)
    assert dot.count("subgraph cluster_") == 3
    assert {'label="tab. 1"', 'label="tab. 2"', 'label="tab. 3"'} <= set(
        re.findall(r'label="tab\. \d"', dot))
    assert len(re.findall(r"-> p\d+ \[ltail=cluster_\d\]", dot)) == 15
    assert len(re.findall(r"paper -> c\d+ \[lhead=cluster_\d\]", dot)) == 3
