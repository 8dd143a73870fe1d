"""The repository's own wiki on a laptop, a wide screen and a phone: every table fits its column,
and the broadest hover card fits the screen.

Read in Chromium at 1024, 1280, 1920 and 390 px wide, with every collapsed block opened, every
table of every page (a claim's wrong variants, counts, the author's own) is no wider than the
content column, and no box that holds one
scrolls sideways (``scrollWidth <= clientWidth``): expected and measured are always in view.
The one exception is an author's own Markdown table on a phone: a comparison of four papers
with maths in its cells cannot fit 390 px, and Material scrolls it inside its own box.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browsing import needs_chromium, serving
from cdp import Browser

pytestmark = [pytest.mark.browser, needs_chromium]

WIDTHS = {1024: 768, 1280: 900, 1920: 1080, 390: 844}
MEASURE = """(() => {
  document.querySelectorAll('details').forEach(block => { block.open = true; });
  const column = document.querySelector('.md-content__inner') || document.body;
  const right = column.getBoundingClientRect().right + 1;
  const wide = [];
  const phone = document.documentElement.clientWidth < 600;
  for (const table of column.querySelectorAll(phone ? 'table[class]' : 'table')) {
    const name = (table.className || 'table') + ' ' + table.rows.length + ' rows';
    if (table.getBoundingClientRect().right > right) wide.push('wider: ' + name);
    for (let box = table; box && box !== column; box = box.parentElement) {
      if (box.scrollWidth > box.clientWidth + 1) {
        wide.push('scrolls: ' + box.tagName + '.' + box.className + ' in ' + name);
      }
    }
  }
  for (const cell of column.querySelectorAll('.cc-measured, .cc-expected')) {
    if (cell.getBoundingClientRect().right > right) wide.push('cut off: ' + cell.textContent);
  }
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth + 1) wide.push('page scrolls: ' + page.scrollWidth);
  return {tables: column.querySelectorAll('table').length, wide: wide.slice(0, 5)};
})()"""


@pytest.fixture(scope="module")
def site_url(repo_site: Path) -> Iterator[str]:
    with serving(repo_site) as url:
        yield url


def _pages(site: Path) -> list[str]:
    return sorted(page.relative_to(site).as_posix() for page in site.rglob("*.html")
                  if page.name != "404.html")


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_every_table_fits_its_column(
    browser: Browser, repo_site: Path, site_url: str, width: int
) -> None:
    browser.set_viewport(width, WIDTHS[width])
    tables = 0
    problems = {}
    for page in _pages(repo_site):
        browser.navigate(f"{site_url}/{page}")
        measured = browser.evaluate(MEASURE)
        tables += measured["tables"]
        if measured["wide"]:
            problems[page] = measured["wide"]
    assert problems == {}
    assert tables > 20  # the claims tables, the dashboard's counts, the graphs' tables


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

    return max(_pages(site), key=lambda page: size(site / page))


@pytest.mark.parametrize("width", [1280, 390])
def test_the_broadest_hover_card_fits_the_screen(
    browser: Browser, repo_site: Path, site_url: str, width: int
) -> None:
    browser.set_viewport(width, WIDTHS[width])
    browser.navigate(f"{site_url}/{_broadest_page(repo_site)}")
    card_id, size = browser.evaluate(BROADEST)
    assert size >= 7
    browser.wait_for(f"document.getElementById('{card_id}').getBoundingClientRect().width > 0")
    box = browser.evaluate(CARD_BOX % repr(card_id))
    assert box["height"] <= 0.7 * box["screen"] + 1, box  # capped, scrolling inside
    assert box["top"] >= box["header"] and box["bottom"] <= box["screen"], box
    assert box["left"] >= 0 and box["right"] <= box["width"], box
    assert box["lines"] == size and box["linked"] == size, box  # one line per claim, linked
    assert box["legend"] and box["daggers"] <= 1 and box["dashes"] == 0, box


@pytest.mark.parametrize("width", [1280, 390])
def test_a_phone_reads_the_graph_as_a_list(
    browser: Browser, repo_site: Path, site_url: str, width: int
) -> None:
    if not (repo_site / "claim-graph.html").read_text(encoding="utf-8").count("<svg"):
        pytest.skip("the graph needs Graphviz's dot")
    browser.set_viewport(width, WIDTHS[width])
    for page in ("claim-graph.html", "claim-graph/1710.09829.html"):
        browser.navigate(f"{site_url}/{page}")
        shown = browser.evaluate(
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
