"""The claim of a paper card: what it states, what it is evidence of, and how it is checked.

:class:`Claim` holds a statement at a locator of its paper, its :class:`Basis`, an optional short
``quote`` of the paper, and either a check with its :class:`Expect`, an ``unverified:`` reason, or
(for a ``textual`` claim) nothing but the quote. Strict like every card model: unknown keys are
errors and types are not coerced.
"""

from __future__ import annotations

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
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "CLAIM_ID_PATTERN", "MAX_MEMORY_GB", "MAX_QUOTE_LENGTH", "Basis", "Claim", "EnvironmentPart",
    "Expect", "Number", "Reading", "Resources", "Tier",
]

CLAIM_ID_PATTERN = r"^[a-z0-9]+([-_][a-z0-9]+)*$"
MAX_QUOTE_LENGTH = 300
Number = StrictInt | StrictFloat
MAX_CPUS = 4096
MAX_GPUS = 1024
MAX_MEMORY_GB = 1 << 20
"""The largest memory limit that means anything (1 PiB); a larger one is a mistake, not a limit."""


class Tier(str, Enum):
    """Cost class of a check: what CI can afford to run."""

    STATIC = "static"
    UNIT = "unit"
    BENCH = "bench"
    TRAIN = "train"


class Basis(str, Enum):
    """What a claim's verdict is evidence of (one sentence each in
    :mod:`claimcheck.cards.basis`)."""

    PAPER_VS_CODE = "paper-vs-code"
    IMPLEMENTATION = "implementation"
    REPRODUCTION = "reproduction"
    TEXTUAL = "textual"
    WIKI = "wiki"


