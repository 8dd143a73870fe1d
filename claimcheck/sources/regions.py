"""Regions of a LaTeX document and the locators that name them (see :mod:`.structure`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claimcheck.cards.locators import Locator, LocatorKind

__all__ = ["Region", "Structure", "letters", "locator_of"]

_KINDS = {
    "section": LocatorKind.SECTION, "table": LocatorKind.TABLE, "figure": LocatorKind.FIGURE,
    "algorithm": LocatorKind.ALGORITHM, "equation": LocatorKind.EQUATION,
}
_NUMERIC = re.compile(r"\d+(\.\d+)*")


@dataclass(frozen=True)
class Region:
    """A span of the document: ``kind`` (section, table, figure, algorithm, equation, abstract,
    front, unnumbered), its printed ``number`` (``"3.1"``, ``"B.2"``, ``"5"``, or ``""``) and the
    :class:`Locator` that names it (``None`` where no locator can)."""

    kind: str
    number: str
    start: int
    end: int
    locator: Locator | None = None
    title: str = ""

    def describe(self) -> str:
        """A locator to paste, or words for an unnumbered place."""
        if self.locator is not None:
            return str(self.locator)
        if self.kind in ("abstract", "front"):
            return "the abstract or title block (cite it as p. 1)"
        if self.number:
            return f"{self.kind} ({self.number}), which no locator can name"
        what = f" '{self.title}'" if self.title else ""
        return f"an unnumbered {self.kind}{what}"


@dataclass
class Structure:
    """Regions in document order, and ``\\label`` -> (kind, printed number)."""

    regions: list[Region] = field(default_factory=list)
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)
    start: int = 0
    end: int = 0


def locator_of(kind: str, number: str, appendix: bool) -> Locator | None:
    """The locator of a numbered thing (``None`` when no locator can name it)."""
    if not number:
        return None
    if kind == "section" and appendix:
        head, _, rest = number.partition(".")
        if len(head) == 1 and head.isalpha() and (not rest or _NUMERIC.fullmatch(rest)):
            return Locator(LocatorKind.APPENDIX, (head, *rest.split(".")) if rest else (head,))
        return None
    if kind in _KINDS and _NUMERIC.fullmatch(number):
        return Locator(_KINDS[kind], tuple(str(int(p)) for p in number.split(".")))
    return None


def letters(value: int) -> str:
    """LaTeX's ``\\Alph``: 1 -> A, 27 -> AA."""
    text = ""
    while value > 0:
        value, rest = divmod(value - 1, 26)
        text = chr(ord("A") + rest) + text
    return text
