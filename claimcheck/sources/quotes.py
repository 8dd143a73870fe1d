"""Check a quote against a paper's source: is it there, and inside the claim's locator?

:class:`SourceIndex` joins the locator index (:mod:`claimcheck.sources.structure`) and the
canonical text (:mod:`claimcheck.sources.text`) of one LaTeX document. :func:`check_quote`
decides one of five outcomes (:class:`QuoteState`):

* ``found``: the quote occurs inside a region that one of the claim's locators covers;
* ``elsewhere``: it occurs, but outside them; the message names where, as a locator the author
  can paste (the most specific one: an equation, table, figure or algorithm before a section);
* ``not-found``: it does not occur in the document;
* ``no-source``: the paper's source is not cached, or it is a PDF (no LaTeX to index);
* ``uncheckable``: it occurs, but the claim's only locators are pages other than ``p. 1``,
  which LaTeX does not have (``p. 1`` covers the title block and abstract).

A locator that names nothing in the document (``tab. 9`` in a paper with four tables) is reported
by :meth:`SourceIndex.missing` whether or not the claim has a quote.
"""

from __future__ import annotations

from collections.abc import Sequence

from claimcheck.cards.locators import Locator, LocatorKind
from claimcheck.sources.latex import LatexProject, flatten
from claimcheck.sources.outcome import QuoteCheck, QuoteState
from claimcheck.sources.structure import Region, Structure, build_regions
from claimcheck.sources.text import CanonicalText, canonical, macros

__all__ = ["QuoteCheck", "QuoteState", "SourceIndex", "check_quote"]

_SPECIFIC = ("equation", "table", "figure", "algorithm")
_FIRST_PAGE = Locator(LocatorKind.PAGE, ("1",))


class SourceIndex:
    """One LaTeX document: its regions, labels and canonical text."""

    def __init__(self, document: str) -> None:
        self.document = document
        self.structure: Structure = build_regions(document)
        self.macros = macros(document)
        self.text: CanonicalText = canonical(
            document, self.structure.labels, self.structure.start, self.structure.end,
            self.macros)

    @classmethod
    def from_project(cls, project: LatexProject) -> SourceIndex:
        """Index the main document of a LaTeX project."""
        return cls(flatten(project))

    @property
    def regions(self) -> list[Region]:
        """Every region, in document order."""
        return self.structure.regions

    def covered_by(self, locator: Locator) -> list[Region]:
        """The regions that ``locator`` names or contains (``p. 1``: the front matter)."""
        if locator.kind is LocatorKind.PAGE:
            if locator.covers(_FIRST_PAGE):
                return [r for r in self.regions if r.kind in ("front", "abstract")]
            return []
        return [r for r in self.regions if r.locator is not None and locator.covers(r.locator)]

    def missing(self, locator: Locator) -> str | None:
        """Why ``locator`` names nothing in this document, or ``None`` when it does."""
        if locator.kind is LocatorKind.PAGE:
            return None
        ends = [locator]
        if locator.end is not None:
            ends = [Locator(locator.kind, locator.parts),
                    Locator(locator.kind, (str(locator.end),))]
        for end in ends:
            if not any(r.locator == end for r in self.regions):
                return f"{end} is not in the source ({self.inventory(locator.kind)})"
        return None

    def inventory(self, kind: LocatorKind) -> str:
        """What the document has of ``kind``, e.g. ``tables 1-4``."""
        labels = [str(r.locator).split(" ", 1)[-1].lstrip("§") for r in self.regions
                  if r.locator is not None and r.locator.kind is kind]
        noun = {"section": "sections", "table": "tables", "figure": "figures",
                "equation": "equations", "algorithm": "algorithms",
                "appendix": "appendices"}.get(kind.value, kind.value)
        if not labels:
            return f"it has no numbered {noun}"
        if all(label.isdigit() for label in labels):
            numbers = sorted({int(label) for label in labels})
            if numbers == list(range(numbers[0], numbers[-1] + 1)):
                return f"it has {noun} {numbers[0]}-{numbers[-1]}"
        shown = ", ".join(dict.fromkeys(labels))
        return f"it has {noun} {shown}"

    def find(self, quote: str) -> list[tuple[int, int]]:
        """Document spans where the canonical quote occurs."""
        return self.text.find_all(canonical(quote, defined=self.macros).text)

    def containing(self, span: tuple[int, int]) -> list[Region]:
        """Regions that contain the whole span, most specific first."""
        start, end = span
        inside = [r for r in self.regions if r.start <= start and end <= r.end]
        return sorted(inside, key=lambda r: (r.kind not in _SPECIFIC, r.end - r.start))

    def line_of(self, offset: int) -> int:
        """1-based line of an offset in the flattened document."""
        return self.document.count("\n", 0, offset) + 1


def check_quote(index: SourceIndex | None, quote: str, locators: Sequence[Locator],
                no_source: str = "the paper's source is not cached") -> QuoteCheck:
    """Decide where ``quote`` stands against ``locators`` (see the module docstring)."""
    if index is None:
        return QuoteCheck(QuoteState.NO_SOURCE, f"quote not checked: {no_source}")
    spans = index.find(quote)
    if not spans:
        return QuoteCheck(QuoteState.NOT_FOUND, "quote not found in the paper's source")
    targets = [region for locator in locators for region in index.covered_by(locator)]
    for span in spans:
        for region in targets:
            if region.start <= span[0] and span[1] <= region.end:
                return QuoteCheck(QuoteState.FOUND, f"quote found at {region.describe()}")
    places = index.containing(spans[0])
    place = next((r for r in places if r.locator is not None), places[0] if places else None)
    where = place.describe() if place is not None else "the document"
    suggestion = str(place.locator) if place is not None and place.locator else None
    cited = ", ".join(str(locator) for locator in locators)
    if locators and all(
        locator.kind is LocatorKind.PAGE and not locator.covers(_FIRST_PAGE)
        for locator in locators
    ):
        return QuoteCheck(
            QuoteState.UNCHECKABLE,
            f"quote found in {where}, but {cited} cannot be checked: LaTeX has no page numbers",
            suggestion)
    return QuoteCheck(QuoteState.ELSEWHERE,
                      f"quote found in {where}, not at {cited}", suggestion)
