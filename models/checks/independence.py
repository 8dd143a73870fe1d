"""Each image's class capsules depend on that image alone, whenever and wherever it is passed.

Routing starts afresh on every call: Procedure 1 of arxiv:1710.09829 sets every logit b_ij to 0
before it routes, and self-attention routing (arxiv:2101.12491 eqs. 3-6) has no state beyond its
learned parameters. A check that builds a fresh layer and calls it once cannot see state carried
from one call to the next (logits kept as a "warm start", a cached score, a buffer updated in
the forward), nor an image that leaks into its batch neighbours. This check runs the whole
network's ``forward`` (eval mode, float64), the path inference and the checks' own layers take,
on a batch x, then on another batch y, then on x twice more; then each image of x alone, x in
reverse order, and one image of x placed among y's. Every run must give each image of x the same
class capsules and scores as the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import DTYPE, Finding, at_most, generator, max_abs, property_evidence

BATCH = 3
TOL = 1e-10


@dataclass(frozen=True)
class NetworkArgs(CheckArgs):
    """``model`` (a registered capsule network) and its ``preset``."""

    model: str = "capsnet"
    preset: str = "mnist"


def _outputs(model: Any, x: Tensor) -> Tensor:
    """Poses and scores of one forward, side by side: (B, K, D + 1)."""
    out = model(x)
    return torch.cat([out.poses, out.scores.unsqueeze(-1)], dim=-1)


def measure_independence(model: Any, x: Tensor, y: Tensor) -> list[Finding]:
    """The findings of the module docstring, for a network and two batches of images."""
    first = _outputs(model, x)
    _outputs(model, y)
    again = [_outputs(model, x) for _ in range(2)]
    alone = torch.cat([_outputs(model, x[b : b + 1]) for b in range(x.shape[0])])
    reversed_ = _outputs(model, x.flip(0)).flip(0)
    among = _outputs(model, torch.cat([y[:1], x[1:2], y[1:]]))[1]
    return [
        at_most("2nd and 3rd call on x (after a call on y): max |output - 1st call|",
                max(max_abs(out, first) for out in again), TOL),
        at_most("each image alone: max |output - in the batch|", max_abs(alone, first), TOL),
        at_most("batch reversed: max |output - in order|", max_abs(reversed_, first), TOL),
        at_most("one image placed among other images: max |output - in its own batch|",
                max_abs(among, first[1]), TOL),
    ]


@claim_check(args=NetworkArgs)
def calls_independent(ctx: CheckContext) -> Evidence:
    """Args: ``model``, ``preset`` (default capsnet/mnist)."""
    from models.registry import build_model

    args = NetworkArgs.of(ctx)
    torch.manual_seed(ctx.seed)
    model = build_model(args.model, args.preset).double().eval()
    config = model.config
    shape = (BATCH, config.in_channels, config.image_size, config.image_size)
    gen = generator(ctx.seed)
    x = torch.rand(shape, generator=gen, dtype=DTYPE)
    y = torch.rand(shape, generator=gen, dtype=DTYPE)
    with torch.no_grad():
        if hasattr(model, "digit_caps"):
            # The initial weights give near-uniform routing; scaled, the routing has work to do.
            model.digit_caps.weight.mul_(20.0)
        findings = measure_independence(model, x, y)
    return property_evidence(
        f"{args.model}/{args.preset} forward (eval, float64) on {BATCH} random images x and "
        f"{BATCH} others y, called x, y, x, x, then each image of x alone, reversed, and among y",
        findings,
    )
