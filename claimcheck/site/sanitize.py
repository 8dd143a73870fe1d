"""Sanitising everything an author or a results file can put into the site, with ``nh3``.

Cards, plain pages and stored results come from anyone's pull request. The decision, documented
in ``docs/site.md``:

* **Raw HTML is allowed only within an allow-list**: the elements and attributes that Markdown
  and the configured extensions produce (headings, lists, tables, code, admonitions, details,
  footnotes, maths placeholders, images, links), plus a few inline ones (``kbd``, ``sup``,
  ``abbr``, ``mark``). Everything else is removed after rendering: no ``script``, ``style``,
  ``iframe``, forms or SVG; no ``on*`` or ``style`` attributes (but ``text-align`` on table
  cells, which Markdown tables write); links only to ``http``, ``https``, ``mailto`` or relative
  URLs (so no ``javascript:``, ``data:`` or ``vbscript:`` URL anywhere), and images only from
  relative URLs: an image from another host (``https://``, ``//host``, ``/\\host``) would make
  every reader's browser fetch it (a tracking pixel) and the site would not work offline.
* Author markup may not borrow the plugin's classes (``cc-*``): a hand-written "verified" badge
  loses its styling. Ids starting with ``__`` (Material's own ``#__config`` and friends) are
  dropped, so a page cannot shadow the theme's elements. Ids (and ``<a name>``) starting with
  ``cc-`` or ``claim-``, the anchors of the plugin's hover cards and claims, are renamed with
  the prefix ``h-``, and so are the page's own links to them and its table of contents: a
  heading "Claim graph" keeps a working permalink, and no author element can take a claim's
  anchor.
* The plugin's own markup (badges, tables, dashboard, graph) is inserted *after* this pass; it
  comes from autoescaped Jinja templates, so every card or result string in it is text.
* Front-matter values are text, escaped whatever their YAML type (:func:`clean_meta`);
  titles, table-of-contents entries and navigation sections keep no markup
  (:func:`clean_fragment`).
* No bidi control and no control character but tab and line feed survives in a page, a title
  or a text, raw or as a numeric entity (``&#x202E;``): lint refuses them in cards, and the site
  strips them from whatever reaches it anyway.

``unsafe_markup`` names what the sanitiser is about to remove, so the build log can say so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import nh3
from markupsafe import escape

from claimcheck.cards.controls import NUMERIC_ENTITY, entity_char, refused_control

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3",
    "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s",
    "samp", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot",
    "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
}
_ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "dir", "role", "hidden", "data-search-exclude"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height", "loading"},
    "td": {"colspan", "rowspan", "align", "style"},
    "th": {"colspan", "rowspan", "align", "style", "scope"},
    "ol": {"start", "type", "reversed"},
    "li": {"value"},
    "time": {"datetime"},
    "details": {"open"},
    "col": {"span"},
    "colgroup": {"span"},
}
_URL_SCHEMES = {"http", "https", "mailto"}
_KEPT_DUNDER_IDS = ("__codelineno-", "__span-")  # pymdownx.highlight's line anchors
_PLUGIN_CLASS = "cc-"
_PLUGIN_IDS = (_PLUGIN_CLASS, "claim-")
RENAMED = "h-"
"""The prefix an author id in the plugin's namespace takes (a heading "Claim graph" has the id
``claim-graph``): renamed rather than dropped, with the page's own links and table of contents,
so no same-page link is left pointing at nothing."""
_RENAMED_ID = re.compile(r'\b(?:id|name)="' + RENAMED + r'((?:cc-|claim-)[^"]*)"')
"""Ids the plugin gives its own elements: ``claim-<id>`` is a claim's row, which citations link
to; an author element with that id, placed before the row, would take the link (a hand-written
"verified" where the row should be)."""


def _is_relative(url: str) -> bool:
    """Whether ``url`` names a file of this site: no scheme and no host.

    Browsers drop tabs and newlines from a URL and read ``\\`` as ``/``, so ``/\\host/x`` and
    ``/<TAB>/host/x`` name another host just like ``//host/x``; they are read the same way here.
    """
    plain = re.sub(r"[\t\n\r]", "", url).strip().replace("\\", "/")
    parts = urlsplit(plain)
    return not parts.scheme and not parts.netloc and not plain.startswith("//")


def _filter_attribute(tag: str, name: str, value: str) -> str | None:
    if tag == "img" and name == "src":
        return value if _is_relative(value) else None
    if name == "class":
        kept = [word for word in value.split() if not word.startswith(_PLUGIN_CLASS)]
        return " ".join(kept) or None
    if name == "id" and value.startswith("__") and not value.startswith(_KEPT_DUNDER_IDS):
        return None
    if name in ("id", "name") and value.startswith(_PLUGIN_IDS) and (name == "id" or tag == "a"):
        return RENAMED + value
    return value


_PAGE_CLEANER = nh3.Cleaner(
    tags=_TAGS,
    clean_content_tags={"script", "style"},
    attributes=_ATTRIBUTES,
    attribute_filter=_filter_attribute,
    link_rel=None,
    generic_attribute_prefixes={"aria-"},
    url_schemes=_URL_SCHEMES,
    filter_style_properties={"text-align"},
)
_TEXT_CLEANER = nh3.Cleaner(tags=set(), clean_content_tags={"script", "style"}, attributes={})

_UNSAFE = re.compile(
    r"<(script|style|iframe|frame|object|embed|applet|form|input|button|textarea|select|svg|"
    r"math|link|meta|base)\b"
    r"|\son[a-z]+\s*="
    r"|(?:href|src|action|formaction|xlink:href)\s*=\s*[\"']?\s*(javascript|data|vbscript):",
    re.IGNORECASE,
)


def _without_controls(text: str) -> str:
    """``text`` without the characters :mod:`claimcheck.cards.controls` refuses, raw or as
    numeric entities: lint refuses them in cards; text from results or built pages is cleaned
    here all the same."""
    def entity(match: re.Match[str]) -> str:
        char = entity_char(match)
        return "" if char is not None and refused_control(char) else match[0]

    kept = "".join(char for char in text if not refused_control(char))
    return NUMERIC_ENTITY.sub(entity, kept)


def clean_page_html(html: str) -> str:
    """An author's rendered page, reduced to the allow-list, without control characters; an
    author id in the plugin's namespace is renamed (:data:`RENAMED`), and the page's own links
    to it follow."""
    cleaned = _without_controls(str(_PAGE_CLEANER.clean(html)))
    for old in renamed_ids(cleaned):
        cleaned = cleaned.replace(f'href="#{old}"', f'href="#{RENAMED}{old}"')
    return cleaned


def renamed_ids(html: str) -> set[str]:
    """The author ids of ``html`` that :func:`clean_page_html` renamed, as the author wrote them."""
    return set(_RENAMED_ID.findall(html))


def clean_text(text: object) -> str:
    """Any value, read as plain text, escaped for HTML (``<b>`` shows as ``<b>``), without
    control characters."""
    return str(escape(_without_controls(str(text))))


def clean_fragment(html: str) -> str:
    """A title that may hold markup (a heading's HTML, an escaped title) as escaped text.

    Tags are removed (with the content of ``script`` and ``style``), entities kept, so the
    result is stable: cleaning it again changes nothing.
    """
    cleaned = _without_controls(str(_TEXT_CLEANER.clean(html)))
    return cleaned.replace('"', "&#34;").replace("'", "&#39;")


def unsafe_markup(html: str) -> list[str]:
    """What in ``html`` the sanitiser will remove (tags, handlers, script URLs), for a warning."""
    found: list[str] = []
    for match in _UNSAFE.finditer(html):
        what = match[0].strip()
        if what not in found:
            found.append(what)
    return found


def clean_meta(value: Any) -> Any:
    """Front-matter values as the theme may show them: every string escaped, at any depth.

    Mappings keep their keys (escaped) and lists their order; booleans and numbers stay as they
    are (``search: {boost: 2}``), dates and anything else become escaped text.
    """
    if isinstance(value, Mapping):
        return {clean_text(key): clean_meta(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_meta(item) for item in value]
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    return clean_text(value)
