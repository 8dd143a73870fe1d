"""Identifiers are text on every page (issue 22 §5): a DOI may hold ``<``, ``[``, ``*`` and ``/``,
and none of it may become an element, a link or a way out of ``<title>`` on a generated page,
in the claim graph or in the search index; committed SVGs keep no external reference."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_html import build_site, copy_fixture

from claimcheck.site.svgclean import clean_svg
from tests.strictjson import loads_strict

PAYLOADS = {
    "img": "10.1234/<img/src=x/onerror=window.__pwned=1>",
    "title": "10.1234/</title><script>window.__pwned=2</script>",
    "link": "10.1234/[here](javascript:window.__pwned=3)",
    "anchor": "10.1234/<a/href=https://evil.example/pwned>x</a>",
}


def _card(name: str, doi: str) -> str:
    return f"""---
kind: paper
slug: hostile-{name}
doi: {json.dumps(doi)}
title: "Hostile {name}"
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: c1
    cite: tab. 2
    statement: S.
    unverified: none yet
---
Cited [doi:{doi} tab. 2].
"""


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each ``script`` element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture("minisite", tmp_path_factory.mktemp("identifiers"))
    for name, doi in PAYLOADS.items():
        (root / "wiki" / "papers" / f"hostile-{name}.md").write_text(_card(name, doi), "utf-8")
    return build_site(root, strict=False)


def test_no_identifier_becomes_an_element_on_any_page(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert any("claim-graph" in str(page) and "10.1234" in page.read_text("utf-8")
               for page in pages)
    for page in pages:
        parser = _Elements()
        parser.feed(page.read_text("utf-8"))
        for tag, attrs in parser.tags:
            for value in attrs.values():
                assert not value.startswith(("x/onerror", "javascript:")), (page, tag, attrs)
                assert not (tag == "a" and value.startswith("https://evil.example")), (page, attrs)
            assert tag != "img" or "pwned" not in attrs.get("src", ""), (page, attrs)
        assert not [text for text in parser.scripts if "pwned" in text], page


def test_the_search_index_holds_identifiers_as_escaped_text(site: Path) -> None:
    index = loads_strict((site / "search" / "search_index.json").read_text("utf-8"))
    titles = [entry["title"] for entry in index["docs"]]
    assert any("10.1234/&lt;/title&gt;" in title for title in titles), titles
    for entry in index["docs"]:
        for field in ("title", "text"):
            assert "<script" not in entry[field] and "<img/" not in entry[field], entry


@pytest.mark.parametrize(("svg", "gone"), [
    ('<rect style="fill:url(https://evil.example/p)"/>', "evil"),
    ('<rect style="fill: URL( \'https://evil.example/p\' )"/>', "evil"),
    ('<rect style="fill:u\\72l(https://evil.example/p)"/>', "evil"),
    ('<rect style="background:image-set(\'https://evil.example/p\' 1x)"/>', "evil"),
    ('<rect style="stroke:#000;/**/fill:url(//evil.example/p)"/>', "evil"),
    ("<style>@import url(https://evil.example/s.css);</style><rect/>", "evil"),
    ('<rect filter="url(https://evil.example/#f)" mask="url(//evil.example/m)"/>', "evil"),
    ('<a href="https://evil.example/"><rect/></a>', "evil"),
    ('<a xlink:href="//evil.example/"><rect/></a>', "evil"),
    ('<a href="../pages/x.html"><rect/></a>', "x.html"),
    ('<use href="https://evil.example/s.svg#a"/>', "evil"),
])
def test_a_committed_svg_keeps_no_external_reference(svg: str, gone: str) -> None:
    document = ('<svg xmlns="http://www.w3.org/2000/svg" '
                f'xmlns:xlink="http://www.w3.org/1999/xlink">{svg}</svg>')
    cleaned = clean_svg(document)
    assert cleaned is not None and gone not in cleaned, cleaned


def test_same_document_references_and_plain_styles_stay() -> None:
    cleaned = clean_svg(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<rect id="r" fill="url(#g)" style="stroke: #1f77b4; stroke-width: 0.8; '
        'fill: rgb(1, 2, 3)"/><use xlink:href="#r"/><a href="#r"><rect/></a></svg>')
    assert cleaned is not None
    for kept in ('fill="url(#g)"', "#1f77b4", "rgb(1, 2, 3)", 'xlink:href="#r"', 'href="#r"'):
        assert kept in cleaned, (kept, cleaned)


def test_only_the_tools_own_graph_keeps_links_to_site_pages() -> None:
    graph = ('<svg xmlns="http://www.w3.org/2000/svg"><a href="../papers/x.html"><rect/></a>'
             '<a href="https://evil.example/"><rect/></a></svg>')
    cleaned = clean_svg(graph, site_links=True)
    assert cleaned is not None and "../papers/x.html" in cleaned and "evil" not in cleaned
