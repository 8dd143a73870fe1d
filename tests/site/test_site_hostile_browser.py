"""An attacker's wiki and results, built and opened in Chromium: no script of theirs ever runs.

Every page and every SVG of the built site is opened over HTTP, as a reader's browser would on
the published site. A payload that ran would set ``window.__pwned`` or open a dialog.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from browsing import needs_chromium, serving
from cdp import Browser
from hostile_fixture import build_hostile_project
from site_html import build_site

pytestmark = [pytest.mark.browser, needs_chromium]

ACTIVE_MARKUP = """(() => {
  const found = [];
  for (const element of document.querySelectorAll('*')) {
    for (const attribute of element.attributes) {
      const value = attribute.value.trim().toLowerCase();
      if (attribute.name.startsWith('on')) found.push(element.tagName + ' ' + attribute.name);
      if (/^(javascript|vbscript|data):/.test(value)
          && /^(href|src|action|formaction|data|xlink:href)$/.test(attribute.name))
        found.push(element.tagName + ' ' + attribute.name + '=' + value.slice(0, 30));
    }
  }
  for (const tag of ['iframe', 'object', 'embed', 'form', 'base', 'meta[http-equiv]'])
    if (document.querySelector('.md-content ' + tag)) found.push(tag);
  return found;
})()"""


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = build_hostile_project(tmp_path_factory.mktemp("hostile"))
    return build_site(project)  # --strict: sanitising is silent, so an attack does not stop it


@pytest.fixture(scope="module")
def hostile_url(hostile_site: Path) -> Iterator[str]:
    with serving(hostile_site) as url:
        yield url


def _documents(site: Path) -> list[str]:
    files = [*site.rglob("*.html"), *site.rglob("*.svg")]
    return sorted(
        path.relative_to(site).as_posix()
        for path in files
        if "assets" not in path.relative_to(site).parts
    )


def test_the_hostile_site_has_every_attack(hostile_site: Path) -> None:
    documents = _documents(hostile_site)
    assert "concepts/hostile.html" in documents and "figure.svg" in documents
    assert "claimcheck/artifacts/2101.12491__params.svg" in documents
    assert any(name.startswith("<img src=x onerror=") for name in documents)


def test_no_script_of_the_attacker_runs(browser: Browser, hostile_site: Path,
                                        hostile_url: str) -> None:
    problems: dict[str, object] = {}
    for name in _documents(hostile_site):
        browser.navigate(f"{hostile_url}/{quote(name)}")
        time.sleep(0.05)  # a timer-started payload would have run by now
        pwned = browser.evaluate("window.__pwned === undefined ? null : String(window.__pwned)")
        active = browser.evaluate(ACTIVE_MARKUP) if name.endswith(".html") else []
        if pwned or active or browser.dialogs():
            problems[name] = (pwned, active, browser.dialogs())
    assert problems == {}


def test_hostile_interactions_run_nothing(browser: Browser, hostile_url: str) -> None:
    """Hover, focus and open everything a reader could touch on the hostile page."""
    browser.navigate(f"{hostile_url}/concepts/hostile.html")
    browser.evaluate(
        "for (const e of document.querySelectorAll('.md-content *')) {"
        " for (const t of ['mouseover', 'mouseenter', 'focus', 'click', 'toggle'])"
        "  e.dispatchEvent(new Event(t, {bubbles: true})); }"
    )
    time.sleep(0.1)
    assert browser.evaluate("window.__pwned === undefined")
    assert browser.dialogs() == []
    assert browser.evaluate("document.querySelectorAll('.md-content .katex').length") == 2
    links = browser.evaluate("[...document.querySelectorAll('.katex a')].map(a => a.href)")
    assert links == []  # \\href is not trusted


def test_forged_badges_lose_the_badge_style(browser: Browser, hostile_url: str) -> None:
    browser.navigate(f"{hostile_url}/concepts/hostile.html")
    forged = browser.evaluate(
        "[...document.querySelectorAll('.md-content span')]"
        ".filter(s => s.textContent.includes('(forged)')).map(s => s.className)"
    )
    assert forged == [""]


@pytest.mark.parametrize("query", ["pwned", "onerror", "script", "hostile"])
def test_searching_for_the_payloads_runs_nothing(browser: Browser, hostile_url: str,
                                                 query: str) -> None:
    """Material writes search results into the page as HTML: the index must hold none of theirs."""
    browser.navigate(f"{hostile_url}/index.html?q={query}")
    browser.wait_for(
        "(m => m && /matching document|No matching/.test(m.textContent))"
        "(document.querySelector('.md-search-result__meta'))"
    )
    shown = browser.evaluate("document.querySelectorAll('.md-search-result__item').length")
    assert browser.evaluate(ACTIVE_MARKUP.replace(".md-content ", ".md-search-result ")) == []
    assert browser.evaluate("window.__pwned === undefined"), query
    assert browser.dialogs() == []
    if query == "hostile":
        assert shown > 0  # the results were rendered, so the check above saw them
