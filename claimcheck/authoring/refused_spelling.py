"""How a refused source is recognised however a card spells it (issue 33 item 3).

``[tool.claimcheck] refused_sources`` names copies a card may not read from. A card written by
a pull request can spell one so that a plain search misses it while a reader, a browser or the
site still sees the same address. :func:`comparable` maps the card's text and each refused
source to one form before the substring search of :func:`claimcheck.authoring.lint_readings.
refused_findings`; :func:`needle` also drops what names the same source either way.

Undone, in order, until nothing changes: every YAML double-quoted escape (``\\x2f``,
``\\u002F``, ``\\U0000002F``, ``\\/``, ``\\t``, ``\\N``, ``\\_`` ...), URL encoding (``%2F``, also
``%252F``), HTML entities (``&#47;``, ``&sol;``) and IDNA's ASCII form of a host's label
(punycode, ``xn--mrror-...``). Where the text holds a backslash, it is also read without the
YAML escapes, as a browser reads ``host\\evil`` (a ``/``, not ``\\e``, an ESC). Then:

* Unicode compatibility forms (NFKC: fullwidth, mathematical letters) and case, then every
  combining mark dropped after NFKD (``ȯ``, ``İ``, a mark on nothing: ``o\u0332``); the dots IDNA
  reads as a label separator (``。``, ``．``, ``｡``: :data:`encodings.idna.dots`) become ``.``;
* invisible characters (Unicode's default-ignorable code points: zero-width spaces, joiners, soft
  hyphens, bidi marks, the Hangul fillers, the variation selectors; what IDNA maps to nothing,
  :func:`stringprep.in_table_b1`; the blank braille pattern), HTML comments
  (``pa<!-- x -->per``; and the comment's text read as text), HTML tags
  (``pa<span></span>per``), and last all white space and control characters;
* the Cyrillic and Greek letters that look like Latin ones (``с``, ``о``, ``ο``) become those;
* Markdown's backslash escapes (``copies\\.example``); any other backslash is a ``/``, as
  browsers read it; runs of ``/`` and ``/./`` segments become one ``/``, and ``a/b/../c`` is
  ``a/c``;
* the scheme (``https://``, ``http://``, ``git@host:``), ``www.``, a default or empty port
  (``:443``, ``:80``, also with leading zeros: ``:0443``; ``host:/``) and a host's trailing dot.

Last, each character still outside ASCII becomes a wildcard (``\\0``) that :func:`appears`
lets stand for one character of a refused source, for up to a third of them: a letter drawn
like a Latin one that the table lacks (Armenian ``օ``, Latin alpha ``ɑ``, Cherokee, a dash such
as ``&hyphen;``) is caught whatever its script, while a sentence in another script, whose
spaces are gone in this form, never reads as an address.

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
from collections.abc import Callable
from encodings import idna

__all__ = ["appears", "comparable", "needle", "refused_one"]

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
_PORT_OR_DOT = re.compile(r"\.(?=/)|:(?:0*(?:443|80))?(?=/)")
_DOT_DOT_SEGMENT = re.compile(r"(?<=/)[^/]+/\.\./")
_DOT_DOT_AT_ROOT = re.compile(r"/\.\./")
_PUNYCODE = re.compile(r"(?<![a-z0-9-])xn--([a-z0-9-]+)", re.IGNORECASE)
WILDCARD = "\0"
"""What a character outside ASCII becomes in the comparable form (:func:`appears`)."""
_DEFAULT_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
                      (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
                      (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
                      (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                      (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt), which a renderer
draws as nothing, and the blank braille pattern U+2800, drawn as a space."""


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


def _from_punycode(match: re.Match[str]) -> str:
    """A host label in IDNA's ASCII form (``xn--...``) as the Unicode a browser shows."""
    try:
        return match.group(1).encode("ascii").decode("punycode")
    except UnicodeError:
        return match.group()


@functools.lru_cache(maxsize=8192)
def comparable(text: str) -> str:
    """``text`` in the one form refused sources are matched in (see the module docstring); text
    with an HTML comment gives two forms, a line apart: without the comments (what a reader of
    the page sees) and with their text (what a reader of the file sees). Memoized: lint asks for
    the same card texts once per refused source and reading."""
    readings = [_decoded(text, _yaml_unescape)]
    if "\\" in text:  # also as a browser reads a backslash, a '/' (``host\\evil`` is no ESC)
        readings.append(_decoded(text, lambda raw: raw))
    forms: list[str] = []
    for reading in readings:
        hidden = _COMMENT.sub("", reading)
        forms.append(_form(hidden))
        if hidden != reading:
            forms.append(_form(reading.replace("<!--", "").replace("-->", "")))
    return "\n".join(dict.fromkeys(forms))


