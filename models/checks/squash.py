"""Property checks of the two squash functions.

* arxiv:1710.09829 eq. 1: v = ‖s‖²/(1 + ‖s‖²) · s/‖s‖;
* arxiv:2101.12491 eq. 2: v = (1 − e^{−‖s‖}) · s/‖s‖.

Both claim the same two properties: the output keeps the input's direction, and its length lies
in [0, 1). The check also compares the length with the equation's law, because a function can
keep the range and direction and still not be the paper's squash.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from claimcheck import claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import DTYPE, Finding, at_most, generator, property_evidence

Squash = Callable[[Tensor], Tensor]
LengthLaw = Callable[[Tensor], Tensor]

# Norms from 0.01 to 25: below 0.01 the implementations' epsilons bend the law measurably, and
# above ~30 the exponential squash rounds to exactly 1 in float64.
NORMS = (1e-2, 25.0)
DIM = 16


def sabour_length(norm: Tensor) -> Tensor:
    """Output length of eq. 1 of arxiv:1710.09829."""
    return norm**2 / (1.0 + norm**2)


def efficient_length(norm: Tensor) -> Tensor:
    """Output length of eq. 2 of arxiv:2101.12491."""
    return 1.0 - torch.exp(-norm)


def measure_squash(squash: Squash, law: LengthLaw, seed: int, count: int = 240) -> list[Finding]:
    """Apply ``squash`` to vectors of known norms and directions; compare with ``law``.

    The vectors are laid out as (4, count/4, DIM) so that a squash over the wrong axis is caught.
    """
    gen = generator(seed)
    norms = torch.logspace(math.log10(NORMS[0]), math.log10(NORMS[1]), count, dtype=DTYPE)
    directions = torch.randn(count, DIM, generator=gen, dtype=DTYPE)
    directions = directions / directions.norm(dim=-1, keepdim=True)
    s = (directions * norms[:, None]).reshape(4, count // 4, DIM)
    v = squash(s).reshape(count, DIM)
    lengths = v.norm(dim=-1)
    cosine = (v * directions).sum(-1) / lengths.clamp_min(1e-300)
    zero = squash(torch.zeros(1, 1, DIM, dtype=DTYPE))
    return [
        at_most("max |length - law(norm)|", float((lengths - law(norms)).abs().max()), 1e-8),
        Finding("max length < 1", bool(lengths.max() < 1.0), f"{float(lengths.max()):.12f}"),
        at_most("max 1 - cosine(v, s)", float(1.0 - cosine.min()), 1e-12),
        Finding(
            "squash(0) = 0",
            bool(torch.isfinite(zero).all() and zero.abs().max() == 0),
            f"max |squash(0)| = {float(zero.abs().max()):.3g}",
        ),
        Finding(
            "length grows with norm",
            bool((lengths[1:] >= lengths[:-1]).all()),
            f"{int((lengths[1:] < lengths[:-1]).sum())} decreasing steps",
        ),
    ]


def _subject(name: str) -> str:
    return (
        f"{name} on 240 random 16-D vectors with norms {NORMS[0]}..{NORMS[1]} "
        "(float64, shape 4×60×16)"
    )


@claim_check
def squash_sabour_properties(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 eq. 1: direction kept, length ‖s‖²/(1+‖s‖²) in [0, 1)."""
    from models.capsules import squash_sabour

    findings = measure_squash(squash_sabour, sabour_length, ctx.seed)
    return property_evidence(_subject("models.capsules.squash_sabour"), findings)


@claim_check
def squash_efficient_properties(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 eq. 2: direction kept, length 1 − e^{−‖s‖} in [0, 1)."""
    from models.capsules import squash_efficient

    findings = measure_squash(squash_efficient, efficient_length, ctx.seed)
    return property_evidence(_subject("models.capsules.squash_efficient"), findings)
