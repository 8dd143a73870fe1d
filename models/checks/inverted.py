"""Property checks of one inverted dot-product attention routing layer (arxiv:2002.04764).

The reference is written from the paper, independently of ``models.inverted.networks``. One pass
of Procedure 1 (cited as alg. 1): votes v_ij = P_i W_ij (eq. 1, in the code's orientation for
4×4 pose matrices); agreement a_ij = p_jᵀ v_ij (eq. 2; times 1/√d when the code's scaling is
on); r_ij = softmax of a_ij over the parents j of child i (eq. 3); p_j = Σ_i r_ij v_ij, then
LayerNorm. Parent poses start at zero. Votes are (B, parent j, child i, e), couplings
(B, child i, parent j). Network-level checks (concurrent routing, presets, convolutional
windows, primary capsules) are in :mod:`models.checks.inverted_network`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import (
    Finding,
    at_least,
    at_most,
    contrast,
    generator,
    max_abs,
    property_evidence,
    randn,
)

Axis = Literal["parents", "children"]
# (children, parent poses or None) -> (parent poses, coupling)
Router = Callable[[Tensor, "Tensor | None"], tuple[Tensor, Tensor]]

CHILDREN, PARENTS, POSE, BATCH = 24, 6, 16, 3
OUTPUT_TOL = 1e-9


def reference_votes(children: Tensor, weight: Tensor) -> Tensor:
    """Eq. 1 for 4×4 pose matrices: children (B, i, 16), weight (j, i, 4, 4) -> (B, j, i, 16)."""
    side = weight.shape[-1]
    poses = children.unflatten(-1, (side, side)).unsqueeze(1)  # (B, 1, i, s, s)
    return (poses @ weight.unsqueeze(0)).flatten(-2)


def reference_layer_norm(x: Tensor, norm: Any) -> Tensor:
    """LayerNorm over the pose entries with the layer's gain, bias and epsilon."""
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + norm.eps) * norm.weight + norm.bias


def reference_pass(
    votes: Tensor, parents: Tensor, scale: float, norm: Any | None, axis: Axis = "parents"
) -> tuple[Tensor, Tensor]:
    """One pass from given parent poses; ``norm=None`` leaves out the LayerNorm."""
    agreement = (votes * parents.unsqueeze(2)).sum(-1) * scale  # (B, j, i)
    coupling = torch.softmax(agreement, dim=1 if axis == "parents" else 2)
    poses = (coupling.unsqueeze(-1) * votes).sum(dim=2)
    if norm is not None:
        poses = reference_layer_norm(poses, norm)
    return poses, coupling.transpose(1, 2)


def reference_passes(
    votes: Tensor, passes: int, scale: float, norm: Any, axis: Axis = "parents"
) -> Tensor:
    """``passes`` passes of Procedure 1 from zero parent poses."""
    poses = votes.new_zeros(votes.shape[0], votes.shape[1], votes.shape[3])
    for _ in range(passes):
        poses, _ = reference_pass(votes, poses, scale, norm, axis)
    return poses


def build_layer(seed: int, scale_agreement: bool = True, random_affine: bool = True) -> Any:
    """A float64 fully connected layer (24 children -> 6 parents, 4×4 poses)."""
    from models.inverted.networks import InvertedDotProductRouting

    torch.manual_seed(seed)
    layer = InvertedDotProductRouting(
        CHILDREN, POSE, PARENTS, POSE, matrix_pose=True, scale_agreement=scale_agreement
    )
    layer = layer.double().eval()
    if random_affine:
        with torch.no_grad():
            layer.norm.weight.copy_(1.0 + randn((POSE,), generator(seed + 1), scale=0.2))
            layer.norm.bias.copy_(randn((POSE,), generator(seed + 2), scale=0.2))
    return layer


def sample_children(seed: int) -> Tensor:
    return randn((BATCH, CHILDREN, POSE), generator(seed))


