"""Lint findings: a level and a place (shared by the lint rules of every module)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from claimcheck.core.visible import visible

__all__ = ["Finding", "Level"]


class Level(str, Enum):
    """Severity of a finding; only errors fail the lint."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One lint finding at a place in a file."""

    level: Level
    path: str
    line: int
    col: int
    message: str
    rule: str

    def as_text(self) -> str:
        """``path:line:col: level: message``, control characters shown escaped
        (:mod:`claimcheck.core.visible`)."""
        return visible(f"{self.path}:{self.line}:{self.col}: {self.level.value}: {self.message}")
