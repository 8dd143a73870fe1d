"""Pydantic models of the wiki's cards: the raw input contract at the YAML boundary.

Two kinds of card share a core of fields and are told apart by ``kind``:

* :class:`ConceptCard` explains an idea and cites papers in its body;
* :class:`PaperCard` describes one paper and registers its :class:`Claim` objects
  (:mod:`claimcheck.cards.claims`, re-exported here).

All models forbid unknown keys and do not coerce types (a quoted ``"3"`` is not an int), so a typo
in a card is an error with a place, not a silently ignored field.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from claimcheck.cards.claims import (
    CLAIM_ID_PATTERN,
    MAX_QUOTE_LENGTH,
    Basis,
    Claim,
    Expect,
    Number,
    Resources,
    Strict,
    Tier,
)
from claimcheck.cards.identifiers import (
    ARXIV_ID_PATTERN,
    DOI_PATTERN,
    OPENREVIEW_PATTERN,
    PAPER_KEY_PATTERN,
    IdentifierError,
    PaperId,
    check_arxiv,
    check_doi,
    check_openreview,
    parse_paper_key,
)
from claimcheck.cards.readings import CitationReading, Copy, PaperVersion

__all__ = [
    "ARXIV_ID_PATTERN", "ARXIV_RE", "CLAIM_ID_PATTERN", "DOI_PATTERN", "IDENTITY_FIELDS",
    "MAX_QUOTE_LENGTH", "OPENREVIEW_PATTERN", "PAPER_KEY_PATTERN", "SHA256_PATTERN",
    "SLUG_PATTERN", "Basis", "Card", "Claim", "CodeLink", "ConceptCard", "Expect", "Number",
    "PaperCard", "Resources", "SourceKind", "SourcePin", "Status", "Tier",
]

SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"

class Status(str, Enum):
    """Editorial status of a card."""

    DRAFT = "draft"
    REVIEWED = "reviewed"
    STABLE = "stable"


class SourceKind(str, Enum):
    """The form of a paper's pinned source: the LaTeX e-print first, else the PDF."""

    LATEX = "latex"
    PDF = "pdf"


SHA256_PATTERN = r"^[0-9a-f]{64}$"


