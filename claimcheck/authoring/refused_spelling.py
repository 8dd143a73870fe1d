"""How a refused source is recognised however a card spells it (issue 33 item 3).

``[tool.claimcheck] refused_sources`` names copies a card may not read from. A card written by
a pull request can spell one so that a plain search misses it while a reader, a browser or the
site still sees the same address. :func:`comparable` maps the card's text and each refused
source to one form before the substring search of :func:`claimcheck.authoring.lint_readings.
refused_findings`; :func:`needle` also drops what names the same source either way.

Undone, in order, until nothing changes: every YAML double-quoted escape (``\\x2f``,
``\\u002F``, ``\\U0000002F``, ``\\/``, ``\\t``, ``\\N``, ``\\_`` ...), URL encoding (``%2F``, also
``%252F``), HTML entities (``&#47;``, ``&sol;``) and IDNA's ASCII form of a host's label
(punycode, ``xn--mrror-...``). Then:

* Unicode compatibility forms (NFKC: fullwidth, mathematical letters) and case; the dots IDNA
  reads as a label separator (``。``, ``．``, ``｡``: :data:`encodings.idna.dots`) become ``.``;
* invisible characters (Unicode's default-ignorable code points: zero-width spaces, joiners, soft
  hyphens, bidi marks, the Hangul fillers, the variation selectors; what IDNA maps to nothing,
  :func:`stringprep.in_table_b1`; the blank braille pattern), HTML comments
  (``pa<!-- x -->per``; and the comment's text read as text), HTML tags
  (``pa<span></span>per``), and last all white space and control characters;
* Markdown's backslash escapes (``copies\\.example``); any other backslash is a ``/``, as
  browsers read it; runs of ``/`` and ``/./`` segments become one ``/``;
* the scheme (``https://``, ``http://``, ``git@host:``), ``www.``, a default port (``:443``,
  ``:80``, also with leading zeros: ``:0443``) and a host's trailing dot.

Last, each character still outside ASCII becomes a wildcard (``\\0``) that :func:`appears`
lets stand for any one character of a refused source: a letter drawn like a Latin one
(Cyrillic ``о``, Armenian ``օ``, Latin alpha ``ɑ``, Cherokee, a dash such as ``&hyphen;``) is
caught whatever its script, with no table of look-alikes to fall behind Unicode.

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

__all__ = ["appears", "comparable", "needle", "refused_one"]

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
    for _ in range(8):
        decoded = _PUNYCODE.sub(_from_punycode,
                                html.unescape(urllib.parse.unquote(_yaml_unescape(text))))
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
    text = _TAG.sub("", text)
    text = _MARKDOWN_ESCAPE.sub("", text).replace("\\", "/")
    text = _WWW.sub("", _SCHEME.sub("", _SSH_HOST.sub(r"\1/", _SLASHES.sub("/", text))))
    text = _NON_ASCII.sub(_unless_blank, text.translate(_ASCII_BLANKS))
    return _NON_ASCII.sub(WILDCARD, _PORT_OR_DOT.sub("", _SLASHES.sub("/", text)))


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
    """Whether ``needle`` appears in ``text``, both comparable forms, where each
    :data:`WILDCARD` of ``text`` may stand for any one character of ``needle``."""
    if not needle:
        return False
    if needle in text:
        return True
    return WILDCARD in text and _wildcard_pattern(needle).search(text) is not None


@functools.lru_cache(maxsize=256)
def _wildcard_pattern(needle: str) -> re.Pattern[str]:
    return re.compile("".join(f"[{re.escape(char)}{WILDCARD}]" for char in needle))


def refused_one(text: str, refused: tuple[str, ...]) -> str | None:
    """The first of the ``refused`` sources that ``text`` (an address, a line) names, however
    spelt, or ``None``."""
    plain = comparable(text)
    return next((source for source in refused if appears(needle(source), plain)), None)
