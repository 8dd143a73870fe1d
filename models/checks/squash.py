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
from models.checks.gradients import gradients

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


def measure_squash_gradient(squash: Squash, seed: int, zero_is_smooth: bool,
                            length_eps: float = 0.0) -> list[Finding]:
    """Gradients of the squash, against central differences of the same function.

    At a zero capsule the gradient must be finite (a NaN there reaches every weight in one
    step). With ``zero_is_smooth`` (eq. 1, whose Jacobian at 0 is 0) it must also equal the
    finite difference there. At 24 vectors with norms from 1e-4 to 25, laid out (4, 6, 16) so a
    norm over the wrong axis shows, ⟨∇L, d⟩ must match (L(s + h·d) − L(s − h·d)) / 2h along
    random directions d, for L = Σ g·squash(s). The length read-out ‖v‖ (the class score), with
    the ``length_eps`` the network puts under its square root, must have a finite gradient at
    zero too.
    """
    from models.capsules import capsule_length

    gen = generator(seed)
    norms = torch.logspace(-4, math.log10(NORMS[1]), 24, dtype=DTYPE)
    directions = torch.randn(24, DIM, generator=gen, dtype=DTYPE)
    s = (directions / directions.norm(dim=-1, keepdim=True) * norms[:, None]).reshape(4, 6, DIM)
    s[0, 0] = 0.0  # one zero capsule among them
    g = torch.randn(s.shape, generator=gen, dtype=DTYPE)

    def loss(x: Tensor) -> Tensor:
        return (squash(x) * g).sum()

    leaf = s.clone().requires_grad_(True)
    (grad,) = gradients(loss(leaf), (leaf,))
    zero = torch.zeros(1, DIM, dtype=DTYPE, requires_grad=True)
    (zero_grad,) = gradients(squash(zero).sum(), (zero,))
    length_leaf = torch.zeros(2, DIM, dtype=DTYPE, requires_grad=True)
    (length_grad,) = gradients(capsule_length(length_leaf, eps=length_eps).sum(),
                               (length_leaf,))
    step, worst, scale = 1e-6, 0.0, 0.0
    with torch.no_grad():
        for _ in range(6):
            d = torch.randn(s.shape, generator=gen, dtype=DTYPE)
            if not zero_is_smooth:
                d[0, 0] = 0.0  # eq. 2's gradient at 0 is the code's ε choice, not the law's
            numeric = float((loss(s + step * d) - loss(s - step * d)) / (2 * step))
            gap = abs(float((grad * d).sum()) - numeric)
            worst = max(worst, gap) if math.isfinite(gap) else math.inf
            scale = max(scale, abs(numeric))
    return [
        Finding("gradient at a zero capsule is finite",
                bool(torch.isfinite(zero_grad).all() and torch.isfinite(grad).all()),
                f"max |d squash(0)/ds| = {float(zero_grad.abs().max()):.3g}"),
        at_most("max |<grad, d> - central difference| / scale (norms 1e-4..25, one zero)",
                worst / max(scale, 1e-12), 1e-5),
        Finding(f"gradient of the length |v| (eps {length_eps:g}) at a zero capsule is finite",
                bool(torch.isfinite(length_grad).all()),
                f"{float(length_grad.abs().max()):.3g}"),
    ]


@claim_check
def squash_sabour_gradients(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 eq. 1: finite gradient at 0 (where it equals the finite difference, 0),
    and the gradient equals finite differences at norms 1e-4..25."""
    from models.capsules import squash_sabour

    findings = measure_squash_gradient(squash_sabour, ctx.seed, zero_is_smooth=True)
    return property_evidence("models.capsules.squash_sabour on 24 16-D vectors (4×6×16, "
                             "float64), one of them zero", findings)


@claim_check
def squash_efficient_gradients(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 eq. 2: finite gradient at 0, and the gradient equals finite differences
    at norms 1e-4..25."""
    from models.capsules import squash_efficient
    from models.self_attention.efficient_capsnet import EfficientCapsNetConfig

    findings = measure_squash_gradient(squash_efficient, ctx.seed, zero_is_smooth=False,
                                       length_eps=EfficientCapsNetConfig().length_eps)
    return property_evidence("models.capsules.squash_efficient on 24 16-D vectors (4×6×16, "
                             "float64), one of them zero", findings)
