"""What a wiki's reading of a paper rests on: the version its locators follow, the copies read.

A paper card may say, in its front matter:

* ``version`` (:class:`PaperVersion`): the one version of the paper that every locator of the
  card refers to (``arXiv v2``, or the published article), and, where another version numbers
  things differently, the ``numbering`` table that maps the other numbering to this one. A
  citation of another version (``[arxiv:ID v1 §3]``) and a locator of a kind the card's version
  does not number (``unnumbered: [section]``: a journal article without section numbers) are
  accepted only through that table (:mod:`claimcheck.authoring.lint_readings`).
* ``copies`` (:class:`Copy`): the copies of the paper the claims were read against, each with its
  :class:`CopyKind`. A claim's ``reading.source`` (:class:`claimcheck.cards.claims.Reading`) names
  one of them, so that a locator confirmed only in a translation or a secondary quotation is shown
  with its own mark.

A concept card lists its ``readings`` (:class:`CitationReading`): one per paper and locator it
cites, whether that citation was confirmed and in which copy of that paper's card.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import Field, StrictBool, StrictInt, StrictStr, model_validator
from pydantic_core import PydanticCustomError

from claimcheck.cards.claims import Strict
from claimcheck.cards.locators import LocatorKind

__all__ = ["CitationReading", "Copy", "CopyKind", "NumberingRow", "PaperVersion"]

Text = Annotated[StrictStr, Field(min_length=1, max_length=400)]


class CopyKind(str, Enum):
    """What a copy of a paper is, as evidence that a locator says what the wiki says."""

    PRIMARY = "primary"
    """The paper itself, in the version the card's locators follow (or a page of it)."""
    TRANSLATION = "translation"
    """A complete translation: the numbering is the paper's, the wording is not."""
    SECONDARY = "secondary"
    """Sentences of the paper quoted by someone else (a README, a code comment, a review)."""
    CODE = "code"
    """The paper's code: it confirms what the code does, never what the paper says."""
    NONE = "none"
    """No copy: the locator rests on an earlier summary that could not be traced to the text."""

    @property
    def first_hand(self) -> bool:
        """Whether a locator confirmed in this copy was read in the paper itself."""
        return self is CopyKind.PRIMARY


class Copy(Strict):
    """One copy of the paper that the card's claims were read against."""

    kind: Annotated[CopyKind, Field(strict=False)]
    what: Text


class NumberingRow(Strict):
    """One row of a version's mapping table: ``other`` in ``version`` is ``here`` on this card.

    ``here`` is a locator of the card's own version, or, where that version does not number the
    part (an unnumbered section of a journal article), the part's name.
    """

    version: Annotated[StrictStr, Field(min_length=1, max_length=80)]
    other: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    here: Text
    note: Text | None = None


class PaperVersion(Strict):
    """The version of the paper that every locator of the card refers to."""

    name: Text
    arxiv: Annotated[StrictInt, Field(ge=1)] | None = None
    unnumbered: list[Annotated[LocatorKind, Field(strict=False)]] = Field(default_factory=list)
    numbering: list[NumberingRow] = Field(default_factory=list)

    def maps(self, version: str, locator: str) -> NumberingRow | None:
        """The table row that maps ``locator`` of ``version`` (``""``: any version), if any."""
        for row in self.numbering:
            if row.other == locator and (not version or row.version == version):
                return row
        return None


class CitationReading(Strict):
    """Whether a concept card's citations of one paper and locator were confirmed, and where.

    ``cite`` is the paper key and one locator as the body writes them (``"1710.09829 eq. 3"``);
    the reading covers every citation of that locator in the card. ``source`` names one of the
    ``copies`` of that paper's card.
    """

    cite: Annotated[StrictStr, Field(min_length=3, max_length=80)]
    confirmed: StrictBool
    source: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    note: Text | None = None

    @model_validator(mode="after")
    def _why_not(self) -> CitationReading:
        if not self.confirmed and self.note is None:
            raise PydanticCustomError(
                "reading_note", "a reading that is not confirmed needs a note saying why", {}
            )
        return self
