"""The repository's own wiki answers a reader's first question (issue 34), measured in Chromium
on the site as shipped: which claims of a paper hold, on what evidence, what they would have
caught, and why the others are open.

At 1280 x 900: each paper page is at most 20,000 px tall; every contradicted claim is named in
its first two screens; the reason of every unverified claim is visible, not collapsed; the
strip's counts link to their claims; a claim's line opens its full evidence and the evidence
links back. axe-core (vendored, ``tests/site/vendor/axe-core``) finds no serious or critical
violation of WCAG 2 A/AA on the home page, the dashboard, the paper and concept pages, in the
light palette and, for a paper page, the dark one. On a 390 px phone no page is wider than the
screen, hover card open or not. Without a browser: no same-site link points at an id that does
not exist, "wrong variant" is defined on a published page linked from the legend, and at least
90% of the variant names verified claims list appear on the site.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browsing import needs_chromium, serving
from cdp import Browser

AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
PAPERS = ("papers/dynamic-routing.html", "papers/efficient-capsnet.html",
          "papers/inverted-dot-product-routing.html")
MAX_HEIGHT = 20_000
SCREEN = 900
RUN_AXE = """axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']},
  resultTypes: ['violations']}).then(r => r.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => v.id + ' x' + v.nodes.length + ': ' + v.nodes[0].target.join(' ')))"""
_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'<a\b[^>]*?\bhref="([^"]*)"|xlink:href="([^"]*)"')


def _palette(browser: Browser, scheme: str) -> None:
    """Switch Material's palette to ``scheme`` with its toggle, as a reader does (the choice is
    kept for the site, so every test sets the one it needs)."""
    if browser.evaluate("document.body.dataset.mdColorScheme") != scheme:
        other = "__palette_1" if scheme == "slate" else "__palette_0"
        browser.evaluate(f"document.querySelector('label[for={other}]').click()")
        browser.wait_for(f"document.body.dataset.mdColorScheme === '{scheme}'")
        browser.wait_for("new Promise(done => setTimeout(() => done(true), 600))")


@pytest.fixture(scope="module")
def site_url(repo_site: Path) -> Iterator[str]:
    with serving(repo_site) as url:
        yield url


def _reader_pages(site: Path) -> list[str]:
    concepts = sorted(p.relative_to(site).as_posix() for p in (site / "concepts").glob("*.html"))
    return ["index.html", "claims-dashboard.html", *PAPERS, *concepts]


def test_no_same_site_link_points_at_a_missing_id(repo_site: Path) -> None:
    pages = {page.resolve(): page.read_text(encoding="utf-8") for page in repo_site.rglob("*.html")}
    ids = {page: {html.unescape(found) for found in _ID.findall(text)}
           for page, text in pages.items()}
    broken = []
    for page, text in pages.items():
        for match in _HREF.finditer(text):
            url = urlsplit(html.unescape(match[1] or match[2] or ""))
            if url.scheme or url.netloc or not url.fragment:
                continue
            target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if target.is_dir():
                target = target / "index.html"
            if target in ids and unquote(url.fragment) not in ids[target]:
                broken.append(f"{page.relative_to(repo_site.resolve())}: {url.geturl()}")
    assert broken == []
    assert sum(len(found) for found in ids.values()) > 500


def test_wrong_variant_is_defined_on_a_page_the_legend_links(repo_site: Path) -> None:
    power = (repo_site / "power.html").read_text(encoding="utf-8")
    assert "A <strong>wrong variant</strong> is" in power
    assert "What power proves, and what it does not" in power
    legend = (repo_site / "verdicts.html").read_text(encoding="utf-8")
    assert 'href="power.html"' in legend
    dashboard = (repo_site / "claims-dashboard.html").read_text(encoding="utf-8")
    assert 'href="power.html"' in dashboard and "distinct wrong variant" in dashboard
    assert "verified claims that list wrong variants catch all of them" not in dashboard


def _listed_variants() -> set[str]:
    """The variant names the repository's verified claims list (``catches:``)."""
    from claimcheck.cards.wiki import load_wiki
    from claimcheck.core.config import load_config

    config = load_config(Path(__file__).resolve().parents[2])
    names: set[str] = set()
    for ref in load_wiki(config, config.root / "wiki").claims():
        names.update(ref.claim.catches)
    return names


def test_the_variants_claims_list_appear_on_the_site(repo_site: Path) -> None:
    listed = _listed_variants()
    text = "\n".join(html.unescape(re.sub(r"<wbr>", "", page.read_text(encoding="utf-8")))
                     for page in repo_site.rglob("*.html"))
    shown = {name for name in listed if name in text}
    assert listed and len(shown) >= 0.9 * len(listed), sorted(listed - shown)


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


