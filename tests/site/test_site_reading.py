"""The repository's own wiki answers a reader's first question (issue 34), measured in Chromium
on the site as shipped: which claims of a paper hold, on what evidence, what they would have
caught, and why the others are open.

At 1280 x 900: each paper page is at most 20,000 px tall; every contradicted claim is named in
its first two screens; the reason of every unverified claim is visible, not collapsed; the
strip's counts link to their claims; a claim's line opens its full evidence and the evidence
links back. axe-core (vendored, ``tests/site/vendor/axe-core``) finds no serious or critical
violation of WCAG 2 A/AA on the home page, the dashboard, the paper and concept pages, in the
light palette and, for the home page and a paper page, the dark one (that no page is wider
than a phone is measured with the tables, in test_site_fit.py). Without a browser: no same-site
link points at an id that does not exist, "wrong variant" is defined on a published page linked
from the legend, and at least 90% of the variant names verified claims list appear on the site.

What the browser finds comes from one pass over the site, each page opened once and read by
this file's tests and test_site_fit.py's (repo_tour.py): its layout as loaded, axe-core injected
once and run in the light palette, then, on the same load, in the dark one.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from browsing import PAPERS, needs_chromium, reader_pages
from cdp import Browser
from repo_tour import DARK_PAGES

MAX_HEIGHT = 20_000
SCREEN = 900
_ID = re.compile(r'\bid="([^"]+)"')
_HREF = re.compile(r'<a\b[^>]*?\bhref="([^"]*)"|xlink:href="([^"]*)"')


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


@cache
def _unverified_reasons() -> tuple[tuple[str, str, str], ...]:
    """(card path, claim id, reason) of every unverified claim, as ``status`` gives them (the
    site index is built once for the three papers)."""
    from claimcheck.core.config import load_config
    from claimcheck.site.siteindex import build_index

    config = load_config(Path(__file__).resolve().parents[2])
    index = build_index(config, config.root / "wiki", config.root / ".claimcheck")
    return tuple((view.card_path, view.claim_id, view.reason) for view in index.claims()
                 if view.verdict == "unverified")


def _status_reasons(paper: str) -> dict[str, str]:
    """The reason ``status`` gives for each unverified claim of ``paper`` (by claim id)."""
    return {claim_id: reason for card_path, claim_id, reason in _unverified_reasons()
            if card_path.endswith(paper.replace(".html", ".md"))}


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("paper", PAPERS)
def test_a_paper_page_opens_with_its_verdicts(repo_pages: dict[str, dict[str, Any]],
                                              paper: str) -> None:
    page = repo_pages[paper]["layout"]
    assert page["height"] <= MAX_HEIGHT
    for claim in page["contradicted"]:
        assert claim["bottom"] <= 2 * SCREEN, claim  # named in the first two screens
    reasons = _status_reasons(paper)
    shown = {claim["id"]: claim for claim in page["unverified"]}
    assert set(shown) == set(reasons)
    for claim_id, reason in reasons.items():
        assert shown[claim_id]["shown"], claim_id
        assert " ".join(reason.split()) in " ".join(page["text"].split()), claim_id
    targets = repo_pages[paper]["strip"]
    assert len(targets) == len(page["strip"])
    for (text, href), target in zip(page["strip"], targets, strict=True):  # to its verdict
        assert target == text.split()[-1], (text, href)


@pytest.mark.browser
@needs_chromium
def test_a_line_opens_the_full_evidence_and_the_evidence_links_back(
    repo_browser: Browser, repo_url: str
) -> None:
    repo_browser.navigate(f"{repo_url}/{PAPERS[0]}")
    name = repo_browser.evaluate("document.querySelector('.cc-line__name').getAttribute('href')")
    repo_browser.evaluate("document.querySelector('.cc-line__name').click()")
    target = json.dumps(name[1:])
    assert repo_browser.wait_for(f"document.getElementById({target}).open")
    assert repo_browser.evaluate(
        f"document.getElementById({target}).querySelector('.cc-variants, .cc-statement')"
        ".getClientRects().length > 0")
    back = repo_browser.evaluate(
        f"document.getElementById({target}).querySelector('.cc-back a').getAttribute('href')")
    assert repo_browser.evaluate(f"!!document.getElementById({json.dumps(back[1:])})")
    repo_browser.navigate(f"{repo_url}/concepts/capsule-network.html")  # from another page
    href = repo_browser.evaluate("document.querySelector('.cc-cite__link').getAttribute('href')")
    repo_browser.navigate(f"{repo_url}/concepts/{href}")
    fragment = json.dumps(href.split("#", 1)[1])
    assert repo_browser.wait_for(f"document.getElementById({fragment}).open")


@pytest.mark.browser
@needs_chromium
def test_the_filters_show_one_verdict_or_one_kind(repo_browser: Browser, repo_url: str) -> None:
    repo_browser.navigate(f"{repo_url}/{PAPERS[0]}")
    count = """[...document.querySelectorAll('.cc-line')].filter(l => l.getClientRects().length)
        .map(l => l.dataset.verdict + ':' + l.dataset.kind)"""
    everything = repo_browser.evaluate(count)
    repo_browser.evaluate("document.querySelector('.cc-filter input[value=unverified]').click()")
    only = repo_browser.evaluate(count)
    assert only and all(line.startswith("unverified:") for line in only)
    assert len(only) == sum(line.startswith("unverified:") for line in everything)
    repo_browser.evaluate("document.querySelector('.cc-filter input[value=all]').click()")
    repo_browser.evaluate("document.querySelector('.cc-filter input[value=code]').click()")
    code = repo_browser.evaluate(count)
    assert code and all(line.endswith(":code") for line in code)


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("palette", ["light", "dark"])
def test_axe_finds_no_serious_violation(repo_pages: dict[str, dict[str, Any]],
                                        repo_site: Path, palette: str) -> None:
    pages = reader_pages(repo_site) if palette == "light" else list(DARK_PAGES)
    found = {page: repo_pages[page][palette] for page in pages
             if repo_pages[page][palette]}
    assert found == {}


@pytest.mark.browser
@needs_chromium
def test_the_dark_palette_sets_the_projects_colours(
    repo_pages: dict[str, dict[str, Any]]
) -> None:
    light, dark = repo_pages[PAPERS[0]]["colours"]
    assert light != dark
