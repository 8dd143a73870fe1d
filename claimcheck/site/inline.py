"""Reader text: a card's statement or quote as inline Markdown, sanitised, as one line of HTML.

Statements and quotes are written in Markdown like the card's body: code spans (`` `mnist` ``),
emphasis, and maths (``$e^{-\\lVert s \\rVert}$``, marked by ``pymdownx.arithmatex`` in its
generic mode and drawn by the site's KaTeX). They are rendered here, then pass the same
``nh3`` sanitiser as every page, reduced to inline elements (a statement sits inside a table
cell or a hover card): code, emphasis, sub- and superscripts, and the maths span. Links,
images, block elements and raw HTML keep only their text. Text with no Markdown mark is only
escaped, which is what most statements need.
"""

from __future__ import annotations

import functools
import re

import markdown
import nh3
from markupsafe import Markup, escape

_MARKS = re.compile(r"[`$*_\\<&\[]")
"""A statement without any of these characters renders as its escaped self."""
_INLINE_TAGS = {"code", "em", "strong", "b", "i", "sub", "sup", "span", "kbd", "var"}
_CLEANER = nh3.Cleaner(
    tags=_INLINE_TAGS,
    clean_content_tags={"script", "style"},
    attributes={"span": {"class"}},
    attribute_filter=lambda tag, name, value: value if value == "arithmatex" else None,
    link_rel=None,
)
_PARAGRAPH = re.compile(r"</?p>")


_BLOCKS = ("indent", "code", "hashheader", "setextheader", "hr", "olist", "ulist", "quote",
           "reference")
"""Block syntax a statement never means: ``# 3 seeds`` or ``1. ...`` stay text."""


@functools.lru_cache(maxsize=1)
def _converter() -> markdown.Markdown:
    converter = markdown.Markdown(
        extensions=["pymdownx.arithmatex"],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    for name in _BLOCKS:
        if name in converter.parser.blockprocessors:
            converter.parser.blockprocessors.deregister(name)
    return converter


@functools.lru_cache(maxsize=8192)
def inline_markdown(text: str) -> Markup:
    """``text`` rendered as sanitised inline HTML (paragraph breaks become spaces)."""
    if not _MARKS.search(text):
        return escape(text)
    html = _converter().reset().convert(text)
    html = _PARAGRAPH.sub(" ", html).strip()
    return Markup(_CLEANER.clean(html).strip())