def _status_reasons(paper: str) -> dict[str, str]:
    """The reason ``status`` gives for each unverified claim of ``paper`` (by claim id)."""
    from claimcheck.core.config import load_config
    from claimcheck.site.siteindex import build_index

    config = load_config(Path(__file__).resolve().parents[2])
    index = build_index(config, config.root / "wiki", config.root / ".claimcheck")
    return {view.claim_id: view.reason for view in index.claims()
            if view.card_path.endswith(paper.replace(".html", ".md"))
            and view.verdict == "unverified"}


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("paper", PAPERS)
def test_a_paper_page_opens_with_its_verdicts(browser: Browser, site_url: str,
                                              paper: str) -> None:
    browser.navigate(f"{site_url}/{paper}")
    page = browser.evaluate(LAYOUT)
    assert page["height"] <= MAX_HEIGHT
    for claim in page["contradicted"]:
        assert claim["bottom"] <= 2 * SCREEN, claim  # named in the first two screens
    reasons = _status_reasons(paper)
    shown = {claim["id"]: claim for claim in page["unverified"]}
    assert set(shown) == set(reasons)
    for claim_id, reason in reasons.items():
        assert shown[claim_id]["shown"], claim_id
        assert " ".join(reason.split()) in " ".join(page["text"].split()), claim_id
    for text, href in page["strip"]:  # every count a link to a line of its verdict
        verdict = text.split()[-1]
        target = browser.evaluate(
            f"document.getElementById({json.dumps(href[1:])}).closest('.cc-line').dataset.verdict")
        assert target == verdict, (text, href)


@pytest.mark.browser
@needs_chromium
def test_a_line_opens_the_full_evidence_and_the_evidence_links_back(
    browser: Browser, site_url: str
) -> None:
    browser.navigate(f"{site_url}/{PAPERS[0]}")
    name = browser.evaluate("document.querySelector('.cc-line__name').getAttribute('href')")
    browser.evaluate("document.querySelector('.cc-line__name').click()")
    target = json.dumps(name[1:])
    assert browser.wait_for(f"document.getElementById({target}).open")
    assert browser.evaluate(
        f"document.getElementById({target}).querySelector('.cc-variants, .cc-statement')"
        ".getClientRects().length > 0")
    back = browser.evaluate(
        f"document.getElementById({target}).querySelector('.cc-back a').getAttribute('href')")
    assert browser.evaluate(f"!!document.getElementById({json.dumps(back[1:])})")
    browser.navigate(f"{site_url}/concepts/capsule-network.html")  # from another page
    href = browser.evaluate("document.querySelector('.cc-cite__link').getAttribute('href')")
    browser.navigate(f"{site_url}/concepts/{href}")
    fragment = json.dumps(href.split("#", 1)[1])
    assert browser.wait_for(f"document.getElementById({fragment}).open")


@pytest.mark.browser
@needs_chromium
def test_the_filters_show_one_verdict_or_one_kind(browser: Browser, site_url: str) -> None:
    browser.navigate(f"{site_url}/{PAPERS[0]}")
    count = """[...document.querySelectorAll('.cc-line')].filter(l => l.getClientRects().length)
        .map(l => l.dataset.verdict + ':' + l.dataset.kind)"""
    everything = browser.evaluate(count)
    browser.evaluate("document.querySelector('.cc-filter input[value=unverified]').click()")
    only = browser.evaluate(count)
    assert only and all(line.startswith("unverified:") for line in only)
    assert len(only) == sum(line.startswith("unverified:") for line in everything)
    browser.evaluate("document.querySelector('.cc-filter input[value=all]').click()")
    browser.evaluate("document.querySelector('.cc-filter input[value=code]').click()")
    code = browser.evaluate(count)
    assert code and all(line.endswith(":code") for line in code)


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("palette", ["light", "dark"])
def test_axe_finds_no_serious_violation(browser: Browser, repo_site: Path, site_url: str,
                                        palette: str) -> None:
    axe = AXE.read_text(encoding="utf-8")
    pages = _reader_pages(repo_site) if palette == "light" else ["index.html", PAPERS[0]]
    found = {}
    for page in pages:
        browser.navigate(f"{site_url}/{page}")
        _palette(browser, "slate" if palette == "dark" else "default")
        browser.evaluate(axe + ";true")
        violations = browser.evaluate(RUN_AXE)
        if violations:
            found[page] = violations
    _palette(browser, "default")
    assert found == {}


@pytest.mark.browser
@needs_chromium
def test_the_dark_palette_sets_the_projects_colours(browser: Browser, site_url: str) -> None:
    colour = ("getComputedStyle(document.querySelector('.cc-group__title--verified'))"
              ".color")
    browser.navigate(f"{site_url}/{PAPERS[0]}")
    _palette(browser, "default")
    light = browser.evaluate(colour)
    _palette(browser, "slate")
    dark = browser.evaluate(colour)
    _palette(browser, "default")
    assert light != dark


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


@pytest.mark.browser
@needs_chromium
def test_no_page_is_wider_than_a_phone(browser: Browser, repo_site: Path,
                                       site_url: str) -> None:
    browser.set_viewport(390, 844)
    problems = {}
    cards = 0
    for page in [*_reader_pages(repo_site), "power.html", "verdicts.html"]:
        browser.navigate(f"{site_url}/{page}")
        measured = browser.evaluate(OPEN_EVERY_CARD)
        cards += measured["cards"]
        if measured["wide"] or measured["closed"]:
            problems[page] = measured
    assert problems == {}
    assert cards > 50
