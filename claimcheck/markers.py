"""The markers content code writes above a function a card may name (public path, kept).

The markers live in :mod:`claimcheck.checks.markers`; this module and the package itself
(``from claimcheck import claim_check``) are the paths content code imports them from.
"""

from claimcheck.checks.markers import (
    claim_check,
    marker_of,
    model_factory,
    timing_factory,
    trainer,
    wrong_variant,
)
from claimcheck.trust.roles import Role

__all__ = [
    "Role", "claim_check", "marker_of", "model_factory", "timing_factory", "trainer",
    "wrong_variant",
]
