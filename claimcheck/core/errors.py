"""One exception family for claimcheck.

Every error that a user can cause carries the place it came from, so the CLI can print one line
``path:line:col: error: message`` and never a traceback (unless ``--debug``).
"""

from __future__ import annotations


class ClaimcheckError(Exception):
    """Base class of every error claimcheck raises on purpose.

    ``path``, ``line`` and ``col`` (1-based) locate the problem when it has a place in a file.
    """

    def __init__(
        self,
        message: str,
        path: str | None = None,
        line: int | None = None,
        col: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.col = col

    def location(self) -> str:
        """``path:line:col`` as far as it is known, or an empty string."""
        if self.path is None:
            return ""
        parts = [self.path]
        if self.line is not None:
            parts.append(str(self.line))
            parts.append(str(self.col if self.col is not None else 1))
        return ":".join(parts)

    def one_line(self) -> str:
        """The error as the single line the CLI prints."""
        where = self.location()
        text = " ".join(self.message.split("\n"))
        return f"{where}: error: {text}" if where else f"error: {text}"

    def __str__(self) -> str:
        return self.one_line()


class CardError(ClaimcheckError):
    """A card cannot be read or does not validate.

    ``also`` holds the card's other errors, each at its own place, so that one mistake does
    not hide the rest (:func:`claimcheck.cards.loader.load_card`).
    """

    also: tuple[CardError, ...] = ()

    def every(self) -> list[CardError]:
        """This error, then the others found in the same card."""
        return [self, *self.also]


class ConfigError(ClaimcheckError):
    """``[tool.claimcheck]`` in pyproject.toml is missing or wrong."""


class CheckReferenceError(ClaimcheckError):
    """A claim names a check that does not exist or is outside the trusted import roots."""


class StoreError(ClaimcheckError):
    """The results store cannot be read or written."""


class UsageError(ClaimcheckError):
    """The command line is wrong."""
