"""Golden screenshots at 1280 and 390 px, and no sideways scrolling on a phone.

The pictures live in ``golden/screens/`` (``CLAIMCHECK_UPDATE_GOLDENS=1`` rewrites them); the
comparison tolerates font and anti-aliasing noise (``screens.py``). Two sets: the mini-site's
pages, and the repository's own wiki (``repo-*``), whose real ids and tables are the ones that
overflowed a laptop's column: a frozen snapshot of two of its paper cards
(``fixtures/repowiki``), drawn from the cards alone: no results store and an empty source cache,
so a refreshed store, an edit of the live cards, a machine's cached papers or its versions
change nothing in the pictures. Overflow is measured from
the DOM: at 390 px no element of the page may reach past the right edge of the screen, unless
it sits inside a box that scrolls on its own (a wide code block).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from browsing import needs_chromium
from cdp import Browser
from screens import check_screen

from claimcheck.sources.cache import ENVIRONMENT as SOURCES_ENVIRONMENT

pytestmark = [pytest.mark.browser, needs_chromium]

PAGES = {
    "concept": ("concepts/routing.html", None),
    "claims-table": ("papers/routing-paper.html", ".cc-glance"),
    "dashboard": ("claims-dashboard.html", None),
    "claim-graph": ("claim-graph/2101.12491.html", ".cc-graph"),
}
REPO_PAGES = {
    "repo-claims-table": ("papers/efficient-capsnet.html", ".cc-glance"),
    "repo-graph": ("claim-graph/1710.09829.html", ".cc-graph-page table"),
    "repo-dashboard": ("claims-dashboard.html", "#every-claim"),
}
SCREEN = {1280: 900, 390: 844}
GOLDEN_FONTS = {"Helvetica": "Liberation Sans", "monospace": "DejaVu Sans Mono"}
"""The fonts the pictures were drawn with (Debian's fonts-liberation2 and fonts-dejavu-core)."""

OVERFLOW = """(() => {
  const width = document.documentElement.clientWidth;
  const scrolls = e => { for (let p = e.parentElement; p; p = p.parentElement) {
    const x = getComputedStyle(p).overflowX;
    if (x === 'auto' || x === 'scroll' || x === 'hidden') return true; } return false; };
  const wide = [...document.querySelectorAll('.md-main *')]
    .filter(e => e.getBoundingClientRect().right > width + 1 && !scrolls(e))
    .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right));
  return {scrollWidth: document.documentElement.scrollWidth, width: width, wide: wide.slice(0, 5)};
})()"""


@cache
def _other_fonts() -> str | None:
    """Why this machine would draw the pages in other fonts than the golden pictures, if so."""
    fc_match = shutil.which("fc-match")
    if fc_match is None:
        return "fontconfig's fc-match is not installed"
    for pattern, family in GOLDEN_FONTS.items():
        found = subprocess.run([fc_match, "-f", "%{family}", pattern], capture_output=True,
                               text=True, check=False).stdout
        if family not in found:
            return f"{pattern} is drawn in {found or 'no font'}, the golden pictures in {family}"
    return None


def _open(browser: Browser, site: Path, page: str, anchor: str | None, width: int) -> None:
    browser.set_viewport(width, SCREEN[width])
    browser.navigate((site / page).as_uri())
    browser.wait_for("document.fonts.status === 'loaded'")
    browser.stop_motion()  # Material fades the header title on scroll: freeze it for the picture
    if anchor is not None:
        browser.evaluate(f"document.querySelector('{anchor}').scrollIntoView()")
    browser.evaluate("new Promise(done => requestAnimationFrame(() => setTimeout(done, 50)))")


@pytest.mark.parametrize("width", sorted(SCREEN))
@pytest.mark.parametrize("name", sorted(PAGES))
def test_matches_its_golden_picture(
    browser: Browser, stored_minisite: Path, tmp_path: Path, name: str, width: int,
    update_goldens: bool,
) -> None:
    page, anchor = PAGES[name]
    if name == "claim-graph" and shutil.which("dot") is None:
        pytest.skip("the claim graph's picture needs Graphviz's dot")
    if _other_fonts():
        pytest.skip(f"{_other_fonts()} (apt-get install fonts-liberation2 fonts-dejavu-core)")
    _open(browser, stored_minisite, page, anchor, width)
    shot = tmp_path / f"{name}-{width}.png"
    browser.screenshot(shot)
    check_screen(shot, f"{name}-{width}", update_goldens)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_nothing_overflows_a_phone(browser: Browser, stored_minisite: Path, name: str) -> None:
    page, _ = PAGES[name]
    _open(browser, stored_minisite, page, None, 390)
    measured = browser.evaluate(OVERFLOW)
    assert measured["wide"] == [] and measured["scrollWidth"] <= measured["width"], measured


def test_a_phone_sees_each_verdict_without_scrolling(
    browser: Browser, stored_minisite: Path
) -> None:
    _open(browser, stored_minisite, "papers/routing-paper.html", ".cc-glance", 390)
    rights = browser.evaluate(
        "[...document.querySelectorAll('.cc-glance .cc-badge')]"
        ".map(b => b.getBoundingClientRect().right)"
    )
    assert len(rights) == 4 and max(rights) <= 390
    ids = browser.evaluate(
        "[...document.querySelectorAll('.cc-glance .cc-line__name code')]"
        ".map(c => c.getClientRects().length)"
    )
    assert ids == [1, 1, 1, 1]  # one line box each: no id breaks mid-word


def test_a_hover_card_stays_on_a_phones_screen(browser: Browser, stored_minisite: Path) -> None:
    _open(browser, stored_minisite, "concepts/routing.html", None, 390)
    rightmost = browser.evaluate(
        "(() => { const badges = [...document.querySelectorAll('.cc-cite > .cc-badge')];"
        " const right = b => b.getBoundingClientRect().right;"
        " const last = badges.reduce((a, b) => right(b) > right(a) ? b : a);"
        " last.scrollIntoView({block: 'center'}); last.focus();"
        " return last.getAttribute('aria-describedby'); })()"
    )
    card = f"document.getElementById('{rightmost}')"
    browser.wait_for(f"{card}.getBoundingClientRect().width > 0")
    box = browser.evaluate(
        "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {"
        f" const r = {card}.getBoundingClientRect(); done([r.left, r.right]); }})))"
    )
    assert box[0] >= 0 and box[1] <= 390, box


@pytest.fixture(scope="module")
def unrun_repo_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The snapshot of the repository's cards, built alone (no store, no cached paper source).

    Not strict: the snapshot's links to the wiki's concept cards dangle.
    """
    from site_html import build_site, copy_fixture

    folder = tmp_path_factory.mktemp("repo-unrun")
    project = copy_fixture("repowiki", folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SOURCES_ENVIRONMENT, str(folder / "sources"))
        yield build_site(project, strict=False)


@pytest.mark.parametrize("width", sorted(SCREEN))
@pytest.mark.parametrize("name", sorted(REPO_PAGES))
def test_the_repository_wiki_matches_its_golden_picture(
    browser: Browser, unrun_repo_site: Path, tmp_path: Path, name: str, width: int,
    update_goldens: bool,
) -> None:
    if _other_fonts():
        pytest.skip(f"{_other_fonts()} (apt-get install fonts-liberation2 fonts-dejavu-core)")
    page, anchor = REPO_PAGES[name]
    _open(browser, unrun_repo_site, page, anchor, width)
    shot = tmp_path / f"{name}-{width}.png"
    browser.screenshot(shot)
    check_screen(shot, f"{name}-{width}", update_goldens)