def _decoded(text: str, unescape: Callable[[str], str]) -> str:
    """``text`` with ``unescape``, URL encoding, HTML entities and punycode undone until
    nothing changes."""
    for _ in range(8):
        decoded = _PUNYCODE.sub(_from_punycode,
                                html.unescape(urllib.parse.unquote(unescape(text))))
        if decoded == text:
            break
        text = decoded
    return text


def _form(text: str) -> str:
    """Decoded ``text`` in the comparable form, which holds no white space."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    text = idna.dots.sub(".", _NON_ASCII.sub(_unless_ignored, text))
    text = _TAG.sub("", text).translate(_LOOKALIKES)
    text = _MARKDOWN_ESCAPE.sub("", text).replace("\\", "/")
    text = _WWW.sub("", _SCHEME.sub("", _SSH_HOST.sub(r"\1/", _SLASHES.sub("/", text))))
    text = _NON_ASCII.sub(_unless_blank, text.translate(_ASCII_BLANKS))
    text = _PORT_OR_DOT.sub("", _without_dot_dot(_SLASHES.sub("/", text)))
    return _NON_ASCII.sub(WILDCARD, _SLASHES.sub("/", text))


def _without_dot_dot(text: str) -> str:
    """``a/b/../c`` as ``a/c``, and ``host/../c`` as ``host/c``, as a browser resolves them."""
    for pattern, replacement in ((_DOT_DOT_SEGMENT, ""), (_DOT_DOT_AT_ROOT, "/")):
        while (shorter := pattern.sub(replacement, text)) != text:
            text = shorter
    return text


# Character by character only outside ASCII (the cards' text is mostly ASCII): ASCII holds no
# character a reader sees as nothing, and its white space and control characters are
# U+0000-U+0020 and U+007F.
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_BLANKS = dict.fromkeys([*range(0x21), 0x7F])


def _unless_ignored(match: re.Match[str]) -> str:
    """Nothing for a character a reader sees as nothing, or for a combining mark (after NFKD,
    the accents of ``ȯ``, ``İ``, and a mark that composes with nothing: ``o\u0332``)."""
    char = match.group()
    return "" if _ignored(char) or unicodedata.category(char).startswith("M") else char


def _unless_blank(match: re.Match[str]) -> str:
    char = match.group()
    return "" if char.isspace() or unicodedata.category(char) == "Cc" else char


@functools.lru_cache(maxsize=4096)
def _ignored(char: str) -> bool:
    """Whether a reader, or IDNA in a host name, shows ``char`` as nothing."""
    code = ord(char)
    return (unicodedata.category(char) == "Cf" or stringprep.in_table_b1(char)
            or 0xE0100 <= code <= 0xE01EF  # the variation selectors supplement
            or any(first <= code <= last for first, last in _DEFAULT_IGNORABLE))


def needle(refused: str) -> str:
    """What a refused source must appear as in :func:`comparable` text: its comparable form
    without a trailing ``/`` or ``.git``."""
    text = comparable(refused)
    while True:
        trimmed = text.rstrip("/").removesuffix(".git")
        if trimmed == text:
            return text
        text = trimmed


def appears(needle: str, text: str) -> bool:
    """Whether ``needle`` appears in ``text``, both comparable forms, where a :data:`WILDCARD`
    of ``text`` may stand for one character of ``needle``, up to a third of them: a look-alike
    respells a few letters of an address, and a sentence in another script, its spaces gone,
    must not read as one."""
    if not needle:
        return False
    if needle in text:
        return True
    if WILDCARD not in text:
        return False
    most = len(needle) // 3
    return any(found.group(1).count(WILDCARD) <= most
               for found in _wildcard_pattern(needle).finditer(text))


@functools.lru_cache(maxsize=256)
def _wildcard_pattern(needle: str) -> re.Pattern[str]:
    """Every place ``needle`` may start, overlapping ones included (a lookahead)."""
    return re.compile("(?=(" + "".join(f"[{re.escape(c)}{WILDCARD}]" for c in needle) + "))")


def refused_one(text: str, refused: tuple[str, ...]) -> str | None:
    """The first of the ``refused`` sources that ``text`` (an address, a line) names, however
    spelt, or ``None``."""
    plain = comparable(text)
    return next((source for source in refused if appears(needle(source), plain)), None)
