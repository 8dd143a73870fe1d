"""The sanitisers and scrubbers on their own: tables of hostile inputs and what must come out."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import pytest

from claimcheck.cards.plainpages import card_hint
from claimcheck.site.paths import scrub_paths
from claimcheck.site.sanitize import clean_fragment, clean_meta, clean_page_html, unsafe_markup
from claimcheck.site.svgclean import clean_svg

PAGE_ROWS = [
    ("<p>a<script>alert(1)</script>b</p>", "<p>ab</p>"),
    ('<img src="x.png" onerror="alert(1)">', '<img src="x.png">'),
    ('<a href="javascript:alert(1)">x</a>', "<a>x</a>"),
    ('<a href=" JaVaScRiPt:alert(1)">x</a>', "<a>x</a>"),
    ('<a href="jav&#x61;script:alert(1)">x</a>', "<a>x</a>"),
    ('<a href="data:text/html,x">x</a>', "<a>x</a>"),
    ('<img src="data:image/svg+xml,<svg onload=alert(1)>">', "<img>"),
    ('<a href="vbscript:x">x</a>', "<a>x</a>"),
    ('<iframe src="https://evil"></iframe>t', "t"),
    # an image from another host is fetched by every reader (tracking) and breaks offline use
    ('<img src="https://evil.example/pixel.png" alt="a">', '<img alt="a">'),
    ('<img src="http://evil.example/p.png">', "<img>"),
    ('<img src="//evil.example/p.png">', "<img>"),
    ('<img src="/\\evil.example/p.png">', "<img>"),
    ('<img src="\\\\evil.example/p.png">', "<img>"),
    ('<img src="/&#9;/evil.example/p.png">', "<img>"),
    ('<img src=" HTTPS://evil.example/p.png">', "<img>"),
    ('<img src="../assets/figure.png">', '<img src="../assets/figure.png">'),
    ('<img src="figure.png#x">', '<img src="figure.png#x">'),
    ("<style>body{}</style>t", "t"),
    ('<div style="position:fixed">t</div>', "<div>t</div>"),
    ('<th style="text-align: left; position: fixed">t</th>', "t"),
    ('<table><tr><td style="text-align: left; position: fixed">t</td></tr></table>',
     '<table><tbody><tr><td style="text-align:left">t</td></tr></tbody></table>'),
    ('<span class="cc-badge cc-badge--verified note">✓</span>', '<span class="note">✓</span>'),
    ('<div id="__config">{}</div>', "<div>{}</div>"),
    # ids in the plugin's namespace are renamed: a claim's evidence is #claim-<id>, and an author
    # element with that id would take its citations; a heading "Claim graph" keeps its permalink
    ('<span id="cc-card-0">x</span>', '<span id="h-cc-card-0">x</span>'),
    ('<h2 id="claim-params">✓ verified</h2>', '<h2 id="h-claim-params">✓ verified</h2>'),
    ('<a name="claim-params">x</a>', '<a name="h-claim-params">x</a>'),
    ('<h2 id="claim-graph">Claim graph<a href="#claim-graph">¶</a></h2>',
     '<h2 id="h-claim-graph">Claim graph<a href="#h-claim-graph">¶</a></h2>'),
    ('<span id="claimed">x</span>', '<span id="claimed">x</span>'),
    ('<span id="__codelineno-0-1">x</span>', '<span id="__codelineno-0-1">x</span>'),
    ('<details open ontoggle="alert(1)"><summary>s</summary></details>',
     '<details open=""><summary>s</summary></details>'),
    ('<a href="../papers/p.html#claim-x" title="t">ok</a>',
     '<a href="../papers/p.html#claim-x" title="t">ok</a>'),
    ('<h2 id="paper-vs-code">Paper vs code<a class="headerlink" href="#paper-vs-code">¶</a></h2>',
     '<h2 id="paper-vs-code">Paper vs code<a class="headerlink" href="#paper-vs-code">¶</a></h2>'),
    ('<span class="arithmatex">\\(x\\)</span>', '<span class="arithmatex">\\(x\\)</span>'),
]


@pytest.mark.parametrize(("html", "expected"), PAGE_ROWS)
def test_page_html_is_reduced_to_the_allow_list(html: str, expected: str) -> None:
    assert clean_page_html(html) == expected


def test_the_warning_names_what_is_removed() -> None:
    found = unsafe_markup('<script>x</script><img onerror="y"><a href="javascript:z">')
    assert found == ["<script", "onerror=", 'href="javascript:']
    assert unsafe_markup("<p>fine</p><code>&lt;script&gt;</code>") == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<script>alert('x')</script>Title", "Title"),
        ("&lt;b&gt; &amp; \"q\"", "&lt;b&gt; &amp; &#34;q&#34;"),
        ("<img src=x onerror=alert(1)>", ""),
        ("a & b", "a &amp; b"),
    ],
)
def test_titles_keep_no_markup_and_stay_stable(value: str, expected: str) -> None:
    assert clean_fragment(value) == expected
    assert clean_fragment(clean_fragment(value)) == clean_fragment(value)


def test_front_matter_values_are_text_at_any_depth() -> None:
    meta = clean_meta({"title": ["<b>x</b>", 2], "search": {"boost": 2, "exclude": True},
                       "<k>": None})
    assert meta == {"title": ["&lt;b&gt;x&lt;/b&gt;", 2],
                    "search": {"boost": 2, "exclude": True}, "&lt;k&gt;": None}


MATPLOTLIB_LIKE = (
    '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
    '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n'
    '  "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
    '<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="10pt" height="10pt" '
    'viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg" version="1.1">'
    "<metadata><rdf:RDF></rdf:RDF></metadata>"
    '<defs><style type="text/css">*{stroke-linejoin: round}</style>'
    '<path id="m1" d="M 0 0 L 0 3.5"/><clipPath id="c1"><rect width="5" height="5"/></clipPath>'
    "</defs>"
    '<g clip-path="url(#c1)"><use xlink:href="#m1" x="1" y="2" style="stroke: #000"/></g>'
    '<text x="1" y="9" style="font: 10px \'DejaVu Sans\'">epoch\u00a0±</text></svg>'
)


def test_a_matplotlib_curve_keeps_its_drawing() -> None:
    cleaned = clean_svg(MATPLOTLIB_LIKE)
    assert cleaned is not None
    root = ElementTree.fromstring(cleaned)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert 'xlink:href="#m1"' in cleaned and 'clip-path="url(#c1)"' in cleaned
    assert "epoch" in cleaned and "<style" not in cleaned and "metadata" not in cleaned


@pytest.mark.parametrize(
    ("svg", "gone"),
    [
        ('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>', "onload"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "alert"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>hi</p></foreignObject>'
         "</svg>", "hi"),
        ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
         '<use xlink:href="https://evil/x.svg#a"/></svg>', "evil"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a>'
         "</svg>", "javascript"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://evil/#p)"/></svg>',
         "evil"),
        ('<svg xmlns="http://www.w3.org/2000/svg"><set attributeName="href" to="x"/></svg>',
         "attributeName"),
    ],
)
def test_active_svg_content_is_removed(svg: str, gone: str) -> None:
    cleaned = clean_svg(svg)
    assert cleaned is not None and gone not in cleaned
    ElementTree.fromstring(cleaned)


@pytest.mark.parametrize("text", ["not svg at all", "<html><p>x</p></html>", "x" * 6_000_000])
def test_what_is_not_an_svg_is_not_published(text: str) -> None:
    assert clean_svg(text) is None


ROOT = "/home/ci/work/project"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"File {ROOT}/models/x.py, line 3", "File models/x.py, line 3"),
        ("data in /root/.cache/claimcheck/data)", "data in …/claimcheck/data)"),
        ("C:\\Users\\ann\\data\\mnist.npz missing", "…\\data\\mnist.npz missing"),
        ("see ~/secret/keys/id", "see …/keys/id"),
        ("https://arxiv.org/abs/2101.12491 and 8.2M/6.8M", "https://arxiv.org/abs/2101.12491 and "
         "8.2M/6.8M"),
        ("models/checks/x.py stays relative", "models/checks/x.py stays relative"),
    ],
)
def test_absolute_paths_are_made_relative_or_shortened(text: str, expected: str) -> None:
    assert scrub_paths(text, ROOT) == expected


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("kind: concept\nslug: x\n---\n# X\n", 1),
        ("\n---\nkind: paper\n---\n", 2),
        ("Title: Home\nslug: home\n\n# Home\n", 2),
        ("# A page\n\nkind: concept is a word here\n", None),
        ("Title: Home\nAuthor: me\n\n# Home\n", None),
        ("", None),
    ],
)
def test_a_page_that_looks_like_a_card(text: str, line: int | None) -> None:
    hint = card_hint(text)
    assert (hint[0] if hint else None) == line
