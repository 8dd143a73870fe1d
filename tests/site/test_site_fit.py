"""The repository's own wiki on a laptop, a wide screen and a phone: every table fits its column,
no page is wider than a phone, and the broadest hover card fits the screen.

Read in Chromium at 1024, 1280, 1920 and 390 px wide, with every collapsed block opened, every
table of every page (a claim's wrong variants, counts, the author's own) is no wider than the
content column, and no box that holds one
scrolls sideways (``scrollWidth <= clientWidth``): expected and measured are always in view.
The one exception is an author's own Markdown table on a phone: a comparison of four papers
with maths in its cells cannot fit 390 px, and Material scrolls it inside its own box. On a
390 px phone no page a reader opens is wider than the screen, hover card open or not.

The tables and the phone are read in one pass over the site shared with test_site_reading.py
(repo_tour.py): each page opened once, its transitions off, its tables measured at each width
in turn, the open page resized through ``Emulation.setDeviceMetricsOverride`` and settled (as
on a fresh load at that width); the phone's last, where its blocks are then collapsed again as
loaded and its hover cards opened one by one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browsing import needs_chromium
from cdp import Browser
from repo_tour import WIDTHS, phone_pages, site_pages

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_every_table_fits_its_column(repo_pages: dict[str, dict[str, Any]], width: int) -> None:
    tables = 0
    problems = {}
    for page, seen in repo_pages.items():
        measured = seen["tables"][width]
        tables += measured["tables"]
        if measured["wide"]:
            problems[page] = measured["wide"]
    assert problems == {}
    assert tables > 20  # the claims tables, the dashboard's counts, the graphs' tables


def test_no_page_is_wider_than_a_phone(
    repo_pages: dict[str, dict[str, Any]], repo_site: Path
) -> None:
    problems = {}
    cards = 0
    for page in phone_pages(repo_site):
        assert page in repo_pages, f"{page} is not in the built site"
        measured = repo_pages[page]["cards"]
        cards += measured["cards"]
        if measured["wide"] or measured["closed"]:
            problems[page] = measured
    assert problems == {}
    assert cards > 50


BROADEST = """(() => {
  const cards = [...document.querySelectorAll('.cc-cards .cc-card')];
  const size = card => card.querySelectorAll('.cc-card__line').length;
  const card = cards.reduce((a, b) => size(b) > size(a) ? b : a);
  const badge = document.querySelector(`.cc-badge[aria-describedby="${card.id}"]`);
  badge.scrollIntoView({block: 'center'});
  badge.focus();
  return [card.id, size(card)];
})()"""
CARD_BOX = """new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
  const card = document.getElementById(%s);
  const box = card.getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
  const lines = [...card.querySelectorAll('.cc-card__line')];
  done({top: box.top, bottom: box.bottom, left: box.left, right: box.right,
        height: box.height, header: header, screen: innerHeight, width: innerWidth,
        lines: lines.length, linked: lines.filter(l => /#claim-/.test(l.href)).length,
        measured: lines.filter(l => / vs /.test(l.textContent)).length,
        legend: !!card.querySelector('.cc-card__legend a'),
        daggers: card.querySelectorAll('.cc-card__row.cc-secondary').length,
        dashes: (card.innerText.match(/— · tier — · budget —/g) || []).length});
})))"""


def _broadest_page(site: Path) -> str:
    """The page whose hover card covers the most claims (the wiki's broadest locator)."""
    def size(page: Path) -> int:
        html = page.read_text(encoding="utf-8")
        cards = html.split('role="tooltip"')[1:]
        return max((card.count("cc-card__line ") for card in cards), default=0)

    return max(site_pages(site), key=lambda page: size(site / page))


@pytest.mark.parametrize("width", [1280, 390])
def test_the_broadest_hover_card_fits_the_screen(
    repo_browser: Browser, repo_site: Path, repo_url: str, width: int
) -> None:
    repo_browser.set_viewport(width, WIDTHS[width])
    repo_browser.navigate(f"{repo_url}/{_broadest_page(repo_site)}")
    card_id, size = repo_browser.evaluate(BROADEST)
    assert size >= 7
    repo_browser.wait_for(f"document.getElementById('{card_id}').getBoundingClientRect().width > 0")
    box = repo_browser.evaluate(CARD_BOX % repr(card_id))
    assert box["height"] <= 0.7 * box["screen"] + 1, box  # capped, scrolling inside
    assert box["top"] >= box["header"] and box["bottom"] <= box["screen"], box
    assert box["left"] >= 0 and box["right"] <= box["width"], box
    assert box["lines"] == size and box["linked"] == size, box  # one line per claim, linked
    assert box["legend"] and box["daggers"] <= 1 and box["dashes"] == 0, box


@pytest.mark.parametrize("width", [1280, 390])
def test_a_phone_reads_the_graph_as_a_list(
    repo_browser: Browser, repo_site: Path, repo_url: str, width: int
) -> None:
    if not (repo_site / "claim-graph.html").read_text(encoding="utf-8").count("<svg"):
        pytest.skip("the graph needs Graphviz's dot")
    repo_browser.set_viewport(width, WIDTHS[width])
    for page in ("claim-graph.html", "claim-graph/1710.09829.html"):
        repo_browser.navigate(f"{repo_url}/{page}")
        shown = repo_browser.evaluate(
            "[...document.querySelectorAll('.cc-graph, .cc-graph__narrow, .cc-graph-page table')]"
            ".map(e => e.className + ':' + (e.getBoundingClientRect().height > 0))")
        drawn = width >= 600
        assert f"cc-graph:{str(drawn).lower()}" in shown, shown
        assert f"cc-graph__narrow:{str(not drawn).lower()}" in shown, shown
        assert any(item.endswith(":true") and "graph" not in item.split(":")[0]
                   for item in shown), shown


def test_graph_text_stays_out_of_search(repo_site: Path) -> None:
    index = (repo_site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "paper-&gt;" not in index and "paper->" not in index  # Graphviz's edge titles