class Strict(BaseModel):
    """Forbid unknown keys, coerce nothing, freeze."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Expect(Strict):
    """The claim's expectation: exactly one comparator.

    ``equals``, ``approx`` (with exactly one of ``rel_tol``/``abs_tol``/``std``), ``at_most``,
    ``at_least``, ``between: [lo, hi]`` or ``holds: true`` (for property checks).
    ``{approx: 0.25, std: 0.005}`` is a paper's "mean ± std over runs": accepted is what a run
    of that distribution gives at the project's confidence level, ``approx ± z·std``
    (``claimcheck.verdicts.interval``).
    """

    equals: StrictInt | StrictFloat | StrictStr | StrictBool | list[Any] | None = None
    approx: Number | None = None
    rel_tol: Annotated[Number, Field(gt=0)] | None = None
    abs_tol: Annotated[Number, Field(gt=0)] | None = None
    std: Annotated[Number, Field(gt=0)] | None = None
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
        tolerances = self.model_fields_set & {"rel_tol", "abs_tol", "std"}
        if "approx" in chosen and len(tolerances) != 1:
            raise PydanticCustomError(
                "expect_tolerance", "approx needs exactly one of rel_tol, abs_tol or std", {}
            )
        if "approx" not in chosen and tolerances:
            raise PydanticCustomError(
                "expect_tolerance", "rel_tol/abs_tol/std only go with approx", {}
            )
        if self.between is not None and self.between[0] > self.between[1]:
            raise PydanticCustomError(
                "expect_between", "between needs [low, high] with low <= high", {}
            )
        return self

    def as_mapping(self) -> dict[str, Any]:
        """The expectation as the author wrote it."""
        return self.model_dump(include=self.model_fields_set, mode="json")


class Resources(Strict):
    """Resources one check needs when it runs on a cluster (overrides the tier's defaults).

    A card is untrusted: ``memory_gb`` can only lower the operator's per-check memory limit
    (:mod:`claimcheck.engine.limits`, bounded by :data:`MAX_MEMORY_GB`), and every value must be
    finite and of a size a machine has (non-finite, negative or absurd values are errors of the
    card, located by lint and verify).
    """

    cpus: Annotated[Number, Field(gt=0, le=MAX_CPUS, allow_inf_nan=False)] | None = None
    gpus: Annotated[Number, Field(ge=0, le=MAX_GPUS, allow_inf_nan=False)] | None = None
    memory_gb: Annotated[Number, Field(gt=0, le=MAX_MEMORY_GB, allow_inf_nan=False)] | None = None


class Reading(Strict):
    """Whether a claim's locator and quote were confirmed in a copy of the paper, and where.

    ``source`` names one of the paper card's ``copies`` (the translation, a secondary quotation,
    the published article, ...); lint refuses a name the card does not list, so the site can
    tell a locator confirmed in the paper itself from one confirmed only at second hand.
    ``note`` says what was (or could not be) confirmed: for ``confirmed: false`` it is required,
    and it is the reason.
    """

    confirmed: StrictBool
    source: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    note: Annotated[StrictStr, Field(min_length=1, max_length=400)] | None = None

    @model_validator(mode="after")
    def _why_not(self) -> Reading:
        if not self.confirmed and self.note is None:
            raise PydanticCustomError(
                "reading_note", "a reading that is not confirmed needs a note saying why", {}
            )
        return self


EnvironmentPart = Literal["torch", "python", "platform", "environment"]
"""What ``rerun_on`` may name: a part of the recorded environment, or all of it."""


class Claim(Strict):
    """One checkable statement of a paper, at a locator of that paper.

    ``basis`` says what the verdict is evidence of (inferred from the check kind where that is
    unambiguous, :func:`claimcheck.cards.basis.claim_basis`). ``quote`` is a short verbatim passage
    of the paper inside the claim's locator; a ``textual`` claim has no check and is decided by its
    quote alone. ``secondary_source`` names the source that the locator or figure rests on when
    it is not the paper itself. ``reading`` records whether the locator and quote were
    confirmed, and in which copy of the paper (:class:`Reading`). ``rerun_on`` lists parts of
    the environment (``torch``, ``python``, ``platform``, or ``environment`` for all three)
    whose change makes the stored result stale: a timing ratio measured under another torch is
    not evidence about this one. Without it, the environment is provenance only, shown as a
    difference.
    ``catches`` names the wrong variants (:mod:`claimcheck.trust.variants`) its check must catch: a
    power run (``claimcheck verify --power``) runs the check once under each; ``catches_note``
    says why no variant applies.
    """

    id: Annotated[StrictStr, Field(pattern=CLAIM_ID_PATTERN)]
    cite: StrictStr | Annotated[list[StrictStr], Field(min_length=1)]
    statement: Annotated[StrictStr, Field(min_length=1)]
    basis: Annotated[Basis, Field(strict=False)] | None = None
    quote: Annotated[StrictStr, Field(min_length=1, max_length=MAX_QUOTE_LENGTH)] | None = None
    secondary_source: Annotated[StrictStr, Field(min_length=1, max_length=200)] | None = None
    reading: Reading | None = None
    check: StrictStr | None = None
    args: dict[StrictStr, Any] = Field(default_factory=dict)
    expect: Expect | None = None
    unverified: Annotated[StrictStr, Field(min_length=1)] | None = None
    accept_proxy: StrictBool = False
    tier: Annotated[Tier, Field(strict=False)] | None = None
    resources: Resources | None = None
    rerun_on: list[EnvironmentPart] = Field(default_factory=list)
    catches: list[Annotated[StrictStr, Field(min_length=1)]] = Field(default_factory=list)
    catches_note: Annotated[StrictStr, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _check_or_reason(self) -> Claim:
        textual = self.basis is Basis.TEXTUAL
        if textual and self.check is not None:
            raise PydanticCustomError(
                "claim_textual",
                "a textual claim is decided by its quote, so it takes no check (a check "
                "measures code: choose another basis)", {},
            )
        if self.check is None and self.unverified is None and not textual:
            raise PydanticCustomError(
                "claim_check",
                "a claim needs either check (with expect), unverified: reason, or basis: "
                "textual with a quote", {},
            )
        if textual and self.unverified is None and self.quote is None:
            raise PydanticCustomError(
                "claim_quote", "a textual claim needs the quote that decides it", {}
            )
        if self.check is not None and self.unverified is not None:
            raise PydanticCustomError(
                "claim_check", "a claim has check or unverified, not both", {}
            )
        if self.check is not None and self.expect is None:
            raise PydanticCustomError("claim_expect", "a claim with a check needs expect", {})
        if self.check is None and (self.expect is not None or self.args):
            raise PydanticCustomError(
                "claim_expect", "a claim without a check takes no expect or args", {}
            )
        if self.check is None and self.catches:
            raise PydanticCustomError(
                "claim_catches", "catches lists wrong variants a check must catch, so it needs "
                "a check", {},
            )
        if len(set(self.catches)) != len(self.catches):
            raise PydanticCustomError("claim_catches", "catches lists a variant twice", {})
        return self

    @property
    def locators(self) -> list[str]:
        """The claim's locator strings, always as a list."""
        return [self.cite] if isinstance(self.cite, str) else list(self.cite)
