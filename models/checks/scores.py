"""The class scores of a capsule network are the lengths of its class capsules.

arxiv:1710.09829 p. 1 and §3: "the length of the activity vector" is the probability that the
entity exists, and the margin loss (eq. 4) reads ‖v_k‖; arxiv:2101.12491 classifies by the same
lengths (its eq. 7 is that margin loss). A port that scores by the squared length ‖v_k‖² (the
sum of squares without its root, a common shortcut) keeps the arg-max but changes every score
the loss sees, so the margins m⁺ and m⁻ no longer mean what the paper says.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import DTYPE, generator


@dataclass(frozen=True)
class ScoredModelArgs(CheckArgs):
    """``model`` (a registered capsule network) and its ``preset``."""

    model: str = "capsnet"
    preset: str = "mnist"


@claim_check(args=ScoredModelArgs)
def scores_minus_lengths(ctx: CheckContext) -> Evidence:
    """Measured: max |score_k² − ‖v_k‖²| over two random images and every class, where score
    is what the network's forward returns as its class scores and v its class capsules (float64,
    eval mode). 0 up to rounding, plus exactly the epsilon a port adds under the square root;
    compared in squares so that this epsilon does not grow as the lengths shrink."""
    from models.registry import build_model

    args = ScoredModelArgs.of(ctx)
    torch.manual_seed(ctx.seed)
    model = build_model(args.model, args.preset).double().eval()
    config = model.config
    x = torch.rand(2, config.in_channels, config.image_size, config.image_size,
                   generator=generator(ctx.seed), dtype=DTYPE)
    with torch.no_grad():
        output = model(x)
    if output.poses is None:
        raise ValueError(f"{args.model} returns no class capsules to measure")
    lengths = torch.linalg.vector_norm(output.poses, dim=-1)
    gap = float((output.scores**2 - lengths**2).abs().max())
    return Evidence(
        measured=gap,
        details=(f"{args.model}/{args.preset} forward on two random images: max |score² − ‖v‖²| "
                 f"{gap:.3g} over {lengths.numel()} class capsules (lengths "
                 f"{float(lengths.min()):.3g} to {float(lengths.max()):.3g})"),
    )
