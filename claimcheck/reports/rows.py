"""One report row per claim (:class:`ClaimRow`): what every output format prints of it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from claimcheck.verdicts.verdict import Verdict, format_value


@dataclass(frozen=True)
class ClaimRow:
    """One claim's line of the report. ``error`` is set when its check raised, hung or died."""

    claim: str
    card: str
    line: int
    statement: str
    verdict: str
    reason: str
    measured: Any
    expected: dict[str, Any] | None
    fidelity: str | None
    stale: bool
    duration_s: float | None
    tier: str | None
    budget: str | None
    device: str | None
    details: str = ""
    error: str | None = None
    ran: bool = False
    basis: str | None = None
    quote: str | None = None
    quote_state: str | None = None
    quote_message: str = ""
    secondary_source: str | None = None
    environment_note: str = ""
    interval: dict[str, Any] | None = None
    shown: str | None = None  # the measurement with its interval, chance and budget
    power: dict[str, Any] | None = None  # store.power.ClaimPower.to_json(), where derived

    @property
    def errored(self) -> bool:
        """True when the check failed to produce a measurement (raised, timed out, died); a
        failed run whose earlier result the store kept shows that result's verdict and still
        errs."""
        return self.error is not None and (self.verdict == Verdict.UNVERIFIED.value or self.ran)

    def where(self) -> str:
        """``wiki/papers/x.md:23``."""
        return f"{self.card}:{self.line}"

    def measured_text(self) -> str:
        """The measurement as the reports print it: with its interval when it has one."""
        return self.shown or format_value(self.measured)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract: every field, plus ``errored``."""
        return {**asdict(self), "errored": self.errored}