def _identifier(check: Any, allow_numbers: bool = False) -> Any:
    """A before-validator that gives identifier near misses a hint; the pattern does the rest."""

    def validate(value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and allow_numbers:
            raise PydanticCustomError(
                "arxiv_not_string",
                "arXiv id must be a string: YAML read {value} as a number; write it in quotes, "
                'e.g. "{value}"',
                {"value": str(value)},
            )
        if isinstance(value, str):
            try:
                check(value)
            except IdentifierError as error:
                raise PydanticCustomError(
                    "identifier", "{message}", {"message": str(error)}) from None
        return value

    return validate


_arxiv_id = _identifier(check_arxiv, allow_numbers=True)


def _paper_key(value: Any) -> Any:
    if isinstance(value, str) and ":" in value:
        return _identifier(parse_paper_key)(value)
    return _arxiv_id(value)


ArxivId = Annotated[
    StrictStr,
    Field(pattern=ARXIV_ID_PATTERN, description='arXiv id, quoted: "2101.12491"'),
]
PaperKey = Annotated[
    StrictStr,
    Field(
        pattern=PAPER_KEY_PATTERN,
        description='a paper: an arXiv id ("2101.12491"), or "doi:…", "openreview:…", '
        '"url:<card slug>"',
    ),
]


def _parse_date(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise PydanticCustomError(
                "bad_date", "bad date '{value}': expected YYYY-MM-DD", {"value": value}
            ) from None
    return value


class SourcePin(Strict):
    """The exact source file that a paper card's quotes and locators are checked against.

    ``version`` is the arXiv version (required for arXiv papers); ``kind`` the form of the
    source (``latex``: the e-print, the only form with a locator index); ``sha256`` the hash of
    the downloaded file, which ``claimcheck papers fetch`` compares and refuses on a mismatch;
    ``url`` where to fetch it from when the identifier alone does not say.
    """

    version: Annotated[StrictInt, Field(ge=1)] | None = None
    kind: Annotated[SourceKind, Field(strict=False)] = SourceKind.LATEX
    sha256: Annotated[StrictStr, Field(pattern=SHA256_PATTERN)]
    url: Annotated[StrictStr, Field(pattern=r"^https?://\S+$")] | None = None


class CodeLink(Strict):
    """A link to an implementation of the paper."""

    url: Annotated[StrictStr, Field(pattern=r"^https?://")]
    official: StrictBool = False


class _CardBase(Strict):
    slug: Annotated[StrictStr, Field(pattern=SLUG_PATTERN)]
    title: Annotated[StrictStr, Field(min_length=1)]
    summary: StrictStr | None = None
    tags: list[Annotated[StrictStr, Field(pattern=SLUG_PATTERN)]] = Field(default_factory=list)
    status: Annotated[Status, Field(strict=False)] = Status.DRAFT
    updated_at: dt.date

    @field_validator("updated_at", mode="before")
    @classmethod
    def _date(cls, value: Any) -> Any:
        return _parse_date(value)


class ConceptCard(_CardBase):
    """A card that explains an idea, drawing on the papers it lists.

    ``readings`` records, per paper and locator its body cites, whether the citation was
    confirmed against a copy of the paper (:class:`claimcheck.cards.readings.CitationReading`).
    """

    kind: Literal["concept"]
    papers: list[PaperKey] = Field(default_factory=list)
    related: list[Annotated[StrictStr, Field(pattern=SLUG_PATTERN)]] = Field(
        default_factory=list
    )
    readings: list[CitationReading] = Field(default_factory=list)

    @field_validator("papers", mode="before")
    @classmethod
    def _papers(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [_paper_key(item) for item in value]
        return value


IDENTITY_FIELDS = ("arxiv", "doi", "openreview", "url")


class PaperCard(_CardBase):
    """A card that describes one paper and registers its claims.

    The paper is named by exactly one of ``arxiv``, ``doi``, ``openreview`` or ``url`` (see
    :mod:`claimcheck.cards.identifiers` for the keys and global ids each gives). ``version`` names
    the version every locator of the card refers to, ``copies`` the copies its claims were read
    against (:mod:`claimcheck.cards.readings`).
    """

    kind: Literal["paper"]
    arxiv: ArxivId | None = None
    doi: Annotated[
        StrictStr, Field(pattern=DOI_PATTERN, description="a DOI, e.g. 10.1038/...")
    ] | None = None
    openreview: Annotated[
        StrictStr, Field(pattern=OPENREVIEW_PATTERN, description="an OpenReview forum id")
    ] | None = None
    url: Annotated[StrictStr, Field(pattern=r"^https?://\S+$")] | None = None
    authors: Annotated[list[StrictStr], Field(min_length=1)]
    year: Annotated[StrictInt, Field(ge=1900, le=2100)]
    venue: StrictStr | None = None
    source: SourcePin | None = None
    version: PaperVersion | None = None
    copies: dict[Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")], Copy] = (
        Field(default_factory=dict)
    )
    code: list[CodeLink] = Field(default_factory=list)
    related: list[Annotated[StrictStr, Field(pattern=SLUG_PATTERN)]] = Field(
        default_factory=list
    )
    claims: list[Claim] = Field(default_factory=list)

    @field_validator("arxiv", mode="before")
    @classmethod
    def _arxiv(cls, value: Any) -> Any:
        return _arxiv_id(value)

    @field_validator("doi", mode="before")
    @classmethod
    def _doi(cls, value: Any) -> Any:
        return _identifier(check_doi)(value)

    @field_validator("openreview", mode="before")
    @classmethod
    def _openreview(cls, value: Any) -> Any:
        return _identifier(check_openreview)(value)

    @model_validator(mode="after")
    def _one_identity(self) -> PaperCard:
        named = [name for name in IDENTITY_FIELDS if getattr(self, name) is not None]
        if len(named) != 1:
            raise PydanticCustomError(
                "paper_identity",
                "a paper card names its paper by exactly one of arxiv, doi, openreview or url "
                "(got {got})",
                {"got": ", ".join(named) or "none", "at": named[1] if len(named) > 1 else ""},
            )
        if self.arxiv is not None and self.source is not None and self.source.version is None:
            raise PydanticCustomError(
                "source_version",
                "an arXiv source pin needs its version (add version: N under source)",
                {"at": "source"},
            )
        return self

    @property
    def paper_id(self) -> PaperId:
        """The paper's identity (the slug stands for a ``url`` paper)."""
        if self.arxiv is not None:
            return PaperId("arxiv", self.arxiv)
        if self.doi is not None:
            return PaperId("doi", self.doi)
        if self.openreview is not None:
            return PaperId("openreview", self.openreview)
        return PaperId("url", self.slug)

    @property
    def paper_key(self) -> str:
        """``2101.12491``, ``doi:10.1038/...``, ``openreview:ID`` or ``url:slug``."""
        return self.paper_id.key

    def global_id(self, claim: Claim) -> str:
        """``PAPER-KEY/claim-id`` (``2101.12491/mnist-params`` for arXiv), unique in the wiki."""
        return f"{self.paper_key}/{claim.id}"


Card = Annotated[ConceptCard | PaperCard, Field(discriminator="kind")]

ARXIV_RE = re.compile(ARXIV_ID_PATTERN)
