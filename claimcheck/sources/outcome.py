"""The outcome of checking a quote (kept apart so that reading it needs no LaTeX machinery)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["QuoteCheck", "QuoteState"]


class QuoteState(str, Enum):
    """The outcome of checking a quote (see the module docstring)."""

    FOUND = "found"
    ELSEWHERE = "elsewhere"
    NOT_FOUND = "not-found"
    NO_SOURCE = "no-source"
    UNCHECKABLE = "uncheckable"


@dataclass(frozen=True)
class QuoteCheck:
    """A quote's state, a one-line message, and a locator to paste (``elsewhere`` only)."""

    state: QuoteState
    message: str
    suggestion: str | None = None
