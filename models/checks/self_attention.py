"""Property checks of self-attention routing (arxiv:2101.12491 eqs. 3-6, §3.1).

The reference is written from the equations, independently of
``models.self_attention.routing``: û_{j|i} = u_i W_ji (eq. 3); A_j = Û_j Û_jᵀ / √d, formed
as the full n_l × n_l matrix (eq. 5); logits b_ji = Σ_k A_j[i, k]; c_{·i} = softmax over the parents
j (eq. 6); s_j = Σ_i (c_ji + B_ji) û_{j|i} with the learned log priors B added after the softmax, as
the official code does (eq. 4); v_j = (1 − e^{−‖s_j‖}) s_j/‖s_j‖ (eq. 2). Weights are laid out as
the code's (n_out, n_in, d_in, d_out); couplings are returned as (B, child i, parent j).

The layer is measured through its own ``forward`` (what Efficient-CapsNet calls), with the
coupling the forward kept. Every preset has n_l = d_{l+1} = 16, so a divisor read from the
children's axis instead of the parent dimension gives the same number there: the layer checks
use sizes where no two axes coincide (3 images, 20 children of 6 dimensions, 7 parents of 12),
and ``preset_routing`` can rebuild the network's own layer with other primary capsules.
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
    at_most,
    contrast,
    generator,
    max_abs,
    property_evidence,
    randn,
)
from models.checks.gradients import gradients

Axis = Literal["parents", "children"]
PriorPlacement = Literal["after_softmax", "logits"]
# u (B, n_in, d_in) -> (poses (B, n_out, d_out), coupling (B, n_in, n_out))
Router = Callable[[Tensor], tuple[Tensor, Tensor]]

CHILDREN, CHILD_DIM, PARENTS, PARENT_DIM, BATCH = 20, 6, 7, 12, 3
OUTPUT_TOL = 1e-9


def reference_self_attention(
    u: Tensor,
    weight: Tensor,
    log_prior: Tensor,
    scale_dim: int,
    axis: Axis = "parents",
    prior: PriorPlacement = "after_softmax",
) -> Tensor:
    """Eqs. 2-6 with the full Gram matrix; ``axis``/``prior`` select the wrong variants."""
    u_hat = torch.einsum("bid,jide->bjie", u, weight)
    gram = u_hat @ u_hat.transpose(-1, -2) / math.sqrt(scale_dim)  # (B, j, i, k)
    logits = gram.sum(dim=-1)  # (B, j, i)
    if prior == "logits":
        logits = logits + log_prior
    coupling = torch.softmax(logits, dim=1 if axis == "parents" else 2)
    if prior == "after_softmax":
        coupling = coupling + log_prior
    s = (coupling.unsqueeze(-1) * u_hat).sum(dim=2)
    norm = s.norm(dim=-1, keepdim=True)
    return (1.0 - torch.exp(-norm)) * s / norm


def build_layer(seed: int, divisor: str = "output", prior: str = "after_softmax") -> Any:
    """A float64 ``SelfAttentionRouting`` with non-zero log priors (zero ones hide their use)."""
    from models.self_attention.routing import SelfAttentionRouting

    torch.manual_seed(seed)
    layer = SelfAttentionRouting(CHILDREN, CHILD_DIM, PARENTS, PARENT_DIM, divisor=divisor,  # type: ignore[arg-type]
                                 prior=prior)  # type: ignore[arg-type]
    layer = layer.double()
    with torch.no_grad():
        layer.log_prior.copy_(randn(layer.log_prior.shape, generator(seed + 1), scale=0.3))
    return layer


def sample_children(seed: int) -> Tensor:
    return randn((BATCH, CHILDREN, CHILD_DIM), generator(seed), scale=2.0)


def measure_coupling_axis(route: Router, layer: Any, u: Tensor) -> list[Any]:
    """Eq. 6: coefficients sum to one over the parents; output equals the reference."""
    poses, coupling = route(u)
    right = reference_self_attention(u, layer.weight, layer.log_prior, layer.scale_dim)
    return [
        at_most(
            "max |sum over parents of c_ji - 1| per child",
            float((coupling.sum(dim=2) - 1).abs().max()),
            1e-12,
        ),
        at_most("max |v - reference (softmax over parents)|", max_abs(poses, right), OUTPUT_TOL),
    ]


def _router(layer: Any) -> Router:
    """The layer's ``forward`` (the network's path) and the coupling it kept."""

    def route(u: Tensor) -> tuple[Tensor, Tensor]:
        poses = layer(u)
        if layer.last_coupling is None:
            raise ValueError("SelfAttentionRouting.forward kept no coupling")
        return poses, layer.last_coupling

    return route


@dataclass(frozen=True)
class DivisorArgs(CheckArgs):
    """``divisor``: the √d of the agreement, of the output (code) or input (paper) capsules;
    ``prior``: where the layer adds the log priors, ``after_softmax`` (code) or ``logits``."""

    divisor: str = "output"
    prior: str = "after_softmax"


@claim_check
def coupling_over_parents(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 eq. 6 on a float64 ``SelfAttentionRouting`` (20×6 -> 7×12)."""
    layer = build_layer(ctx.seed)
    u = sample_children(ctx.seed)
    with torch.no_grad():
        findings = measure_coupling_axis(_router(layer), layer, u)
        args = (u, layer.weight, layer.log_prior, layer.scale_dim)
        gap = max_abs(reference_self_attention(*args),
                      reference_self_attention(*args, axis="children"))
    return property_evidence(
        f"SelfAttentionRouting({CHILDREN}×{CHILD_DIM} -> {PARENTS}×{PARENT_DIM}) forward on "
        f"{BATCH} images, random non-zero log priors",
        findings,
        [contrast("reference vs softmax over children", gap)],
    )


