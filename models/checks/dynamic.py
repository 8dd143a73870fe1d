"""Property checks of dynamic routing (arxiv:1710.09829 eq. 2, eq. 3, Procedure 1 = alg. 1).

The reference below is written from the paper's equations, independently of
``models.dynamic.routing``: b_ij = 0; r times: c_i = softmax(b_i) over the parents (eq. 3),
s_j = Σ_i c_ij û_{j|i} (eq. 2, plus the TF code's bias where the layer has one), v_j =
squash(s_j) (eq. 1), b_ij += û_{j|i}·v_j. Predictions are laid out (B, parent j, child i, e) and
couplings are returned as (B, child i, parent j).

Every check measures the layer through its own ``forward``, the path CapsNet runs: chosen
predictions are loaded into a ``DynamicRouting`` layer's W (:mod:`models.checks.routing_paths`),
never handed to the routing function beside it. Sizes never coincide: 3 images, 32 children of
8 dimensions, 10 parents of 16.

Outputs are compared with a tolerance of 1e-6: the implementation's squash puts an epsilon of
1e-8 under the square root, which moves outputs by ~1e-9; a wrong axis moves them by ~0.1-1.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
from models.checks.gradients import gradients
from models.checks.routing_paths import route_through_forward

Axis = Literal["parents", "children"]
# (u_hat (B, j, i, e), iterations) -> (poses (B, j, e), coupling (B, i, j))
Router = Callable[[Tensor, int], tuple[Tensor, Tensor]]

CHILDREN, PARENTS, CHILD_DIM, PARENT_DIM, BATCH = 32, 10, 8, 16, 3
OUTPUT_TOL = 1e-6


def reference_squash(s: Tensor) -> Tensor:
    """Eq. 1 written directly (inputs here are never zero)."""
    norm_sq = (s * s).sum(-1, keepdim=True)
    return norm_sq / (1.0 + norm_sq) * s / norm_sq.sqrt()


def reference_routing(
    u_hat: Tensor, iterations: int, axis: Axis = "parents", bias: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Procedure 1 from the paper; ``axis="children"`` is the wrong softmax some ports use;
    ``bias`` (j, e) is added to every s_j before the squash, as the authors' TF code does."""
    logits = torch.zeros(u_hat.shape[:3], dtype=u_hat.dtype)
    softmax_dim = 1 if axis == "parents" else 2
    for _ in range(iterations):
        coupling = torch.softmax(logits, dim=softmax_dim)
        s = (coupling.unsqueeze(-1) * u_hat).sum(dim=2)
        v = reference_squash(s if bias is None else s + bias)
        logits = logits + (u_hat * v.unsqueeze(2)).sum(-1)
    return v, coupling.transpose(1, 2)


def model_router(u_hat: Tensor, iterations: int) -> tuple[Tensor, Tensor]:
    """The project's layer, ``models.dynamic.routing.DynamicRouting``, called as CapsNet calls
    it: ``layer(u)`` on children whose predictions are ``u_hat``; the coupling is the one the
    forward kept (``last_coupling``)."""
    from models.dynamic.routing import DynamicRouting

    _, parents, children, dim = u_hat.shape
    layer = DynamicRouting(children, CHILD_DIM, parents, dim, iterations=iterations).double()
    return route_through_forward(layer, u_hat)


def sample_predictions(seed: int) -> Tensor:
    """Predictions large enough that three iterations make the coupling clearly non-uniform."""
    return randn((BATCH, PARENTS, CHILDREN, PARENT_DIM), generator(seed), scale=0.5)


def measure_coupling_axis(route: Router, u_hat: Tensor, iterations: int) -> list[Finding]:
    """Eq. 3: coupling normalised over parents, output equal to the parent-softmax reference."""
    poses, coupling = route(u_hat, iterations)
    right, _ = reference_routing(u_hat, iterations, "parents")
    per_child = float((coupling.sum(dim=2) - 1).abs().max())
    per_parent = float((coupling.sum(dim=1) - 1).abs().max())
    return [
        at_most("max |sum over parents of c_ij - 1| per child", per_child, 1e-9),
        at_least("max |sum over children of c_ij - 1| per parent", per_parent, 1e-3),
        at_most("max |v - reference (softmax over parents)|", max_abs(poses, right), OUTPUT_TOL),
    ]