def layer_router(layer: Any) -> Router:
    """The model layer's ``route`` as a :data:`Router`."""

    def route(children: Tensor, parents: Tensor | None) -> tuple[Tensor, Tensor]:
        poses, coupling = layer.route(children, parents)
        return poses, coupling

    return route


def _scale(scale_agreement: bool) -> float:
    return 1.0 / math.sqrt(POSE) if scale_agreement else 1.0


def run_passes(route: Router, children: Tensor, passes: int) -> Tensor:
    """``passes`` passes of ``route``, each from the poses of the pass before."""
    if passes < 1:
        raise ValueError(f"passes must be >= 1, got {passes}")
    poses, _ = route(children, None)
    for _ in range(passes - 1):
        poses, _ = route(children, poses)
    return poses


def measure_procedure(
    route: Router, layer: Any, children: Tensor, passes: int, scale: float
) -> tuple[list[Finding], list[str]]:
    """``passes`` passes of Procedure 1 from zero parent poses, against the reference."""
    poses = run_passes(route, children, passes)
    votes = reference_votes(children, layer.weight)
    expected = reference_passes(votes, passes, scale, layer.norm)
    wrong = reference_passes(votes, passes, scale, layer.norm, axis="children")
    finding = at_most(
        f"max |p after {passes} passes - reference|", max_abs(poses, expected), OUTPUT_TOL
    )
    return [finding], [contrast("reference vs softmax over children", max_abs(expected, wrong))]


@dataclass(frozen=True)
class ProcedureArgs(CheckArgs):
    """``passes`` (default 3) and ``scale_agreement`` (default true: the code's 1/√d)."""

    passes: int = 3
    scale_agreement: bool = True


