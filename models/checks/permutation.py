"""Symmetries every routing rule on this wiki must have, whatever its details.

Given the children's predictions (votes) for each parent, routing is a function of a *set* of
children: relabelling the children (together with anything indexed by them, such as learned log
priors) must leave every parent unchanged. Relabelling the parents must relabel the outputs the
same way, since each parent is computed by the same rule. And each image is routed on its own:
the parents of one image must not depend on the other images of the batch.

* arxiv:1710.09829 eq. 2-3, Procedure 1: s_j = Σ_i c_ij û_{j|i}, c_i = softmax over parents.
* arxiv:2101.12491 eq. 3-6: the attention scores sum over children, the softmax runs over parents.
* arxiv:2002.04764 eq. 2-3, Procedure 1: the same for votes and parent poses, over passes.

Each family is measured through the code path its network runs. Dynamic and self-attention
routing take predictions laid out (B, parent j, child i, e), loaded into the layer's W so that
the layer's own ``forward`` on one-hot children makes them (:mod:`models.checks.routing_paths`):
``DynamicRouting.forward`` routes them child-major, as CapsNet does. Inverted
routing forms its votes inside the layer (``route_groups``, what ``InvertedCapsNet`` calls), so
its input is the children's poses, repeated along the parent axis of the same (B, j, i, e)
tensor, and the layer's weight W_ij is reordered with the children and parents.
Ports break these symmetries by reshaping (B, j, i) memory as (B, i, j), by sharing routing
logits across the batch, or by normalising over a flattened axis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import DTYPE, Finding, at_most, generator, max_abs, property_evidence
from models.checks.routing_paths import route_through_forward

# predictions (B, j, i, e) -> parent poses (B, j, e); ``prior_perm`` reorders what is indexed by
# (j, i), if anything, to match a permutation of the predictions.
Route = Callable[[Tensor], Tensor]
TOL = 1e-10
BATCH, CHILDREN, PARENTS, DIM = 3, 20, 7, 16


def _dynamic(seed: int) -> tuple[Callable[[Tensor | None, Tensor | None], Route], str]:
    from models.dynamic.routing import DynamicRouting

    torch.manual_seed(seed)
    layer = DynamicRouting(CHILDREN, 8, PARENTS, DIM, iterations=3).double().eval()

    def make(_children: Tensor | None, _parents: Tensor | None) -> Route:
        return lambda u_hat: route_through_forward(layer, u_hat)[0]

    return make, "DynamicRouting.forward, r=3"


def _self_attention(seed: int) -> tuple[Callable[[Tensor | None, Tensor | None], Route], str]:
    from models.self_attention.routing import SelfAttentionRouting

    torch.manual_seed(seed)
    layer = SelfAttentionRouting(CHILDREN, 8, PARENTS, DIM).double().eval()
    prior = torch.randn(PARENTS, CHILDREN, generator=generator(seed + 5), dtype=DTYPE) * 0.3

    def make(children: Tensor | None, parents: Tensor | None) -> Route:
        reordered = prior
        if children is not None:
            reordered = reordered[:, children]
        if parents is not None:
            reordered = reordered[parents]

        def route(u_hat: Tensor) -> Tensor:
            with torch.no_grad():
                layer.log_prior.copy_(reordered)
            return route_through_forward(layer, u_hat)[0]

        return route

    return make, "SelfAttentionRouting.forward with random log priors"


def _inverted(seed: int) -> tuple[Callable[[Tensor | None, Tensor | None], Route], str]:
    from models.inverted.networks import InvertedDotProductRouting

    torch.manual_seed(seed)
    layer = InvertedDotProductRouting(CHILDREN, DIM, PARENTS, DIM).double().eval()
    weight = layer.weight.detach().clone()  # (j, i, s, s)

    def make(children: Tensor | None, parents: Tensor | None) -> Route:
        reordered = weight
        if children is not None:
            reordered = reordered[:, children]
        if parents is not None:
            reordered = reordered[parents]

        def route(repeated: Tensor) -> Tensor:
            poses_in = repeated[:, 0]  # (B, i, d): the children, the same for every parent
            with torch.no_grad():
                layer.weight.copy_(reordered)
            poses: Tensor = layer(poses_in)
            for _ in range(2):
                poses = layer(poses_in, poses)
            return poses

        return route

    return make, "InvertedDotProductRouting.route (route_groups, as the network), 3 passes"


FAMILIES: dict[str, Callable[[int], tuple[Callable[[Tensor | None, Tensor | None], Route], str]]]
FAMILIES = {"dynamic": _dynamic, "self_attention": _self_attention, "inverted": _inverted}
CHILD_POSES = {"inverted"}  # families whose input is the children's poses, not predictions


def measure_symmetries(make: Callable[[Tensor | None, Tensor | None], Route], u_hat: Tensor,
                       seed: int) -> list[Finding]:
    """Children-order invariance, parent-order equivariance and batch independence."""
    gen = generator(seed + 9)
    children = torch.randperm(u_hat.shape[2], generator=gen)
    parents = torch.randperm(u_hat.shape[1], generator=gen)
    base = make(None, None)(u_hat)
    by_children = make(children, None)(u_hat[:, :, children])
    by_parents = make(None, parents)(u_hat[:, parents])
    alone = torch.cat([make(None, None)(u_hat[b : b + 1]) for b in range(u_hat.shape[0])])
    return [
        at_most("children reordered: max |parents - parents before|", max_abs(by_children, base),
                TOL),
        at_most("parents reordered: max |parents - the same reordering of the parents before|",
                max_abs(by_parents, base[:, parents]), TOL),
        at_most("each image routed alone: max |parents - parents in the batch|",
                max_abs(alone, base), TOL),
    ]


@dataclass(frozen=True)
class FamilyArgs(CheckArgs):
    """``family``: the routing family whose symmetries are measured."""

    family: Literal["dynamic", "self_attention", "inverted"]


@claim_check(args=FamilyArgs)
def routing_symmetries(ctx: CheckContext) -> Evidence:
    """Args: ``family``: ``dynamic`` | ``self_attention`` | ``inverted``."""
    family = FamilyArgs.of(ctx).family
    if family not in FAMILIES:
        raise ValueError(f"args.family must be one of {sorted(FAMILIES)}, got {family!r}")
    make, subject = FAMILIES[family](ctx.seed)
    u_hat: Any = torch.randn(BATCH, PARENTS, CHILDREN, DIM, generator=generator(ctx.seed),
                             dtype=DTYPE) * 0.5
    if family in CHILD_POSES:
        u_hat = u_hat[:, :1].expand_as(u_hat).contiguous()
    with torch.no_grad():
        findings = measure_symmetries(make, u_hat, ctx.seed)
    return property_evidence(
        f"{subject}: {BATCH} images, {CHILDREN} children, {PARENTS} parents, {DIM}-D (float64)",
        findings,
    )
