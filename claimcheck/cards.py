"""Pydantic models of the wiki's cards: the raw input contract at the YAML boundary.

Two kinds of card share a core of fields and are told apart by ``kind``:

* :class:`ConceptCard` explains an idea and cites papers in its body;
* :class:`PaperCard` describes one paper and registers its :class:`Claim` objects.

All models forbid unknown keys and do not coerce types (a quoted ``"3"`` is not an int), so a typo
in a card is an error with a place, not a silently ignored field.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

ARXIV_ID_PATTERN = r"^(\d{4}\.\d{4,5}|[a-z][a-z-]*(\.[A-Z]{2})?/\d{7})$"
SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
CLAIM_ID_PATTERN = r"^[a-z0-9]+([-_][a-z0-9]+)*$"

Number = StrictInt | StrictFloat


class Tier(str, Enum):
    """Cost class of a check: what CI can afford to run."""

    STATIC = "static"
    UNIT = "unit"
    BENCH = "bench"
    TRAIN = "train"


class Status(str, Enum):
    """Editorial status of a card."""

    DRAFT = "draft"
    REVIEWED = "reviewed"
    STABLE = "stable"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _arxiv_id(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return value
    if isinstance(value, (int, float)):
        raise PydanticCustomError(
            "arxiv_not_string",
            "arXiv id must be a string: YAML read {value} as a number; write it in quotes, "
            'e.g. "{value}"',
            {"value": str(value)},
        )
    return value


ArxivId = Annotated[
    StrictStr,
    Field(pattern=ARXIV_ID_PATTERN, description='arXiv id, quoted: "2101.12491"'),
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


class Expect(_Strict):
    """The claim's expectation: exactly one comparator.

    ``equals``, ``approx`` (with exactly one of ``rel_tol``/``abs_tol``), ``at_most``,
    ``at_least``, ``between: [lo, hi]`` or ``holds: true`` (for property checks).
    """

    equals: StrictInt | StrictFloat | StrictStr | StrictBool | list[Any] | None = None
    approx: Number | None = None
    rel_tol: Annotated[Number, Field(gt=0)] | None = None
    abs_tol: Annotated[Number, Field(gt=0)] | None = None
    at_most: Number | None = None
    at_least: Number | None = None
    between: Annotated[list[Number], Field(min_length=2, max_length=2)] | None = None
    holds: Literal[True] | None = None

    @model_validator(mode="after")
    def _one_comparator(self) -> Expect:
        chosen = self.model_fields_set & {
            "equals", "approx", "at_most", "at_least", "between", "holds"
        }
        if len(chosen) != 1:
            raise PydanticCustomError(
                "expect_comparator",
                "expect needs exactly one of equals, approx, at_most, at_least, between, "
                "holds (got {got})",
                {"got": ", ".join(sorted(chosen)) or "none"},
            )
        tolerances = self.model_fields_set & {"rel_tol", "abs_tol"}
        if "approx" in chosen and len(tolerances) != 1:
            raise PydanticCustomError(
                "expect_tolerance", "approx needs exactly one of rel_tol or abs_tol", {}
            )
        if "approx" not in chosen and tolerances:
            raise PydanticCustomError(
                "expect_tolerance", "rel_tol/abs_tol only go with approx", {}
            )
        if self.between is not None and self.between[0] > self.between[1]:
            raise PydanticCustomError(
                "expect_between", "between needs [low, high] with low <= high", {}
            )
        return self

    def as_mapping(self) -> dict[str, Any]:
        """The expectation as the author wrote it."""
        return self.model_dump(include=self.model_fields_set, mode="json")


class Resources(_Strict):
    """Resources one check needs when it runs on a cluster (overrides the tier's defaults)."""

    cpus: Annotated[Number, Field(gt=0)] | None = None
    gpus: Annotated[Number, Field(ge=0)] | None = None
    memory_gb: Annotated[Number, Field(gt=0)] | None = None


class Claim(_Strict):
    """One checkable statement of a paper, at a locator of that paper."""

    id: Annotated[StrictStr, Field(pattern=CLAIM_ID_PATTERN)]
    cite: StrictStr | Annotated[list[StrictStr], Field(min_length=1)]
    statement: Annotated[StrictStr, Field(min_length=1)]
    check: StrictStr | None = None
    args: dict[StrictStr, Any] = Field(default_factory=dict)
    expect: Expect | None = None
    unverified: Annotated[StrictStr, Field(min_length=1)] | None = None
    accept_proxy: StrictBool = False
    tier: Annotated[Tier, Field(strict=False)] | None = None
    resources: Resources | None = None

    @model_validator(mode="after")
    def _check_or_reason(self) -> Claim:
        if self.check is None and self.unverified is None:
            raise PydanticCustomError(
                "claim_check", "a claim needs either check (with expect) or unverified: reason", {}
            )
        if self.check is not None and self.unverified is not None:
            raise PydanticCustomError(
                "claim_check", "a claim has check or unverified, not both", {}
            )
        if self.check is not None and self.expect is None:
            raise PydanticCustomError("claim_expect", "a claim with a check needs expect", {})
        if self.check is None and (self.expect is not None or self.args):
            raise PydanticCustomError(
                "claim_expect", "an unverified claim takes no expect or args", {}
            )
        return self

    @property
    def locators(self) -> list[str]:
        """The claim's locator strings, always as a list."""
        return [self.cite] if isinstance(self.cite, str) else list(self.cite)


class CodeLink(_Strict):
    """A link to an implementation of the paper."""

    url: Annotated[StrictStr, Field(pattern=r"^https?://")]
    official: StrictBool = False


class _CardBase(_Strict):
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
    """A card that explains an idea, drawing on the papers it lists."""

    kind: Literal["concept"]
    papers: list[ArxivId] = Field(default_factory=list)
    related: list[Annotated[StrictStr, Field(pattern=SLUG_PATTERN)]] = Field(
        default_factory=list
    )

    @field_validator("papers", mode="before")
    @classmethod
    def _papers(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [_arxiv_id(item) for item in value]
        return value


class PaperCard(_CardBase):
    """A card that describes one paper and registers its claims."""

    kind: Literal["paper"]
    arxiv: ArxivId
    authors: Annotated[list[StrictStr], Field(min_length=1)]
    year: Annotated[StrictInt, Field(ge=1900, le=2100)]
    venue: StrictStr | None = None
    code: list[CodeLink] = Field(default_factory=list)
    related: list[Annotated[StrictStr, Field(pattern=SLUG_PATTERN)]] = Field(
        default_factory=list
    )
    claims: list[Claim] = Field(default_factory=list)

    @field_validator("arxiv", mode="before")
    @classmethod
    def _arxiv(cls, value: Any) -> Any:
        return _arxiv_id(value)

    def global_id(self, claim: Claim) -> str:
        """``ARXIV/claim-id``, unique across the wiki."""
        return f"{self.arxiv}/{claim.id}"


Card = Annotated[ConceptCard | PaperCard, Field(discriminator="kind")]

ARXIV_RE = re.compile(ARXIV_ID_PATTERN)
