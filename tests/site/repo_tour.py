"""One pass over the repository's own site in Chromium, shared by test_site_reading.py and
test_site_fit.py: each page is opened once, and everything those tests measure on it is read
from that one load (a paper page takes 1 to 3 CPU seconds to load, and Material's search worker
indexes the whole site again after each load).

On each page, in this order:

1. at 1280 x 900, as loaded: a paper page's layout (:data:`LAYOUT`) and where its strip's counts
   lead; axe-core, injected once, in the light palette and, for :data:`DARK_PAGES`, on the same
   load in the dark one (with a verified group's colour in both), then back to the light one;
2. with the page's transitions off, every collapsed block opened, its tables (:data:`MEASURE`)
   at 1280, 1024, 1920 and then 390 px, the open page resized through
   ``Emulation.setDeviceMetricsOverride`` and settled;
3. still on the 390 px phone, its blocks collapsed again as loaded: its hover cards opened one
   by one (:data:`OPEN_EVERY_CARD`), on a reader's pages and the power and verdicts pages.

Neither axe-core nor the palette's round trip changes what the later steps measure, and a page
resized to a width measures as one loaded at that width (both were compared, table by table and
card by card, on every page when this pass replaced one load per test and width).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browsing import PAPERS, reader_pages
from cdp import Browser

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
DARK_PAGES = ("index.html", PAPERS[0])
"""The pages axe-core also reads in the dark palette."""
DESKTOP = (1280, 900)
WIDTHS = {1024: 768, 1280: 900, 1920: 1080, 390: 844}
PHONE = 390
BLANK = "no-such-page"
"""A path the site does not have: the server's short 404 page, on the same origin (about:blank
would start another renderer process)."""

RUN_AXE = """axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']},
  resultTypes: ['violations']}).then(r => r.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => v.id + ' x' + v.nodes.length + ': ' + v.nodes[0].target.join(' ')))"""

LAYOUT = """(() => {
  const visible = el => !!el && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const lines = [...document.querySelectorAll('.cc-line')];
  const contradicted = lines.filter(l => l.dataset.verdict === 'contradicted').map(l => ({
    id: l.querySelector('.cc-line__name').textContent,
    bottom: l.querySelector('.cc-line__name').getBoundingClientRect().bottom + scrollY}));
  const unverified = lines.filter(l => l.dataset.verdict === 'unverified').map(l => {
    const reason = l.querySelector('.cc-line__reason');
    return {id: l.querySelector('.cc-line__name').textContent, shown: visible(reason),
            text: reason ? reason.innerText : ''};
  });
  return {height: document.documentElement.scrollHeight, contradicted, unverified,
          strip: [...document.querySelectorAll('.cc-strip a.cc-strip__count')]
            .map(a => [a.textContent, a.getAttribute('href')]),
          text: document.querySelector('.cc-glance').innerText};
})()"""
STRIP_TARGETS = """[...document.querySelectorAll('.cc-strip a.cc-strip__count')].map(a =>
  document.getElementById(a.getAttribute('href').slice(1)).closest('.cc-line').dataset.verdict)"""
"""The verdict of the line each count of the strip links to."""
VERIFIED_COLOUR = "getComputedStyle(document.querySelector('.cc-group__title--verified')).color"

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
KEEP_CLOSED = "(window.ccClosed = [...document.querySelectorAll('details:not([open])')]).length"
CLOSE_AGAIN = "window.ccClosed.forEach(block => { block.open = false; }), true"
"""What :data:`MEASURE` opened, collapsed again before the hover cards are opened."""

OPEN_EVERY_CARD = """(async () => {
  const wide = [];
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  const badges = [...document.querySelectorAll('.cc-badge[aria-describedby]')];
  const seen = new Set();
  for (const badge of badges) {
    const id = badge.getAttribute('aria-describedby');
    if (seen.has(id)) continue;
    seen.add(id);
    badge.scrollIntoView({block: 'center'});
    badge.focus();
    await frame(); await frame();
    const page = document.documentElement;
    if (page.scrollWidth > page.clientWidth + 1) wide.push(id + ': ' + page.scrollWidth);
    badge.blur();
  }
  const page = document.documentElement;
  return {cards: seen.size, wide: wide.slice(0, 5),
          closed: page.scrollWidth <= page.clientWidth + 1 ? 0 : page.scrollWidth};
})()"""


def site_pages(site: Path) -> list[str]:
    """Every page of the built site but its 404 page."""
    return sorted(page.relative_to(site).as_posix() for page in site.rglob("*.html")
                  if page.name != "404.html")


def phone_pages(site: Path) -> list[str]:
    """The pages whose hover cards are opened on a phone: a reader's, and the two it links."""
    return [*reader_pages(site), "power.html", "verdicts.html"]