def closed_form_notes(layer: Any, u: Tensor, scale_dim: int) -> list[str]:
    """How far the two known wrong variants land from the reference on these inputs."""
    right = reference_self_attention(u, layer.weight, layer.log_prior, scale_dim)
    in_logits = reference_self_attention(u, layer.weight, layer.log_prior, scale_dim,
                                         prior="logits")
    other_dim = layer.d_in if scale_dim == layer.d_out else layer.d_out
    other = reference_self_attention(u, layer.weight, layer.log_prior, other_dim)
    return [
        contrast("reference vs priors added to the logits", max_abs(right, in_logits)),
        contrast(f"reference vs dividing by sqrt({other_dim})", max_abs(right, other)),
        contrast(f"reference vs dividing by sqrt(n_children = {u.shape[1]})",
                 max_abs(right, reference_self_attention(u, layer.weight, layer.log_prior,
                                                         u.shape[1]))),
    ]


def measure_closed_form(route: Router, layer: Any, u: Tensor, scale_dim: int,
                        prior: PriorPlacement = "after_softmax") -> list[Any]:
    """Eqs. 3-6: the output equals the full-Gram reference with the priors where ``prior``
    says (after the softmax, as the code adds them, by default)."""
    poses, _ = route(u)
    right = reference_self_attention(u, layer.weight, layer.log_prior, scale_dim, prior=prior)
    return [
        at_most(
            f"max |v - reference (full Gram / sqrt({scale_dim}))|",
            max_abs(poses, right),
            OUTPUT_TOL,
        ),
    ]


