"""Chunked routing equals unchunked routing, gradients included (arxiv:2002.04764 Procedure 1).

On the CPU a routed pass of an inverted capsule layer splits its routing groups (images, and
output positions of a conv layer) into chunks of at most ``VOTE_CHUNK_BYTES`` of votes and
checkpoints each chunk (``InvertedCapsuleLayer._routed_vote_sums``). Groups route
independently, so the chunked pass must equal Procedure 1 run on the whole batch. The check
builds a preset's capsule layer as the network does, feeds it a batch of the size the official
code trains with, calls it as the network's concurrent routing does (a uniform pass, then a
routed pass from those poses) and compares poses and the gradients of a random projection with
respect to the children and W_ij against an independent pass of Procedure 1
(``inverted_dot_product_routing`` on parent-major votes), computed a few images at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import Finding, at_least, at_most, generator, property_evidence

SLICE = 8  # images per slice of the reference


@dataclass(frozen=True)
class ChunkArgs(CheckArgs):
    """``preset`` of inverted_capsnet, ``layer`` (index into ``capsule_layers``), ``batch``."""

    preset: str = "cifar10_resnet"
    layer: int = -1
    batch: int = 128


def children_shape(model: Any, index: int, batch: int) -> tuple[int, ...]:
    """The shape of what capsule layer ``index`` receives in the network, for ``batch`` images."""
    config = model.config
    types, grid = config.primary_types, config.image_size // 2
    shapes: list[tuple[int, ...]] = [(batch, types, grid, grid, config.pose_dim)]
    for out_types, kernel, stride in config.conv_capsules:
        types, grid = out_types, (grid - kernel) // stride + 1
        shapes.append((batch, types, grid, grid, config.pose_dim))
    shapes.append((batch, types * grid * grid, config.pose_dim))
    shapes += [(batch, n, config.pose_dim) for n in config.fc_capsules]
    return shapes[index if index >= 0 else len(model.capsule_layers) + index]


def grouped(parents: Tensor) -> Tensor:
    """Parent poses as routing groups: (B, m, h, w, e) -> (B·h·w, m, e); (B, m, e) as it is."""
    return parents.permute(0, 2, 3, 1, 4).flatten(0, 2) if parents.dim() == 5 else parents


def reference_pass(layer: Any, children: Tensor, parents: Tensor) -> Tensor:
    """Procedure 1's routed pass on parent-major votes, ``SLICE`` images at a time:
    poses (groups, j, e) in the layer's group order."""
    from models.inverted.layers import inverted_dot_product_routing

    pieces = []
    for start in range(0, children.shape[0], SLICE):
        part = children[start: start + SLICE]
        votes = layer.votes(part)  # (groups of the slice, j, i, e)
        groups = votes.shape[0]
        before = grouped(parents[start: start + SLICE])
        if before.shape[0] != groups:
            raise ValueError(f"{groups} vote groups for {before.shape[0]} parent groups")
        pieces.append(inverted_dot_product_routing(votes, before, layer.norm, layer.scale).poses)
    return torch.cat(pieces)


@claim_check(args=ChunkArgs)
def chunked_routing(ctx: CheckContext) -> Evidence:
    """The network's capsule layer ``layer`` at ``batch`` images: its routed pass runs in more
    than one chunk (remainder reported) and equals the reference pass, values and gradients."""
    from models.inverted import layers as inverted_layers
    from models.registry import build_model

    args = ChunkArgs.of(ctx)
    torch.manual_seed(ctx.seed)
    model = build_model("inverted_capsnet", args.preset)
    layer = model.capsule_layers[args.layer]
    gen = generator(ctx.seed)
    children = torch.randn(children_shape(model, args.layer, args.batch), generator=gen)
    first = layer(children).detach()  # the uniform pass, as the network's first pass
    calls: list[int] = []
    chunk_pass = layer._chunk_vote_sums

    def counted(*parts: Tensor) -> Any:
        calls.append(int(parts[0].shape[2]))
        return chunk_pass(*parts)

    layer._chunk_vote_sums = counted
    leaf = children.clone().requires_grad_(True)
    subject = (f"inverted_capsnet/{args.preset} capsule layer {args.layer} at batch {args.batch}, "
               f"children {tuple(children.shape)}, a routed pass from the uniform pass's poses")
    try:
        poses = layer(leaf, first)  # the routed pass, as the network's second pass
    except RuntimeError as exc:  # e.g. a chunk loop that lost images: the claim fails here
        return property_evidence(subject, [Finding(
            f"the routed pass completes at batch {args.batch}", False,
            f"raised {type(exc).__name__}: {exc}")])
    if poses.shape != first.shape:  # every image (and position) routed, none dropped
        return property_evidence(subject, [Finding(
            "routed poses for every image", False,
            f"routed pass gave {tuple(poses.shape)}, the uniform pass {tuple(first.shape)}")])
    forward_chunks = list(calls)
    projection = torch.randn(poses.shape, generator=gen)
    (poses * projection).sum().backward()
    got_child, got_weight = leaf.grad, layer.weight.grad
    del layer._chunk_vote_sums

    layer.weight.grad = None
    twin = children.clone().requires_grad_(True)
    want = reference_pass(layer, twin, first)
    flat = grouped(poses.detach()) if poses.dim() == 5 else poses.detach()
    want_projection = grouped(projection) if projection.dim() == 5 else projection
    (want * want_projection).sum().backward()
    findings = [
        at_least("routed chunks in the forward pass", len(forward_chunks), 2),
        Finding("groups per chunk", True, f"{forward_chunks[:3]}... ({len(forward_chunks)} "
                f"chunks of {inverted_layers.VOTE_CHUNK_BYTES} bytes of votes, last "
                f"{forward_chunks[-1] if forward_chunks else 0})"),
        at_most("max |chunked - reference| parent pose (relative)", _gap(flat, want), 1e-4),
        at_most("max |chunked - reference| d/d children (relative)",
                _gap(got_child, twin.grad), 1e-4),
        at_most("max |chunked - reference| d/d W_ij (relative)",
                _gap(got_weight, layer.weight.grad), 1e-4),
    ]
    return property_evidence(subject, findings)


def _gap(got: Tensor | None, want: Tensor | None) -> float:
    """Largest difference relative to the reference's largest entry (inf when one is missing
    or the shapes differ)."""
    if got is None or want is None or got.shape != want.shape:
        return float("inf")
    gap = (got - want).detach().abs().max()
    return float(gap) / max(float(want.detach().abs().max()), 1e-12)