def palette(browser: Browser, scheme: str) -> None:
    """Switch Material's palette to ``scheme`` with its toggle, as a reader does (the choice is
    kept for the site, so the pass sets the one it needs)."""
    if browser.evaluate("document.body.dataset.mdColorScheme") != scheme:
        other = "__palette_1" if scheme == "slate" else "__palette_0"
        browser.evaluate(f"document.querySelector('label[for={other}]').click()")
        browser.wait_for(f"document.body.dataset.mdColorScheme === '{scheme}'")
        browser.settle()  # the colours have changed


class Readings(dict[str, Any]):
    """What one page showed, by key. Where a step failed on the page (a script error, a load that
    timed out), what it had not read yet fails the test that asks for it, with that error; the
    other pages, and what was read before, still serve theirs."""

    error: Exception | None = None

    def __missing__(self, key: str) -> Any:
        if self.error is not None:
            raise AssertionError(f"the pass over the site could not read {key!r}: "
                                 f"{self.error!r}") from self.error
        raise KeyError(key)


def _read(browser: Browser, page: str, axe: str, found: Readings) -> None:
    """Step 1 on the loaded ``page``: ``layout`` and ``strip`` (papers), ``light`` and ``dark``
    (axe-core's serious and critical violations), ``colours`` (the first paper)."""
    palette(browser, "default")
    if page in PAPERS:
        found["layout"] = browser.evaluate(LAYOUT)
        found["strip"] = browser.evaluate(STRIP_TARGETS)
    browser.evaluate(axe + ";true")
    found["light"] = browser.evaluate(RUN_AXE)
    if page in DARK_PAGES:
        colours = [browser.evaluate(VERIFIED_COLOUR)] if page == PAPERS[0] else []
        palette(browser, "slate")
        found["dark"] = browser.evaluate(RUN_AXE)
        if colours:
            found["colours"] = (*colours, browser.evaluate(VERIFIED_COLOUR))
        palette(browser, "default")


def _read_page(browser: Browser, url: str, page: str, found: Readings, axe: str | None,
               phone: bool) -> None:
    """Steps 1 (with ``axe``, a reader's page) to 3 (``phone``) on ``page``, loaded here."""
    browser.navigate(f"{url}/{BLANK}")  # else the resize below lays the last page out again
    browser.set_viewport(*DESKTOP)
    browser.navigate(f"{url}/{page}")
    if axe is not None:
        _read(browser, page, axe, found)
    browser.stop_motion()  # a resize would slide Material's search box for 250 ms
    browser.evaluate(KEEP_CLOSED)
    tables = {}
    for width in [DESKTOP[0], *sorted(set(WIDTHS) - {DESKTOP[0], PHONE}), PHONE]:
        browser.set_viewport(width, WIDTHS[width])
        browser.settle()
        tables[width] = browser.evaluate(MEASURE)
    found["tables"] = tables
    if phone:
        browser.evaluate(CLOSE_AGAIN)
        browser.settle()
        found["cards"] = browser.evaluate(OPEN_EVERY_CARD)


def tour(browser: Browser, site: Path, url: str) -> dict[str, Readings]:
    """What each page of the site served at ``url`` shows, by page: step 1's keys (a reader's
    pages), ``tables`` (:data:`MEASURE` by width) and ``cards`` (the phone's pages, else None)."""
    axe = AXE.read_text(encoding="utf-8")
    readers = set(reader_pages(site))
    phone = set(phone_pages(site))
    seen: dict[str, Readings] = {}
    for page in site_pages(site):
        seen[page] = found = Readings() if page in phone else Readings(cards=None)
        try:
            _read_page(browser, url, page, found, axe if page in readers else None,
                       page in phone)
        except (RuntimeError, TimeoutError, AssertionError) as error:
            found.error = error
    return seen