@dataclass(frozen=True)
class IterationsArgs(CheckArgs):
    """``iterations``: the routing iterations r (default 3, the paper's headline setting)."""

    iterations: int = 3


@dataclass(frozen=True)
class AgreementArgs(CheckArgs):
    """``iterations``: the increasing r values to compare."""

    iterations: list[int] = field(default_factory=lambda: [1, 2, 3])


@dataclass(frozen=True)
class PresetIterationsArgs(CheckArgs):
    """``preset`` of capsnet (default mnist), its routing ``iterations`` (default 3), and
    ``also``: other iteration counts the layer is built with (config override) and measured."""

    preset: str = "mnist"
    iterations: int = 3
    also: list[int] = field(default_factory=list)


@claim_check(args=IterationsArgs)
def coupling_over_parents(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 eq. 3; args: ``iterations`` (default 3)."""
    iterations = IterationsArgs.of(ctx).iterations
    u_hat = sample_predictions(ctx.seed)
    findings = measure_coupling_axis(model_router, u_hat, iterations)
    right, _ = reference_routing(u_hat, iterations, "parents")
    wrong, _ = reference_routing(u_hat, iterations, "children")
    return property_evidence(
        f"dynamic_routing with r={iterations} on random predictions "
        f"({CHILDREN} children, {PARENTS} parents, float64)",
        findings,
        [contrast("reference vs softmax over children", max_abs(right, wrong))],
    )


def measure_uniform_one_iteration(route: Router, u_hat: Tensor) -> list[Finding]:
    """r = 1: every c_ij is 1/n_parents and v_j = squash(Σ_i û_{j|i} / n_parents)."""
    poses, coupling = route(u_hat, 1)
    parents = u_hat.shape[1]
    expected = reference_squash(u_hat.sum(dim=2) / parents)
    return [
        at_most(f"max |c_ij - 1/{parents}|", float((coupling - 1 / parents).abs().max()), 1e-12),
        at_most("max |v - squash(sum_i u_hat / n_parents)|", max_abs(poses, expected), OUTPUT_TOL),
    ]


@claim_check
def uniform_coupling_one_iteration(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 alg. 1 (Procedure 1) with r = 1, the r = 1 rows of tab. 1."""
    findings = measure_uniform_one_iteration(model_router, sample_predictions(ctx.seed))
    return property_evidence("dynamic_routing with r=1 on random predictions", findings)


def measure_prediction_sum(
    forward: Callable[[Tensor], Tensor], weight: Tensor, parameter_count: int, u: Tensor
) -> list[Finding]:
    """Eq. 2 at r = 1: s_j = Σ_i c_ij W_ij u_i with c = 1/n_parents, and no other parameters.

    ``weight`` is (n_out, n_in, d_out, d_in); the reference multiplies each W_ij by u_i.
    """
    predictions = (weight.unsqueeze(0) @ u[:, None, :, :, None]).squeeze(-1)  # (B, j, i, e)
    expected = reference_squash(predictions.sum(dim=2) / weight.shape[0])
    return [
        at_most(
            "max |layer(u) - squash(sum_i W_ij u_i / n_parents)|",
            max_abs(forward(u), expected),
            OUTPUT_TOL,
        ),
        Finding(
            "parameters are the W_ij only (no bias)",
            parameter_count == weight.numel(),
            f"{parameter_count} parameters, W has {weight.numel()}",
        ),
    ]


@claim_check
def prediction_weighted_sum(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 eq. 2, measured on a ``DynamicRouting`` layer with r = 1."""
    from models.dynamic.routing import DynamicRouting

    torch.manual_seed(ctx.seed)
    layer = DynamicRouting(CHILDREN, CHILD_DIM, PARENTS, PARENT_DIM, iterations=1).double()
    u = randn((BATCH, CHILDREN, CHILD_DIM), generator(ctx.seed))
    count = sum(p.numel() for p in layer.parameters())
    with torch.no_grad():
        findings = measure_prediction_sum(layer, layer.weight, count, u)
    return property_evidence("DynamicRouting(32×8 -> 10×16, r=1, default options)", findings)


def agreeing_predictions(seed: int) -> Tensor:
    """Children agree on parent 0 (identical predictions); other predictions are random.

    All predictions have norm 1, so only their agreement, not their size, favours parent 0.
    """
    gen = generator(seed)
    u_hat = randn((1, PARENTS, CHILDREN, PARENT_DIM), gen)
    u_hat[:, 0] = randn((PARENT_DIM,), gen)
    return u_hat / u_hat.norm(dim=-1, keepdim=True)


def measure_agreement(route: Router, u_hat: Tensor, iterations: Sequence[int]) -> list[Finding]:
    """The mean coupling of the children to the agreed-on parent 0 after each iteration count."""
    to_agreed = [float(route(u_hat, r)[1][..., 0].mean()) for r in iterations]
    steps = [later - earlier for earlier, later in itertools.pairwise(to_agreed)]
    shown = ", ".join(f"r={r}: {c:.4f}" for r, c in zip(iterations, to_agreed, strict=True))
    return [
        Finding("mean c_i0 rises with every iteration", all(d > 1e-6 for d in steps), shown),
    ]


@claim_check(args=AgreementArgs)
def agreement_raises_coupling(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §2 and alg. 1; args: ``iterations``, the increasing r values to compare."""
    iterations = list(AgreementArgs.of(ctx).iterations)
    if sorted(iterations) != iterations or len(iterations) < 2:
        raise ValueError(f"args.iterations must be two or more increasing counts: {iterations}")
    findings = measure_agreement(model_router, agreeing_predictions(ctx.seed), iterations)
    return property_evidence(
        f"dynamic_routing on {CHILDREN} children whose predictions for parent 0 agree", findings
    )


def preset_digit_caps(seed: int, preset: str, iterations: int | None = None) -> Any:
    """The DigitCaps layer of ``capsnet/<preset>`` as the preset builds it (float64; with
    ``iterations`` given, built with that override), with its weights scaled up ×50 and any bias
    (the TF code's, in ``multimnist``) set to random non-zero values: at initialisation the
    predictions are so short that every routing iteration count gives nearly the same output,
    and a bias that starts at zero hides whether and where it is added."""
    from models.registry import build_model

    torch.manual_seed(seed)
    overrides = {} if iterations is None else {"iterations": iterations}
    layer = build_model("capsnet", preset, **overrides).double().eval().digit_caps
    with torch.no_grad():
        layer.weight.mul_(50.0)
        if layer.bias is not None:
            layer.bias.copy_(randn(layer.bias.shape, generator(seed + 3), scale=0.3))
    return layer


def preset_children(layer: Any, seed: int) -> Tensor:
    """Children of the layer's size, squashed like PrimaryCaps outputs (lengths below one)."""
    u = randn((2, layer.n_in, layer.d_in), generator(seed))
    return reference_squash(u)


def reference_layer(weight: Tensor, u: Tensor, iterations: int,
                    bias: Tensor | None = None) -> Tensor:
    """û_{j|i} = W_ij u_i (eq. 2, weight laid out (j, i, e, d)), then Procedure 1, with the TF
    code's ``bias`` (j, e) added to every s_j before the squash."""
    u_hat = (weight.unsqueeze(0) @ u[:, None, :, :, None]).squeeze(-1)
    poses, _ = reference_routing(u_hat, iterations, bias=bias)
    return poses


def measure_preset_iterations(layer: Any, u: Tensor, iterations: int) -> tuple[list[Finding],
                                                                                list[str]]:
    """The layer's output equals Procedure 1 with ``iterations`` iterations (and its bias)."""
    got = layer(u)
    bias = getattr(layer, "bias", None)
    expected = reference_layer(layer.weight, u, iterations, bias)
    findings = [at_most(f"max |v - reference with r={iterations}|", max_abs(got, expected),
                        OUTPUT_TOL)]
    notes = [contrast(f"reference r={r} vs r={iterations}",
                      max_abs(reference_layer(layer.weight, u, r, bias), expected))
             for r in (1, 2, iterations + 1) if r != iterations]
    if bias is not None:
        notes.append(contrast("reference without the bias vs with it",
                              max_abs(reference_layer(layer.weight, u, iterations), expected)))
    return findings, notes


@claim_check(args=PresetIterationsArgs)
def preset_iterations(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 tab. 1 and §4: the preset's DigitCaps routes with r iterations
    (args: ``preset``, default mnist; ``iterations``, default 3, the headline setting)."""
    args = PresetIterationsArgs.of(ctx)
    preset, iterations = args.preset, args.iterations
    layer = preset_digit_caps(ctx.seed, preset)
    u = preset_children(layer, ctx.seed)
    with torch.no_grad():
        findings, notes = measure_preset_iterations(layer, u, iterations)
        for other in args.also:
            built = preset_digit_caps(ctx.seed, preset, other)
            more, _ = measure_preset_iterations(built, u, other)
            findings += more
    bias = "no bias" if layer.bias is None else "random non-zero bias"
    also = f"; also built with r = {args.also}" if args.also else ""
    return property_evidence(
        f"capsnet/{preset} DigitCaps ({layer.n_in} children -> {layer.n_out} parents, float64, "
        f"weights ×50, {bias}), two random squashed inputs{also}",
        findings,
        notes,
    )


def measure_gradient(forward: Callable[[Tensor], Tensor], weight: Tensor, u: Tensor,
                     iterations: int, bias: Tensor | None = None) -> list[Finding]:
    """Gradients of Σ g·v with respect to u, W (and the bias), against the reference's.

    ``forward(u)`` runs the layer whose parameters ``weight`` (laid out (j, i, e, d)) and
    ``bias`` are leaves. Procedure 1 has no stop-gradient: the agreement û·v of every iteration
    is part of the computation graph, so a port that detaches û (or c) inside the loop gets
    other gradients.
    """
    g = randn((u.shape[0], weight.shape[0], weight.shape[2]), generator(11))
    u1 = u.detach().clone().requires_grad_(True)
    leaves = (weight, u1) if bias is None else (weight, u1, bias)
    got = gradients((forward(u1) * g).sum(), leaves)
    w2 = weight.detach().clone().requires_grad_(True)
    u2 = u.detach().clone().requires_grad_(True)
    b2 = None if bias is None else bias.detach().clone().requires_grad_(True)
    ref_leaves = (w2, u2) if b2 is None else (w2, u2, b2)
    expected = torch.autograd.grad((reference_layer(w2, u2, iterations, b2) * g).sum(),
                                   ref_leaves)
    return [
        at_most(f"max |dL/d{name} - reference| / max |reference| (r={iterations})",
                max_abs(a, b) / float(b.abs().max()), 1e-6)
        for name, a, b in zip(("W", "u", "bias"), got, expected, strict=False)
    ]


@claim_check(args=PresetIterationsArgs)
def gradient_through_iterations(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 alg. 1 (Procedure 1): gradients flow through every routing iteration,
    measured on the preset's DigitCaps (args: ``preset``, ``iterations`` as the preset uses)."""
    args = PresetIterationsArgs.of(ctx)
    preset, iterations = args.preset, args.iterations
    layer = preset_digit_caps(ctx.seed, preset)
    u = preset_children(layer, ctx.seed)
    findings = measure_gradient(layer, layer.weight, u, iterations, layer.bias)
    for other in args.also:
        built = preset_digit_caps(ctx.seed, preset, other)
        findings += measure_gradient(built, built.weight, u, other, built.bias)
    bias = "" if layer.bias is None else ", random non-zero bias"
    also = f"; also built with r = {args.also}" if args.also else ""
    return property_evidence(
        f"capsnet/{preset} DigitCaps routing (r={iterations}, float64{bias}) on its own "
        f"weights{also}",
        findings,
    )
