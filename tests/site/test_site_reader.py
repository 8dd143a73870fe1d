"""The repository's own site speaks to readers: no developer commands, no unpublished paths,
statements rendered (no raw backtick or ``$``), no root-absolute URL in ``404.html``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markupsafe import escape

from claimcheck.cards.citations import Citation
from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.wiki import load_wiki
from claimcheck.core.config import load_config
from claimcheck.site.inline import inline_markdown

TOOL_PAGES = {"index.html", "verdicts.html", "authoring.html"}
"""The pages about the tool itself, where its commands belong (the authoring guide among them)."""
COMMAND = re.compile(r"\bclaimcheck (?:verify|lint|new|papers|report|status|run|init)\b")
STATEMENT = re.compile(
    r'<(td|span) data-label="statement" class="cc-statement">(.*?)</td>'
    r'|<span class="cc-card__statement">(.*?)</span><span class="cc-card__row">'
    r'|<td data-label="statement">(.*?)</td>', re.DOTALL)
RENDERED = re.compile(r'<code>.*?</code>|<span class="arithmatex">.*?</span>', re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def _pages(site: Path) -> list[tuple[str, str]]:
    return [(page.relative_to(site).as_posix(), page.read_text(encoding="utf-8"))
            for page in sorted(site.rglob("*.html"))]


def test_no_developer_command_outside_the_tools_pages(repo_site: Path) -> None:
    for name, html in _pages(repo_site):
        if name not in TOOL_PAGES:
            assert "papers fetch" not in html, name
            assert not COMMAND.search(html), f"{name}: {COMMAND.search(html)}"


def test_no_unpublished_path_on_any_page_or_in_search(repo_site: Path) -> None:
    search = repo_site / "search" / "search_index.json"
    for name, text in [*_pages(repo_site), ("search", search.read_text(encoding="utf-8"))]:
        assert "shared/" not in text, name


def test_statements_show_no_raw_markdown(repo_site: Path) -> None:
    seen = 0
    for name, html in _pages(repo_site):
        for match in STATEMENT.finditer(html):
            text = TAG.sub("", RENDERED.sub("", next(group for group in match.groups()[1:]
                                                     if group is not None)))
            seen += 1
            assert "`" not in text and "$" not in text, f"{name}: {text[:200]}"
    assert seen > 100  # the claims tables, the dashboard and the hover cards


@pytest.mark.parametrize(
    ("text", "html"),
    [
        ("the `mnist` preset", "the <code>mnist</code> preset"),
        ("length $1 - e^{-s}$", 'length <span class="arithmatex">\\(1 - e^{-s}\\)</span>'),
        ("a < b & c", "a &lt; b &amp; c"),
        ("**bold** [link](javascript:alert(1)) <img src=x onerror=alert(1)>",
         "<strong>bold</strong> link"),
        ("<script>alert(1)</script>kept", "kept"),
        ("# not a heading `x`", "# not a heading <code>x</code>"),
    ],
)
def test_a_statement_is_sanitised_inline_markdown(text: str, html: str) -> None:
    assert str(inline_markdown(text)) == html


def test_404_has_no_root_absolute_url(repo_site: Path) -> None:
    html = (repo_site / "404.html").read_text(encoding="utf-8")
    assert not re.search(r'(?:href|src)="/(?!/)', html)
    assert '"base": "/"' not in html


def _named_broad_citation() -> tuple[str, Citation, int]:
    """A concept card's citation naming one claim at a locator that covers several."""
    root = Path(__file__).resolve().parents[2]
    wiki = load_wiki(load_config(root), root / "wiki")
    for card in wiki.cards:
        for citation in card.citations:
            covered = len(wiki.covering_claims(citation))
            if card.card.kind == "concept" and len(citation.claims) == 1 and covered >= 3:
                return card.path.relative_to(root / "wiki").with_suffix(".html").as_posix(), \
                    citation, covered
    raise AssertionError("no concept card names one claim at a broad locator")


def test_a_named_claim_is_the_badge_and_the_others_stay_in_the_card(repo_site: Path) -> None:
    """``[arxiv:1710.09829 tab. 1 #mnist-error]``: the sentence speaks for one claim."""
    page, citation, covered = _named_broad_citation()
    html = (repo_site / page).read_text(encoding="utf-8")
    anchor = f'id="cc-cite-{citation.line}-{citation.col}"'
    cite = re.search(r'<span class="cc-cite cc-cite--(\w+)" ' + anchor
                     + r'><a [^>]*>([^<]*)</a><span class="cc-badge ([^"]*)"'
                     r'[^>]*aria-describedby="([\w-]+)"', html)
    assert cite is not None, (page, citation.text)
    verdict, text, badge, card_id = cite.groups()
    assert text == citation.text.replace(f" #{citation.claims[0]}", "")  # names are not shown
    assert verdict != "multi" and badge.split()[0] == f"cc-badge--{verdict}"
    card = html[html.index(f'id="{card_id}"'):]
    card = card[:card.index('role="tooltip"')] if 'role="tooltip"' in card else card
    assert "also at this locator" in card and card.count("cc-card__line ") == covered - 1


def test_the_legend_decodes_every_mark_and_every_card_links_to_it(repo_site: Path) -> None:
    legend = (repo_site / "verdicts.html").read_text(encoding="utf-8")
    body = legend[legend.index('id="how-a-badge-reads"'):]
    for mark in ('<span class="cc-badge__basis">paper</span>', '>†</span><span class="cc-sr"> '
                 'from a secondary source</span>', ">‡</span>", "⟳</span> stale",
                 '<span class="cc-errored">', "cc-badge--multi", "95% CI", "chance",
                 "no signal at this budget"):
        assert mark in body, mark
    example = body[body.index('class="cc-legend__example"'):]
    assert 'cc-card--example' in example and "expected <b>" in example
    assert "full evidence" in example
    cards = 0
    for name, html in _pages(repo_site):
        for card in html.split('role="tooltip"')[1:]:
            cards += 1
            assert 'class="cc-card__row cc-card__legend"><a href="' in card, name
    assert cards > 50


def test_paper_pages_have_a_header_with_links_and_a_verdict_strip(repo_site: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    wiki = load_wiki(load_config(root), root / "wiki")
    papers = [card for card in wiki.cards if isinstance(card.card, PaperCard)]
    assert papers
    for loaded in papers:
        card = loaded.card
        assert isinstance(card, PaperCard)
        page = loaded.path.relative_to(root / "wiki").with_suffix(".html").as_posix()
        html = (repo_site / page).read_text(encoding="utf-8")
        header = html[html.index('<div class="cc-paper">'):html.index('class="cc-meta"')]
        assert f"{escape(', '.join(card.authors))} · {card.year}" in header, page
        assert card.venue is None or f"<i>{escape(card.venue)}</i>" in header, page
        assert card.paper_id.link is None or f'<a href="{card.paper_id.link}">' in header, page
        for code in card.code:
            assert f'<a href="{code.url}">' in header, page
        if any(code.official for code in card.code):
            assert ">official code" in header, page
        strip = header[header.index('class="cc-strip"'):]
        assert "Claims of this paper, by what their verdict is evidence of:" in strip, page
        assert " verified</a>" in strip or " verified</span>" in strip, page
