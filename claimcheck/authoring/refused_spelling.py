"""How a refused source is recognised however a card spells it (issue 33 item 3).

``[tool.claimcheck] refused_sources`` names copies a card may not read from. A card written by
a pull request can spell one so that a plain search misses it while a reader, a browser or the
site still sees the same address. :func:`comparable` maps the card's text and each refused
source to one form before the substring search of :func:`claimcheck.authoring.lint_readings.
refused_findings`; :func:`needle` also drops what names the same source either way.

Undone, in order, until nothing changes: YAML escapes (``\\x2f``, ``\\u002F``, ``\\/``), URL
encoding (``%2F``, also ``%252F``) and HTML entities (``&#47;``, ``&sol;``). Then:

* Unicode compatibility forms (NFKC: fullwidth, mathematical letters) and case;
* invisible characters (category ``Cf``: zero-width spaces, joiners, soft hyphens, bidi marks)
  and all white space, and HTML tags (``pa<span></span>per``);
* the Cyrillic and Greek letters that look like Latin ones (``с``, ``о``, ``ο``) become those;
* Markdown's backslash escapes (``copies\\.example``); any other backslash is a ``/``, as
  browsers read it; runs of ``/`` and ``/./`` segments become one ``/``;
* the scheme (``https://``, ``http://``, ``git@host:``), ``www.``, a default port (``:443``,
  ``:80``) and a host's trailing dot.

:func:`needle` further drops a refused source's trailing ``/`` and ``.git``, so
``https://github.com/a/b.git`` and ``https://github.com/a/b/`` also match ``github.com/a/b``.
Matching stays a substring search: a longer address that starts with a refused one is refused.
"""

from __future__ import annotations

import html
import re
import unicodedata
import urllib.parse

__all__ = ["comparable", "needle"]

_LOOKALIKES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k",
    "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s",
    "ԁ": "d", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y", "ɡ": "g", "ı": "i",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ϳ": "j",
})
"""Lower-case Cyrillic and Greek letters drawn like a Latin letter (after case folding)."""

_YAML_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[/\\\"' ])")
_TAG = re.compile(r"</?[a-z][a-z0-9-]*(?:\s[^<>]*)?/?>")
_MARKDOWN_ESCAPE = re.compile(r"\\(?=[!\"#$%&'()*+,\-.:;<=>?@\[\]^_`{|}~])")
_SLASHES = re.compile(r"/(?:\.?/)+")
_SCHEME = re.compile(r"(?<![a-z0-9+.-])(?:https?|ftps?|git|ssh|git\+ssh|svn):/?")
_SSH_HOST = re.compile(r"(?<![a-z0-9.-])git@([a-z0-9.-]+):")
_WWW = re.compile(r"(?<![a-z0-9-])www\.")
_PORT_OR_DOT = re.compile(r"(?:\.|:(?:443|80))(?=/)")


def _yaml_unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) == 1:
            return code
        try:
            return chr(int(code[1:], 16))
        except (ValueError, OverflowError):
            return match.group()

    return _YAML_ESCAPE.sub(one, text)


def comparable(text: str) -> str:
    """``text`` in the one form refused sources are matched in (see the module docstring)."""
    for _ in range(8):
        decoded = html.unescape(urllib.parse.unquote(_yaml_unescape(text)))
        if decoded == text:
            break
        text = decoded
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    text = _TAG.sub("", text).translate(_LOOKALIKES)
    text = _MARKDOWN_ESCAPE.sub("", text).replace("\\", "/")
    text = _WWW.sub("", _SCHEME.sub("", _SSH_HOST.sub(r"\1/", _SLASHES.sub("/", text))))
    text = "".join(char for char in text if not char.isspace())
    return _PORT_OR_DOT.sub("", _SLASHES.sub("/", text))


def needle(refused: str) -> str:
    """What a refused source must appear as in :func:`comparable` text: its comparable form
    without a trailing ``/`` or ``.git``."""
    text = comparable(refused)
    while True:
        trimmed = text.rstrip("/").removesuffix(".git")
        if trimmed == text:
            return text
        text = trimmed
