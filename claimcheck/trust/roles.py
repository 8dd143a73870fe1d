"""The roles a card may ask a named function to play, one marker each.

The markers themselves (``@claim_check`` and the others) are in :mod:`claimcheck.checks.markers`;
the trust boundary (:mod:`claimcheck.trust.boundary`) and the source index
(:mod:`claimcheck.trust.references`) need only the roles' names, read from files with :mod:`ast`.
"""

from __future__ import annotations

from enum import Enum


class Role(str, Enum):
    """What a card asks a named function to be; each role has its own marker of the same name."""

    CLAIM_CHECK = "claim_check"
    MODEL_FACTORY = "model_factory"
    TIMING_FACTORY = "timing_factory"
    TRAINER = "trainer"
    WRONG_VARIANT = "wrong_variant"

    @property
    def decorator(self) -> str:
        """``@claim_check``: how the marker is written above a ``def``."""
        return f"@{self.value}"