@claim_check(args=DivisorArgs)
def closed_form(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 eqs. 3-6; args: ``divisor`` ("output" = √d_{l+1}, the code; "input")."""
    args = DivisorArgs.of(ctx)
    divisor, prior = args.divisor, args.prior
    if divisor not in ("input", "output"):
        raise ValueError(f"args.divisor must be 'input' or 'output', got {divisor!r}")
    if prior not in ("after_softmax", "logits"):
        raise ValueError(f"args.prior must be 'after_softmax' or 'logits', got {prior!r}")
    layer = build_layer(ctx.seed, divisor, prior)
    scale_dim = layer.d_in if divisor == "input" else layer.d_out
    u = sample_children(ctx.seed)
    with torch.no_grad():
        findings = measure_closed_form(_router(layer), layer, u, scale_dim,
                                       "logits" if prior == "logits" else "after_softmax")
        notes = closed_form_notes(layer, u, scale_dim)
    return property_evidence(
        f"SelfAttentionRouting({CHILDREN}×{CHILD_DIM} -> {PARENTS}×{PARENT_DIM}, "
        f"divisor={divisor}, prior={prior}) forward on {BATCH} images against eqs. 3-6",
        findings,
        notes,
    )


@dataclass(frozen=True)
class PresetRoutingArgs(CheckArgs):
    """``preset`` of efficient_capsnet (default mnist); ``primary_dim``: when non-zero, the
    network is rebuilt with primary capsules of that dimension (a config override), so that its
    n_l differs from d_{l+1} = 16."""

    preset: str = "mnist"
    primary_dim: int = 0


@claim_check(args=PresetRoutingArgs)
def preset_routing(ctx: CheckContext) -> Evidence:
    """The preset's FCCaps layer, as built, follows the official code: √d_{l+1} (the output
    capsule dimension) and log priors added after the softmax. Non-zero priors are copied in,
    because zero priors hide where they are added. Args: ``preset`` (default mnist),
    ``primary_dim`` (0: the preset's)."""
    from models.registry import build_model

    args = PresetRoutingArgs.of(ctx)
    preset = args.preset
    overrides = {"primary_dim": args.primary_dim} if args.primary_dim else {}
    torch.manual_seed(ctx.seed)
    layer = build_model("efficient_capsnet", preset, **overrides).double().eval().digit_caps
    with torch.no_grad():
        layer.log_prior.copy_(randn(layer.log_prior.shape, generator(ctx.seed + 1), scale=0.3))
    u = randn((BATCH, layer.n_in, layer.d_in), generator(ctx.seed), scale=2.0)
    with torch.no_grad():
        findings = measure_closed_form(_router(layer), layer, u, layer.d_out)
        notes = closed_form_notes(layer, u, layer.d_out)
    return property_evidence(
        f"efficient_capsnet/{preset}{overrides or ''} digit_caps as the network builds it "
        f"({layer.n_in}×{layer.d_in} -> {layer.n_out}×{layer.d_out}), forward on {BATCH} "
        "images, random log priors",
        findings,
        notes,
    )


def measure_gradient(route: Router, layer: Any, u: Tensor) -> list[Any]:
    """Gradients of Σ g·v with respect to u, W and the log priors, against the autograd
    gradients of the full-Gram reference: eqs. 3-6 stop no gradient, so a port that detaches
    the scores (or the coupling) gets other gradients."""
    g = randn((u.shape[0], layer.n_out, layer.d_out), generator(13))
    leaf = u.detach().clone().requires_grad_(True)
    poses, _ = route(leaf)
    got = gradients((poses * g).sum(), (leaf, layer.weight, layer.log_prior))
    ref_u, ref_w, ref_b = (t.detach().clone().requires_grad_(True)
                           for t in (u, layer.weight, layer.log_prior))
    reference = reference_self_attention(ref_u, ref_w, ref_b, layer.scale_dim)
    expected = torch.autograd.grad((reference * g).sum(), (ref_u, ref_w, ref_b))
    return [
        at_most(f"max |dL/d{name} - reference| / max |reference|",
                max_abs(a, b) / float(b.abs().max()), 1e-9)
        for name, a, b in zip(("u", "W", "B"), got, expected, strict=True)
    ]


@claim_check
def gradient_through_routing(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 eqs. 3-6: gradients flow through the attention scores and the coupling,
    on a float64 ``SelfAttentionRouting`` (20×6 -> 7×12) with non-zero log priors."""
    layer = build_layer(ctx.seed)
    findings = measure_gradient(_router(layer), layer, sample_children(ctx.seed))
    return property_evidence(
        f"SelfAttentionRouting({CHILDREN}×{CHILD_DIM} -> {PARENTS}×{PARENT_DIM}) forward on "
        f"{BATCH} images, random non-zero log priors, gradients of a random projection of the "
        "class capsules",
        findings,
    )
