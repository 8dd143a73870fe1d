"""Locators: the place inside a paper that a citation or a claim points at.

Grammar (EBNF; ``digit`` is 0-9, ``letter`` is A-Z)::

    locator   = section | numbered | appendix | page ;
    section   = "§" , ( dotted | range ) ;                 (* §3.1, §3-4 *)
    numbered  = ( "tab. " | "fig. " | "eq. " | "alg. " ) ,
                ( dotted | range ) ;                       (* tab. 2, eq. 3-6 *)
    appendix  = "app. " , letter , { "." , number } ;      (* app. B, app. B.2 *)
    page      = "p. " , ( number | range ) ;               (* p. 7, p. 7-9 *)
    dotted    = number , { "." , number } ;
    range     = number , "-" , number ;                    (* start < end *)
    number    = digit , { digit } ;

A locator *covers* another of the same kind when the other lies inside it: ``eq. 3-6`` covers
``eq. 5`` and ``eq. 4-5``; ``§3`` covers ``§3.1`` and ``§3.1.2``; ``app. B`` covers ``app. B.2``.
Near misses such as ``table 2``, ``Eq. 5`` or ``§ 3.1`` raise :class:`LocatorError` with a
"did you mean" hint naming the canonical form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

__all__ = ["Locator", "LocatorError", "LocatorKind", "parse_locator"]


class LocatorKind(str, Enum):
    """What a locator points at; the value is the kind's name."""

    SECTION = "section"
    TABLE = "table"
    FIGURE = "figure"
    EQUATION = "equation"
    ALGORITHM = "algorithm"
    APPENDIX = "appendix"
    PAGE = "page"

    @property
    def prefix(self) -> str:
        """The canonical prefix written before the label, e.g. ``"tab. "``."""
        return _PREFIXES[self]


_PREFIXES: dict[LocatorKind, str] = {
    LocatorKind.SECTION: "§",
    LocatorKind.TABLE: "tab. ",
    LocatorKind.FIGURE: "fig. ",
    LocatorKind.EQUATION: "eq. ",
    LocatorKind.ALGORITHM: "alg. ",
    LocatorKind.APPENDIX: "app. ",
    LocatorKind.PAGE: "p. ",
}

# Words authors write instead of the canonical prefix, lower-cased and without a trailing dot.
_ALIASES: dict[str, LocatorKind] = {
    "§": LocatorKind.SECTION,
    "§§": LocatorKind.SECTION,
    "section": LocatorKind.SECTION,
    "sec": LocatorKind.SECTION,
    "sect": LocatorKind.SECTION,
    "table": LocatorKind.TABLE,
    "tab": LocatorKind.TABLE,
    "tbl": LocatorKind.TABLE,
    "figure": LocatorKind.FIGURE,
    "fig": LocatorKind.FIGURE,
    "equation": LocatorKind.EQUATION,
    "eq": LocatorKind.EQUATION,
    "eqn": LocatorKind.EQUATION,
    "eqs": LocatorKind.EQUATION,
    "algorithm": LocatorKind.ALGORITHM,
    "alg": LocatorKind.ALGORITHM,
    "algo": LocatorKind.ALGORITHM,
    "appendix": LocatorKind.APPENDIX,
    "app": LocatorKind.APPENDIX,
    "appx": LocatorKind.APPENDIX,
    "page": LocatorKind.PAGE,
    "p": LocatorKind.PAGE,
    "pp": LocatorKind.PAGE,
    "pg": LocatorKind.PAGE,
}

_FORMS = "§3.1, tab. 2, fig. 4, eq. 5, eq. 3-6, alg. 1, app. B, p. 7"
_HEAD = re.compile(r"(?P<word>§+|[A-Za-z]+\.?)(?P<space>\s*)")
_DOTTED = re.compile(r"\d+(?:\.\d+)*")
_RANGE = re.compile(r"(\d+)-(\d+)")
_APPENDIX = re.compile(r"([A-Z])((?:\.\d+)*)")


