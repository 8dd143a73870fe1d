"""A throw-away project with a tiny catalogue of wrong variants, for the power tests.

It is the engine tests' project (``tinymodels``, :mod:`tests.engine.conftest`) plus a module
whose constants a check measures (``scale``), a module no check reaches (``other``), checks of
them, and ``tinymodels/variants/``: one variant per state a power run can give: a wrong factor
(caught), a small offset (missed under a tolerant expectation), a constant nothing reads (no
longer a change), a wrapper that calls the function it replaces (not self-contained), a factor
that makes the check raise, a replacement that recurses and a variant that cannot be applied (not
decided), a change of ``other`` (never reached), and names the catalogue must not list
(unmarked, private, rebound).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.engine.conftest import claim, write_project

SCALE = '''\
"""The one formula the power checks measure: y = FACTOR * x."""
FACTOR = 2.0
OFFSET = 0.0


def scale(x):
    return FACTOR * x + OFFSET
'''

OTHER = '''\
"""A formula no check of scale runs."""


def double(x):
    return 2 * x
'''

POWER_CHECKS = '''\
"""Checks of tinymodels.scale and tinymodels.other, and one that reads neither."""
from claimcheck import claim_check
from claimcheck.checks.api import Evidence
from tinymodels import other, scale


@claim_check
def scales_three(ctx):
    return Evidence(measured=scale.scale(3.0), details="scale(3.0)")


@claim_check
def scales_in_memory(ctx):
    held = bytearray(200_000_000)  # more than a card's 0.05 GB allows
    return Evidence(measured=scale.scale(3.0) + held[0], details="scale(3.0) beside 200 MB")


@claim_check
def doubles_three(ctx):
    return Evidence(measured=other.double(3.0), details="double(3.0)")


@claim_check
def unused(ctx):
    return Evidence(measured=True, details="reads nothing a variant changes")
'''

VARIANTS_INIT = '''\
"""The test catalogue of wrong variants."""
'''

VARIANTS_SCALE = '''\
"""Wrong variants of tinymodels.scale."""
from claimcheck import wrong_variant
from tinymodels import scale


@wrong_variant
def wrong_factor() -> None:
    """The factor is 3 instead of 2."""
    scale.FACTOR = 3.0


@wrong_variant
def unused_offset() -> None:
    """Set a constant the formula never reads (so scale(3.0) cannot see it)."""
    scale.UNUSED = 1.0


@wrong_variant
def small_offset() -> None:
    """An offset of 0.01 where there is none."""
    scale.OFFSET = 0.01


@wrong_variant
def wrapped_factor() -> None:
    """The result scaled by 1.5, written as a wrapper that calls the function it replaces."""
    original = scale.scale

    def wrapped(x):
        return original(x) * 1.5

    scale.scale = wrapped


@wrong_variant
def other_halved() -> None:
    """The other formula halves instead of doubling (no check of scale reaches it)."""
    from tinymodels import other

    other.double = lambda x: x / 2


@wrong_variant
def no_factor() -> None:
    """The factor is missing: the formula itself fails."""
    scale.FACTOR = None


@wrong_variant
def recursive_factor() -> None:
    """A replacement that calls the name it replaced: it recurses until the stack runs out."""
    def scale_again(x):
        return scale.scale(x)

    scale.scale = scale_again


@wrong_variant
def broken_variant() -> None:
    """A variant that fails to apply."""
    raise RuntimeError("the variant itself is broken")


def unmarked() -> None:
    scale.FACTOR = 5.0


@wrong_variant
def _private() -> None:
    scale.FACTOR = 7.0
'''

VARIANTS_NESTED = '''\
"""A variant in a subpackage."""
import claimcheck
from tinymodels import scale


@claimcheck.wrong_variant
def negative_factor() -> None:
    """The factor has the wrong sign."""
    scale.FACTOR = -2.0


@claimcheck.wrong_variant
def rebound() -> None:
    scale.FACTOR = 0.0


rebound = negative_factor
'''

EXTRA_FILES = {
    "tinymodels/scale.py": SCALE,
    "tinymodels/other.py": OTHER,
    "tinymodels/powerchecks.py": POWER_CHECKS,
    "tinymodels/variants/__init__.py": VARIANTS_INIT,
    "tinymodels/variants/scale.py": VARIANTS_SCALE,
    "tinymodels/variants/deeper/__init__.py": "",
    "tinymodels/variants/deeper/sign.py": VARIANTS_NESTED,
}

VARIANTS_SETTING = 'variants = ["tinymodels.variants"]\n'


def power_claim(claim_id: str, catches: Sequence[str], expect: Mapping[str, Any] | None = None,
                **extra: Any) -> dict[str, Any]:
    """A claim of ``scale(3.0) == 6`` (or ``expect``) that lists ``catches``."""
    return claim(claim_id, "tinymodels.powerchecks:scales_three", expect or {"equals": 6.0},
                 basis="implementation", catches=list(catches), **extra)


def write_power_project(root: Path, papers: dict[str, Sequence[Mapping[str, Any]]],
                        *, catalogue: bool = True) -> Path:
    """The engine tests' project plus the files above; ``catalogue=False`` configures the
    catalogue but does not write it (a project whose catalogue does not exist yet)."""
    write_project(root, papers)
    for name, text in EXTRA_FILES.items():
        if name.startswith("tinymodels/variants") and not catalogue:
            continue
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + VARIANTS_SETTING,
                         encoding="utf-8")
    return root
