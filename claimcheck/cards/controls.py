"""Which characters no card, page or site text may hold, however they are written.

A bidirectional control (embeddings, overrides, isolates: "Trojan Source") shows text in another
order than the one lint and a reviewer read; another control character (ESC, a C1 control, a
carriage return) reaches terminals and pages as is. Both are refused written raw (bidi
controls: the YAML reader refuses raw control characters itself), as a YAML escape
(``"\\u202E"``, ``"\\e"``) or as a numeric HTML entity (``&#x202E;``, ``&#27;``): lint and the
loader refuse them at their place (:mod:`claimcheck.cards.loader`), and the site strips them
from whatever reaches it anyway (:mod:`claimcheck.site.sanitize`). Tab and line feed are text.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["BIDI_CONTROLS", "NUMERIC_ENTITY", "entity_char", "refused_control"]

BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""Embeddings, overrides and isolates (LRE ... RLO, LRI ... PDI)."""

NUMERIC_ENTITY = re.compile(r"&#([xX][0-9a-fA-F]{1,8}|[0-9]{1,10});?")
"""A numeric character reference, as a browser reads one (the ``;`` may be left out)."""


def entity_char(match: re.Match[str]) -> str | None:
    """The character a :data:`NUMERIC_ENTITY` match stands for (``None``: no character)."""
    digits = match[1]
    try:
        return chr(int(digits[1:], 16) if digits[0] in "xX" else int(digits))
    except (ValueError, OverflowError):
        return None


def refused_control(char: str) -> bool:
    """A bidi control, or a control character other than tab and line feed."""
    return bool(BIDI_CONTROLS.match(char)) or (
        unicodedata.category(char) == "Cc" and char not in "\t\n")