class LocatorError(ValueError):
    """A locator that does not follow the grammar.

    ``col_offset`` is the 0-based offset of the offending character inside the locator text;
    ``hint`` is a suggested fix, such as ``"did you mean `tab. 2`"``.
    """

    def __init__(self, message: str, col_offset: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.col_offset = col_offset
        self.hint = hint


@dataclass(frozen=True)
class Locator:
    """A parsed locator such as ``§3.1`` or ``eq. 3-6``.

    ``parts`` holds the dotted label (``("3", "1")`` for ``§3.1``, ``("B", "2")`` for
    ``app. B.2``); ``end`` is the last number of a range (``6`` for ``eq. 3-6``) or ``None``.
    """

    kind: LocatorKind
    parts: tuple[str, ...]
    end: int | None = None

    def __str__(self) -> str:
        label = ".".join(self.parts)
        if self.end is not None:
            label = f"{label}-{self.end}"
        return f"{self.kind.prefix}{label}"

    def covers(self, other: Locator) -> bool:
        """Whether ``other`` lies inside this locator (every locator covers itself)."""
        if self.kind is not other.kind:
            return False
        if self.end is None and other.end is None:
            return other.parts[: len(self.parts)] == self.parts
        if self.end is None or len(self.parts) != 1:
            return False
        low, high = int(self.parts[0]), self.end
        other_low = int(other.parts[0])
        other_high = other_low if other.end is None else other.end
        return low <= other_low and other_high <= high


def parse_locator(text: str) -> Locator:
    """Parse one locator in canonical form, e.g. ``"tab. 2"``; raise :class:`LocatorError`."""
    head = _HEAD.match(text)
    if head is None:
        if not text.strip():
            raise LocatorError("empty locator", 0, f"use one of {_FORMS}")
        raise LocatorError(f"unknown locator {text!r}", 0, f"use one of {_FORMS}")
    word, space = head["word"], head["space"]
    kind = _ALIASES.get(word.lower().rstrip("."))
    if kind is None:
        raise LocatorError(f"unknown locator {text!r}", 0, f"use one of {_FORMS}")
    label_offset = head.end()
    label = text[label_offset:]
    canonical_head = word + space == kind.prefix
    if not canonical_head:
        suggestion = _suggest(kind, label)
        advice = f"did you mean `{suggestion}`" if suggestion else f"use one of {_FORMS}"
        raise LocatorError(f"unknown locator {text!r}", 0, advice)
    try:
        parts, end = _parse_label(kind, label)
    except LocatorError as error:
        suggestion = _suggest(kind, label)
        hint = error.hint
        if suggestion is not None and suggestion != text:
            hint = f"did you mean `{suggestion}`"
        raise LocatorError(error.message, label_offset + error.col_offset, hint) from None
    return Locator(kind, parts, end)


def _parse_label(kind: LocatorKind, label: str) -> tuple[tuple[str, ...], int | None]:
    """Split a label into its dotted parts and optional range end."""
    noun = kind.value
    if not label:
        raise LocatorError(f"missing {noun} label", 0, f"write it like `{_example(kind)}`")
    if kind is LocatorKind.APPENDIX:
        match = _APPENDIX.fullmatch(label)
        if match is None:
            raise LocatorError(
                f"bad appendix label {label!r}", 0, f"write it like `{_example(kind)}`"
            )
        numbers = tuple(str(int(n)) for n in match[2].split(".")[1:])
        return (match[1], *numbers), None
    ranged = _RANGE.fullmatch(label)
    if ranged is not None:
        start, end = int(ranged[1]), int(ranged[2])
        if end < start:
            raise LocatorError(
                f"reversed range {label!r}", 0, f"did you mean `{kind.prefix}{end}-{start}`"
            )
        if end == start:
            raise LocatorError(
                f"range {label!r} has a single item", 0, f"did you mean `{kind.prefix}{start}`"
            )
        return (str(start),), end
    if _DOTTED.fullmatch(label) is None or (kind is LocatorKind.PAGE and "." in label):
        raise LocatorError(f"bad {noun} number {label!r}", 0, f"write it like `{_example(kind)}`")
    return tuple(str(int(n)) for n in label.split(".")), None


def _suggest(kind: LocatorKind, label: str) -> str | None:
    """The canonical form of a near miss, or ``None`` when the label cannot be repaired."""
    cleaned = re.sub(r"\s*[-–—]\s*", "-", label.strip().strip("()[]").strip())
    if kind is LocatorKind.APPENDIX:
        cleaned = cleaned[:1].upper() + cleaned[1:]
    if kind is LocatorKind.SECTION and _APPENDIX.fullmatch(cleaned):
        kind = LocatorKind.APPENDIX
    try:
        parts, end = _parse_label(kind, cleaned)
    except LocatorError:
        return None
    return str(Locator(kind, parts, end))


def _example(kind: LocatorKind) -> str:
    return {
        LocatorKind.SECTION: "§3.1",
        LocatorKind.TABLE: "tab. 2",
        LocatorKind.FIGURE: "fig. 4",
        LocatorKind.EQUATION: "eq. 5` or `eq. 3-6",
        LocatorKind.ALGORITHM: "alg. 1",
        LocatorKind.APPENDIX: "app. B",
        LocatorKind.PAGE: "p. 7",
    }[kind]
