"""The built site in headless Chromium, over HTTP and from file://.

Needs Debian's ``chromium`` (``apt-get install -y chromium``; ``.ci/run`` installs it when it is
missing). Screenshots of the repository's concept page and dashboard go to the test's ``tmp_path``
(pytest keeps the last three runs' folders): a test never writes into the repository.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browsing import needs_chromium, serving
from cdp import Browser

pytestmark = [pytest.mark.browser, needs_chromium]

CITATION_BADGES = "[...document.querySelectorAll('.cc-cite > .cc-badge')]"
VISIBLE = """(element => { const box = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  return box.width > 0 && box.height > 0 && style.visibility !== 'hidden'
    && style.display !== 'none'; })"""
CENTRE = (
    "(b => { b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect();"
    " return [r.x + r.width / 2, r.y + r.height / 2]; })"
)


@pytest.fixture(scope="module")
def http_root(stored_minisite: Path) -> Iterator[str]:
    with serving(stored_minisite) as url:
        yield url


@pytest.fixture(params=["http", "file"])
def root(request: pytest.FixtureRequest, stored_minisite: Path, http_root: str) -> str:
    return http_root if request.param == "http" else stored_minisite.as_uri()


def test_badges_show_counts_and_verdicts(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/concepts/routing.html")
    badges = browser.evaluate(
        f"{CITATION_BADGES}.map(b => [b.className, {VISIBLE}(b), b.textContent])"
    )
    assert [badge[0] for badge in badges] == [
        "cc-badge cc-badge--multi",
        "cc-badge cc-badge--unverified",
        "cc-badge cc-badge--verified cc-badge--stale",
        "cc-badge cc-badge--unverified",
        "cc-badge cc-badge--unverified",
        "cc-badge cc-badge--multi",
    ]
    assert all(badge[1] for badge in badges)
    # the count badge reads its counts to a screen reader in words (visually hidden)
    assert badges[0][2] == "1 contradicted, 1 verified✗1✓1" and badges[2][2] == "✓verified⟳ stale"
    assert browser.dialogs() == []


def test_hover_and_focus_show_the_card(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/concepts/routing.html")
    card = "document.getElementById('cc-card-0')"
    assert browser.evaluate(f"{VISIBLE}({card})") is False
    x, y = browser.evaluate(f"{CENTRE}({CITATION_BADGES}[0])")
    browser.hover(x, y)
    browser.wait_for(f"{VISIBLE}({card})")
    text = browser.evaluate(f"{card}.innerText")
    assert "covers 2 claims" in text
    assert "measured 98.93" in text and "measured 161,500" in text
    assert "reason: measured 98.93 is below 99.7" in text
    browser.hover(1, 1)
    browser.wait_for(f"!{VISIBLE}({card})")
    browser.evaluate("document.querySelectorAll('.cc-cite__link')[2].focus()")
    browser.press_tab()  # from the citation's link to its badge, as a keyboard user would
    assert browser.evaluate("document.activeElement.getAttribute('aria-describedby')") == (
        "cc-card-2"
    )
    browser.wait_for(f"{VISIBLE}(document.getElementById('cc-card-2'))")
    assert "measured 1.42" in browser.evaluate("document.getElementById('cc-card-2').innerText")
    assert browser.dialogs() == []


def test_a_shared_card_follows_the_badge_in_use(browser: Browser, root: str) -> None:
    """The first and the last citation cover the same claims and share one card."""
    browser.navigate(f"{root}/concepts/routing.html")
    assert browser.evaluate("document.querySelectorAll('.cc-card').length") == 4
    x, y = browser.evaluate(f"{CENTRE}({CITATION_BADGES}[5])")
    browser.hover(x, y)
    card = "document.getElementById('cc-card-0')"
    browser.wait_for(f"{VISIBLE}({card})")
    assert browser.evaluate(f"{card}.parentElement === {CITATION_BADGES}[5].parentElement")


def test_contradicted_card_links_to_the_explanation(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/concepts/routing.html")
    x, y = browser.evaluate(f"{CENTRE}({CITATION_BADGES}[0])")
    browser.hover(x, y)
    browser.wait_for(f"{VISIBLE}(document.getElementById('cc-card-0'))")
    browser.click("#cc-card-0 .cc-card__claim--contradicted .cc-card__links a:last-child")
    assert browser.evaluate("location.hash") == "#cc-cite-46-64"
    landed = browser.wait_for(
        "(c => c && c.getBoundingClientRect().top >= 0"
        " && c.getBoundingClientRect().top < innerHeight && c.closest('p').innerText)"
        "(document.getElementById('cc-cite-46-64'))"
    )
    assert "fewer epochs" in landed


def test_citation_link_lands_on_its_claim(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/concepts/routing.html")
    browser.click(".cc-cite__link")
    assert browser.evaluate("location.pathname").endswith("/papers/routing-paper.html")
    assert browser.evaluate("location.hash") == "#claim-params"
    landed = browser.wait_for(
        "(row => row && row.getBoundingClientRect().top >= 0"
        " && row.getBoundingClientRect().top < innerHeight && row.innerText)"
        "(document.getElementById('claim-params'))"
    )
    assert "161,500" in landed and "verified" in landed
    assert browser.dialogs() == []


def test_maths_is_typeset_offline(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/concepts/routing.html")
    browser.wait_for("document.querySelectorAll('.arithmatex .katex').length === 2")
    assert browser.evaluate("document.querySelectorAll('.arithmatex .katex-display').length") == 1
    assert browser.evaluate("document.querySelectorAll('.katex-error').length") == 0
    sources = browser.evaluate(
        "[...document.querySelectorAll('script[src], link[href]')].map(e => e.src || e.href)"
    )
    assert not [url for url in sources if url.startswith("http") and "127.0.0.1" not in url]


def test_search_finds_routing(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/index.html?q=routing")
    meta = browser.wait_for(
        "(m => m && /matching document/.test(m.textContent) && m.textContent)"
        "(document.querySelector('.md-search-result__meta'))"
    )
    assert "No matching" not in meta
    titles = browser.evaluate(
        "[...document.querySelectorAll('.md-search-result__item h1')].map(h => h.textContent)"
    )
    assert any("Routing by agreement" in title for title in titles)


def test_dashboard_renders_without_running_script(browser: Browser, root: str) -> None:
    browser.navigate(f"{root}/claims-dashboard.html")
    totals = browser.evaluate(
        "[...document.querySelectorAll('.cc-totals tbody tr')].map(t => t.innerText"
        ".replace(/\\s+/g, ' ').trim())"
    )  # one row per evidence kind: never one "verified" figure across kinds
    assert totals == ["about the paper 1 0 0 0", "about our code 0 1 0 0",
                      "basis not stated 1 0 1 1"]
    statement = browser.evaluate("document.querySelector('.cc-dashboard').innerText")
    # statements are inline Markdown through the sanitiser: the script is gone, its text too
    assert "alert('statement')" not in statement and "about 161k parameters" in statement
    assert browser.evaluate("document.querySelectorAll('.md-content script').length") == 0
    assert browser.dialogs() == []


def test_card_in_a_table_is_not_clipped(browser: Browser, root: str) -> None:
    """Material scrolls tables inside clipping wrappers; an open card must still show whole."""
    browser.navigate(f"{root}/concepts/routing.html")
    x, y = browser.evaluate(f"{CENTRE}({CITATION_BADGES}[5])")
    browser.hover(x, y)
    card = "document.getElementById('cc-card-0')"
    browser.wait_for(f"{VISIBLE}({card})")
    bottom_is_card = (
        f"(c => {{ const r = c.getBoundingClientRect();"
        f" const y = Math.min(r.bottom, innerHeight) - 4;"
        f" return y > r.y + 40 && c.contains(document.elementFromPoint(r.x + r.width / 2, y)); }})"
        f"({card})"
    )
    assert browser.evaluate(bottom_is_card) is True


def test_repository_site_shows_badges(
    repo_browser: Browser, repo_site: Path, tmp_path: Path
) -> None:
    """The repository's own wiki: a concept page with badges, and the dashboard (screenshots)."""
    site, browser = repo_site, repo_browser
    concepts = sorted((site / "concepts").glob("*.html"))
    assert concepts, "the repository's wiki has no concept page"
    page = max(concepts, key=lambda path: path.read_text(encoding="utf-8").count("cc-cite "))
    browser.navigate(page.as_uri())
    visible = browser.evaluate(f"{CITATION_BADGES}.filter({VISIBLE}).length")
    assert visible > 0 and visible == browser.evaluate(f"{CITATION_BADGES}.length")
    browser.screenshot(tmp_path / "repo-concept.png")
    browser.navigate((site / "claims-dashboard.html").as_uri())
    assert browser.evaluate("document.querySelectorAll('.cc-totals tbody tr').length") >= 2
    browser.screenshot(tmp_path / "repo-dashboard.png")
    assert browser.dialogs() == []