@claim_check(args=ProcedureArgs)
def procedure_matches_reference(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 eqs. 1-3 and alg. 1; args: ``passes`` (default 3), ``scale_agreement``
    (default true: the code's 1/√d; false: Procedure 1 as printed)."""
    args = ProcedureArgs.of(ctx)
    passes, scaled = args.passes, args.scale_agreement
    layer = build_layer(ctx.seed, scaled)
    with torch.no_grad():
        findings, notes = measure_procedure(
            layer_router(layer), layer, sample_children(ctx.seed), passes, _scale(scaled)
        )
    return property_evidence(
        f"InvertedDotProductRouting(24 -> 6, 4×4 poses, scale_agreement={scaled}), "
        "random LayerNorm gain and bias",
        findings,
        notes,
    )


def measure_softmax_axis(
    route: Router, layer: Any, children: Tensor, parents: Tensor
) -> list[Finding]:
    """Eq. 3 on a pass with non-zero parent poses."""
    poses, coupling = route(children, parents)
    votes = reference_votes(children, layer.weight)
    right, _ = reference_pass(votes, parents, layer.scale, layer.norm)
    return [
        at_most(
            "max |sum over parents of r_ij - 1| per child",
            float((coupling.sum(dim=2) - 1).abs().max()),
            1e-12,
        ),
        at_least(
            "max |sum over children of r_ij - 1| per parent",
            float((coupling.sum(dim=1) - 1).abs().max()),
            1e-3,
        ),
        at_most("max |p - reference (softmax over parents)|", max_abs(poses, right), OUTPUT_TOL),
    ]


@claim_check
def softmax_over_parents(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 eq. 3, on a second pass (random non-zero parent poses)."""
    layer = build_layer(ctx.seed)
    parents = randn((BATCH, PARENTS, POSE), generator(ctx.seed + 3))
    with torch.no_grad():
        findings = measure_softmax_axis(
            layer_router(layer), layer, sample_children(ctx.seed), parents
        )
    return property_evidence("InvertedDotProductRouting(24 -> 6, 4×4 poses), one pass", findings)


def measure_uniform_first_pass(route: Router, layer: Any, children: Tensor) -> list[Finding]:
    """Eq. 2 with p_j = 0: the first pass equals a pass from explicit zero poses, and both equal
    the reference pass from zero poses, LayerNorm(Σ_i softmax(0) v_ij) = LayerNorm(Σ_i v_ij / N).

    The coupling a layer reports for its first pass is not a finding: a layer may write 1/N
    there as a constant, and comparing that constant with 1/N would measure nothing.
    """
    first, _ = route(children, None)
    zeros = first.new_zeros(first.shape)
    from_zero, coupling_zero = route(children, zeros)
    expected, _ = reference_pass(reference_votes(children, layer.weight), zeros, layer.scale,
                                 layer.norm)
    parents = coupling_zero.shape[-1]
    return [
        at_most("max |first pass - reference pass from zero poses|", max_abs(first, expected),
                OUTPUT_TOL),
        at_most(
            f"max |r_ij - 1/{parents}| from explicit zero parent poses",
            float((coupling_zero - 1 / parents).abs().max()),
            1e-12,
        ),
        at_most("max |first pass - pass from zero poses|", max_abs(first, from_zero), 1e-12),
    ]


@claim_check
def uniform_first_pass(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 eq. 2 and alg. 1: parent poses start at 0, so the first pass is uniform."""
    layer = build_layer(ctx.seed)
    with torch.no_grad():
        findings = measure_uniform_first_pass(layer_router(layer), layer,
                                              sample_children(ctx.seed))
    return property_evidence("InvertedDotProductRouting(24 -> 6, 4×4 poses)", findings)


def measure_layer_norm(route: Router, layer: Any, children: Tensor) -> list[Finding]:
    """Alg. 1: with unit gain and zero bias, parent poses have mean 0 and variance 1."""
    first, _ = route(children, None)
    second, _ = route(children, first)
    findings: list[Finding] = []
    for name, poses in (("pass 1", first), ("pass 2", second)):
        mean = poses.mean(dim=-1)
        var = ((poses - mean.unsqueeze(-1)) ** 2).mean(dim=-1)
        findings.append(
            at_most(f"{name}: max |mean of pose entries|", float(mean.abs().max()), 1e-9)
        )
        findings.append(
            at_most(f"{name}: max |variance - 1|", float((var - 1).abs().max()), 1e-3)
        )
    return findings


@claim_check
def layernorm_parent_poses(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 alg. 1 (LayerNorm after the weighted sum), at the norm's initial affine."""
    layer = build_layer(ctx.seed, random_affine=False)
    children = sample_children(ctx.seed)
    with torch.no_grad():
        findings = measure_layer_norm(layer_router(layer), layer, children)
        raw, _ = reference_pass(
            reference_votes(children, layer.weight),
            children.new_zeros(BATCH, PARENTS, POSE),
            layer.scale,
            None,
        )
    raw_var = ((raw - raw.mean(-1, keepdim=True)) ** 2).mean(-1)
    note = contrast("pass 1 without the norm: max |variance - 1|", float((raw_var - 1).abs().max()))
    return property_evidence(
        "InvertedDotProductRouting(24 -> 6, 4×4 poses), fresh LayerNorm", findings, [note]
    )


def measure_unsquashed(route: Router, children: Tensor) -> list[Finding]:
    """§4.3: no squash; with LayerNorm at unit gain a 16-entry pose has length about √16."""
    first, _ = route(children, None)
    second, _ = route(children, first)
    lengths = torch.cat([first.norm(dim=-1).flatten(), second.norm(dim=-1).flatten()])
    return [at_least("max parent pose length over two passes", float(lengths.max()), 1.0)]


@claim_check
def parent_poses_unsquashed(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 §4.3 and alg. 1: parent pose lengths are not confined below one."""
    layer = build_layer(ctx.seed, random_affine=False)
    with torch.no_grad():
        findings = measure_unsquashed(layer_router(layer), sample_children(ctx.seed))
    return property_evidence(
        "InvertedDotProductRouting(24 -> 6, 4×4 poses), fresh LayerNorm", findings
    )
