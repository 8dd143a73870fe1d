"""The repository's own site speaks to readers: no developer commands, no unpublished paths,
statements rendered (no raw backtick or ``$``), no root-absolute URL in ``404.html``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from claimcheck.site.inline import inline_markdown

TOOL_PAGES = {"index.html", "verdicts.html"}
"""The pages about the tool itself, where its commands belong."""
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
        assert "papers fetch" not in html, name
        if name not in TOOL_PAGES:
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


def test_a_named_claim_is_the_badge_and_the_others_stay_in_the_card(repo_site: Path) -> None:
    """``[arxiv:1710.09829 tab. 1 #mnist-error]``: the 0.25% sentence speaks for one claim."""
    html = (repo_site / "concepts" / "capsule-network.html").read_text(encoding="utf-8")
    cite = re.search(r'0\.25% MNIST error, r = 3 with reconstruction <span class="cc-cite '
                     r'cc-cite--(\w+)"[^>]*><a [^>]*>([^<]*)</a><span class="cc-badge ([^"]*)"'
                     r'[^>]*aria-describedby="([\w-]+)"', html)
    assert cite is not None
    verdict, text, badge, card_id = cite.groups()
    assert text == "[arxiv:1710.09829 tab. 1]"  # the name is the badge's business
    assert verdict != "multi" and badge.split()[0] == f"cc-badge--{verdict}"
    card = html[html.index(f'id="{card_id}"'):]
    card = card[:card.index('role="tooltip"')] if 'role="tooltip"' in card else card
    assert "also at this locator" in card and card.count("cc-card__line ") >= 5


def test_the_legend_decodes_every_mark_and_every_card_links_to_it(repo_site: Path) -> None:
    legend = (repo_site / "verdicts.html").read_text(encoding="utf-8")
    body = legend[legend.index('id="how-a-badge-reads"'):]
    for mark in ('<span class="cc-badge__basis">paper</span>', 'aria-label="from a secondary '
                 'source">†</span>', ">‡</span>", "⟳</span> stale", '<span class="cc-errored">',
                 "cc-badge--multi", "95% CI", "chance", "no signal at this budget"):
        assert mark in body, mark
    example = body[body.index('class="cc-legend__example"'):]
    assert 'cc-card--example' in example and "expected <b>" in example and "claim row" in example
    cards = 0
    for name, html in _pages(repo_site):
        for card in html.split('role="tooltip"')[1:]:
            cards += 1
            assert 'class="cc-card__row cc-card__legend"><a href="' in card, name
    assert cards > 50


def test_paper_pages_have_a_header_with_links_and_a_verdict_strip(repo_site: Path) -> None:
    html = (repo_site / "papers" / "efficient-capsnet.html").read_text(encoding="utf-8")
    header = html[html.index('<div class="cc-paper">'):html.index('class="cc-meta"')]
    assert "Vittorio Mazzia, Francesco Salvetti, Marcello Chiaberge · 2021" in header
    assert "<i>Scientific Reports 11, 14634</i>" in header
    assert '<a href="https://arxiv.org/abs/2101.12491">arXiv 2101.12491</a>' in header
    assert '<a href="https://github.com/EscVM/Efficient-CapsNet">official code</a>' in header
    strip = header[header.index('class="cc-strip"'):]
    assert "Claims of this paper:" in strip and "verified</span>" in strip
    assert html.index('class="cc-paper"') < html.index('id="method"')
