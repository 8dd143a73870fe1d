"""How a refused source is recognised however a card spells it (issue 33 item 3).

``[tool.claimcheck] refused_sources`` names copies a card may not read from. A card written by
a pull request can spell one so that a plain search misses it while a reader, a browser or the
site still sees the same address. :func:`comparable` maps the card's text and each refused
source to one form before the substring search of :func:`claimcheck.authoring.lint_readings.
refused_findings`; :func:`needle` also drops what names the same source either way.

Undone, in order, until nothing changes: every YAML double-quoted escape (``\\x2f``,
``\\u002F``, ``\\U0000002F``, ``\\/``, ``\\t``, ``\\N``, ``\\_`` ...), URL encoding (``%2F``, also
``%252F``) and HTML entities (``&#47;``, ``&sol;``). Then:

* Unicode compatibility forms (NFKC: fullwidth, mathematical letters) and case; the dots IDNA
  reads as a label separator (``。``, ``．``, ``｡``: :data:`encodings.idna.dots`) become ``.``;
* invisible characters (category ``Cf``: zero-width spaces, joiners, soft hyphens, bidi marks;
  and what IDNA maps to nothing, :func:`stringprep.in_table_b1`, such as the combining grapheme
  joiner and the variation selectors), HTML comments (``pa<!-- x -->per``; and the comment's
  text read as text), HTML tags (``pa<span></span>per``), and last all white space and control
  characters;
* the Cyrillic and Greek letters that look like Latin ones (``с``, ``о``, ``ο``) become those;
* Markdown's backslash escapes (``copies\\.example``); any other backslash is a ``/``, as
  browsers read it; runs of ``/`` and ``/./`` segments become one ``/``;
* the scheme (``https://``, ``http://``, ``git@host:``), ``www.``, a default port (``:443``,
  ``:80``, also with leading zeros: ``:0443``) and a host's trailing dot.

:func:`needle` further drops a refused source's trailing ``/`` and ``.git``, so
``https://github.com/a/b.git`` and ``https://github.com/a/b/`` also match ``github.com/a/b``.
Matching stays a substring search: a longer address that starts with a refused one is refused.
"""

from __future__ import annotations

import functools
import html
import re
import stringprep
import unicodedata
import urllib.parse
from encodings import idna

__all__ = ["comparable", "needle"]

_LOOKALIKES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k",
    "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s",
    "ԁ": "d", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y", "ɡ": "g", "ı": "i",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ϳ": "j",
})
"""Lower-case Cyrillic and Greek letters drawn like a Latin letter (after case folding)."""

_YAML_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0abtnvfreN_LP\t/\\\"' ])")
_YAML_NAMED = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
               "f": "\f", "r": "\r", "e": "\x1b", "N": "\x85", "_": "_", "L": "\u2028",
               "P": "\u2029"}
"""YAML 1.2's one-letter escapes of a double-quoted scalar; any other escapes itself. ``\\_``
(YAML's no-break space) is also Markdown's escaped ``_``, which a line of a body means: it reads
as ``_`` here, and a front-matter value is matched once more as YAML decodes it
(:func:`claimcheck.authoring.lint_readings.refused_findings`)."""
_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_TAG = re.compile(r"</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>")
_MARKDOWN_ESCAPE = re.compile(r"\\(?=[!\"#$%&'()*+,\-.:;<=>?@\[\]^_`{|}~])")
_SLASHES = re.compile(r"/(?:\.?/)+")
_SCHEME = re.compile(r"(?<![a-z0-9+.-])(?:https?|ftps?|git|ssh|git\+ssh|svn):/?")
_SSH_HOST = re.compile(r"(?<![a-z0-9.-])git@([a-z0-9.-]+):")
_WWW = re.compile(r"(?<![a-z0-9-])www\.")
_PORT_OR_DOT = re.compile(r"\.(?=/)|:0*(?:443|80)(?![0-9])")


def _yaml_unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) == 1:
            return _YAML_NAMED.get(code, code)
        try:
            return chr(int(code[1:], 16))
        except (ValueError, OverflowError):
            return match.group()

    return _YAML_ESCAPE.sub(one, text)


@functools.lru_cache(maxsize=8192)
def comparable(text: str) -> str:
    """``text`` in the one form refused sources are matched in (see the module docstring); text
    with an HTML comment gives two forms, a line apart: without the comments (what a reader of
    the page sees) and with their text (what a reader of the file sees). Memoized: lint asks for
    the same card texts once per refused source and reading."""
    for _ in range(8):
        decoded = html.unescape(urllib.parse.unquote(_yaml_unescape(text)))
        if decoded == text:
            break
        text = decoded
    hidden = _COMMENT.sub("", text)
    if hidden == text:
        return _form(text)
    return f"{_form(hidden)}\n{_form(text.replace('<!--', '').replace('-->', ''))}"


def _form(text: str) -> str:
    """Decoded ``text`` in the comparable form, which holds no white space."""
    text = idna.dots.sub(".", unicodedata.normalize("NFKC", text).casefold())
    text = _NON_ASCII.sub(_unless_ignored, text)
    text = _TAG.sub("", text).translate(_LOOKALIKES)
    text = _MARKDOWN_ESCAPE.sub("", text).replace("\\", "/")
    text = _WWW.sub("", _SCHEME.sub("", _SSH_HOST.sub(r"\1/", _SLASHES.sub("/", text))))
    text = _NON_ASCII.sub(_unless_blank, text.translate(_ASCII_BLANKS))
    return _PORT_OR_DOT.sub("", _SLASHES.sub("/", text))


# Character by character only outside ASCII (the cards' text is mostly ASCII): ASCII holds no
# character a reader sees as nothing, and its white space and control characters are
# U+0000-U+0020 and U+007F.
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_BLANKS = dict.fromkeys([*range(0x21), 0x7F])


def _unless_ignored(match: re.Match[str]) -> str:
    return "" if _ignored(match.group()) else match.group()


def _unless_blank(match: re.Match[str]) -> str:
    char = match.group()
    return "" if char.isspace() or unicodedata.category(char) == "Cc" else char


@functools.lru_cache(maxsize=4096)
def _ignored(char: str) -> bool:
    """Whether a reader, or IDNA in a host name, shows ``char`` as nothing."""
    return (unicodedata.category(char) == "Cf" or stringprep.in_table_b1(char)
            or 0xE0100 <= ord(char) <= 0xE01EF)  # the variation selectors supplement


def needle(refused: str) -> str:
    """What a refused source must appear as in :func:`comparable` text: its comparable form
    without a trailing ``/`` or ``.git``."""
    text = comparable(refused)
    while True:
        trimmed = text.rstrip("/").removesuffix(".git")
        if trimmed == text:
            return text
        text = trimmed
