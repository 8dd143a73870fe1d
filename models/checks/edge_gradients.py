"""Gradients of the routing layers at the inputs where gradient bugs hide, against finite
differences (arxiv:1710.09829 Procedure 1; arxiv:2101.12491 eqs. 3-6).

A value check cannot see a stop-gradient, a hand-written backward that drops a term, or a
squash whose gradient is NaN at zero while its value is right. This check differentiates the
layer's own ``forward`` (through ``torch.func.functional_call``, so every parameter is an input)
and compares each gradient with central finite differences of the same forward, in float64,
along random directions: ⟨∇L, d⟩ against (L(x + h·d) − L(x − h·d)) / 2h for L = Σ g·v. No
reference implementation is involved, so nothing written twice can agree on a mistake.

The inputs are the edge cases: children that are exactly zero, a parent all of whose
predictions are zero (dynamic routing: its s_j = 0, the squash at zero), a softmax driven into
saturation, two parents with identical predictions (tied logits), and the optional parameters
switched on with values that matter (the DigitCaps bias; non-zero log priors, added after the
softmax as the code does and to the logits as the paper may read). Sizes never coincide:
2 images, 9 children of 3 dimensions, 4 parents of 5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor
from torch.func import functional_call

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import Finding, at_most, generator, property_evidence, randn
from models.checks.gradients import gradients

BATCH, CHILDREN, CHILD_DIM, PARENTS, PARENT_DIM = 2, 9, 3, 4, 5
STEP = 1e-6
DIRECTIONS = 3
REL_TOL = 1e-5

Family = Literal["dynamic", "self_attention"]
# (layer, children u, parameters to differentiate) for one edge case
Case = tuple[Any, Tensor, dict[str, Tensor]]


def _dynamic(seed: int, bias: bool = False) -> Any:
    from models.dynamic.routing import DynamicRouting

    torch.manual_seed(seed)
    layer = DynamicRouting(CHILDREN, CHILD_DIM, PARENTS, PARENT_DIM, iterations=3,
                           bias=bias).double()
    with torch.no_grad():
        layer.weight.mul_(60.0)
        if layer.bias is not None:
            layer.bias.copy_(randn(layer.bias.shape, generator(seed + 4), scale=0.3))
    return layer


def _self_attention(seed: int, prior: str = "after_softmax") -> Any:
    from models.self_attention.routing import SelfAttentionRouting

    torch.manual_seed(seed)
    layer = SelfAttentionRouting(CHILDREN, CHILD_DIM, PARENTS, PARENT_DIM,
                                 prior=prior).double()  # type: ignore[arg-type]
    with torch.no_grad():
        layer.log_prior.copy_(randn(layer.log_prior.shape, generator(seed + 4), scale=0.3))
    return layer


def _children(seed: int, scale: float = 1.0) -> Tensor:
    return randn((BATCH, CHILDREN, CHILD_DIM), generator(seed + 2), scale=scale)


def _params(layer: Any) -> dict[str, Tensor]:
    return {name: p.detach().clone() for name, p in layer.named_parameters()}


def edge_cases(family: Family, seed: int) -> dict[str, Case]:
    """The layers and inputs of every edge case of ``family``."""
    make = _dynamic if family == "dynamic" else _self_attention
    cases: dict[str, Case] = {}

    layer = make(seed)
    u = _children(seed)
    u[:, : CHILDREN // 3] = 0.0
    cases["a third of the children exactly zero"] = (layer, u, _params(layer))

    layer = make(seed)
    if family == "dynamic":
        with torch.no_grad():
            layer.weight[0] = 0.0
        cases["parent 0's predictions all zero (s_0 = 0)"] = (layer, _children(seed),
                                                              _params(layer))
    layer = make(seed)
    if family == "self_attention":
        cases["saturated softmax (children ×10)"] = (layer, _children(seed, 10.0),
                                                     _params(layer))
    else:
        with torch.no_grad():
            layer.weight.mul_(30.0)
        cases["saturated softmax (weights ×30)"] = (layer, _children(seed), _params(layer))

    layer = make(seed)
    with torch.no_grad():
        layer.weight[2] = layer.weight[1]
    cases["parents 1 and 2 tied (identical predictions)"] = (layer, _children(seed),
                                                              _params(layer))
    if family == "dynamic":
        layer = _dynamic(seed, bias=True)
        cases["random non-zero bias"] = (layer, _children(seed), _params(layer))
    else:
        layer = _self_attention(seed, prior="logits")
        cases["log priors added to the logits"] = (layer, _children(seed), _params(layer))
    return cases


def measure_case(layer: Any, u: Tensor, params: dict[str, Tensor], seed: int,
                 name: str) -> list[Finding]:
    """Autograd against central differences of the layer's forward, per input tensor."""
    inputs = {"u": u, **params}
    g = randn((BATCH, PARENTS, PARENT_DIM), generator(seed + 7))

    def loss(values: dict[str, Tensor]) -> Tensor:
        state = {k: v for k, v in values.items() if k != "u"}
        out: Tensor = functional_call(layer, state, (values["u"],))
        return (out * g).sum()

    leaves = {k: v.clone().requires_grad_(True) for k, v in inputs.items()}
    grads = dict(zip(leaves, gradients(loss(leaves), tuple(leaves.values())),
                     strict=True))
    findings = [Finding(f"{name}: every gradient finite",
                        all(bool(torch.isfinite(grad).all()) for grad in grads.values()),
                        ", ".join(f"{k} {'finite' if bool(torch.isfinite(v).all()) else 'NOT'}"
                                  for k, v in grads.items()))]
    gen = generator(seed + 9)
    with torch.no_grad():
        for key, grad in grads.items():
            worst, scale = 0.0, 0.0
            for _ in range(DIRECTIONS):
                d = torch.randn(inputs[key].shape, generator=gen, dtype=grad.dtype)
                plus = {**inputs, key: inputs[key] + STEP * d}
                minus = {**inputs, key: inputs[key] - STEP * d}
                numeric = float((loss(plus) - loss(minus)) / (2 * STEP))
                analytic = float((grad * d).sum())
                gap = abs(analytic - numeric)
                worst = max(worst, gap) if math.isfinite(gap) else math.inf
                scale = max(scale, abs(numeric))
            findings.append(at_most(f"{name}: max |<dL/d{key}, d> - finite difference| / scale",
                                    worst / max(scale, 1e-12), REL_TOL))
    return findings


@dataclass(frozen=True)
class EdgeArgs(CheckArgs):
    """``family``: ``dynamic`` (DynamicRouting, r = 3) or ``self_attention``
    (SelfAttentionRouting)."""

    family: Literal["dynamic", "self_attention"]


@claim_check(args=EdgeArgs)
def edge_gradients(ctx: CheckContext) -> Evidence:
    """Gradients of a routing layer's forward at edge inputs equal finite differences."""
    family = EdgeArgs.of(ctx).family
    if family not in ("dynamic", "self_attention"):
        raise ValueError(f"args.family must be 'dynamic' or 'self_attention', got {family!r}")
    findings: list[Finding] = []
    for name, (layer, u, params) in edge_cases(family, ctx.seed).items():
        findings += measure_case(layer, u, params, ctx.seed, name)
    layer_name = "DynamicRouting (r=3)" if family == "dynamic" else "SelfAttentionRouting"
    return property_evidence(
        f"{layer_name} forward, float64, {BATCH} images, {CHILDREN} children of {CHILD_DIM}, "
        f"{PARENTS} parents of {PARENT_DIM}; autograd vs central differences (h = {STEP}) "
        f"along {DIRECTIONS} random directions per tensor",
        findings,
    )
