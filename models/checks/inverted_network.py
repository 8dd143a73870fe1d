"""Network-level checks of inverted dot-product attention routing (arxiv:2002.04764).

The reference network router below is independent of ``InvertedCapsNet.route`` and of the layers'
``route`` methods: it reads only the layers' weights and LayerNorms and the config's switches,
forms votes from explicit k×k windows (conv capsule layers) or flattened child maps (FC capsule
layers), and runs Procedure 1 (:func:`models.checks.inverted.reference_pass`). Concurrent routing
(Fig. 3): a uniform pass through every layer, then each further pass updates every layer at once
from the previous pass's child and parent poses. Sequential routing finishes one layer's passes
before the next. Capsule maps are (B, types, H, W, d).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import (
    Finding,
    InvertedPresetArgs,
    at_most,
    contrast,
    generator,
    max_abs,
    property_evidence,
    randn,
)
from models.checks.inverted import reference_pass, reference_votes

OUTPUT_TOL = 1e-9
# The CIFAR-10 network's layer structure with 8 instead of 32 capsule types, to keep it fast.
SMALL_CAPSULES = {"primary_types": 8, "conv_capsules": ((8, 3, 2), (8, 3, 1))}
# passes -> poses of every capsule layer, primary first
NetworkRouter = Callable[[int], list[Tensor]]


def reference_conv_votes(children: Tensor, weight: Tensor, stride: int) -> Tensor:
    """Votes of a conv capsule layer from explicit k×k windows.

    children (B, n, H, W, s·s), weight (m, n, k, k, s, s) -> (B·h·w, m, n·k·k, s·s), children
    ordered (type, kernel row, kernel column) as in ``ConvInvertedDotProductRouting``. The
    window of output position (h, w) is rows h·stride … h·stride + k − 1 (likewise columns),
    gathered by index arithmetic, not by ``unfold``.
    """
    kernel, side = weight.shape[2], weight.shape[-1]
    rows = (children.shape[2] - kernel) // stride + 1
    cols = (children.shape[3] - kernel) // stride + 1
    row_index = (torch.arange(rows) * stride)[:, None] + torch.arange(kernel)[None, :]  # (h, k)
    col_index = (torch.arange(cols) * stride)[:, None] + torch.arange(kernel)[None, :]  # (w, l)
    windows = children[:, :, row_index[:, None, :, None], col_index[None, :, None, :]]
    # windows: (B, n, h, w, k, l, s·s) -> poses (B, h, w, 1, n, k, l, s, s)
    poses = windows.permute(0, 2, 3, 1, 4, 5, 6).unflatten(-1, (side, side)).unsqueeze(3)
    votes = (poses @ weight).flatten(-2)  # (B, h, w, m, n, k, l, s·s)
    return votes.flatten(4, 6).flatten(0, 2)


def _is_conv(layer: Any) -> bool:
    return layer.weight.dim() == 6


def reference_layer_pass(layer: Any, children: Tensor, parents: Tensor | None,
                         scale: float) -> Tensor:
    """One pass of one capsule layer from ``parents`` (None: zero poses) -> its new poses."""
    batch = children.shape[0]
    if _is_conv(layer):
        votes = reference_conv_votes(children, layer.weight, layer.stride)
        rows = (children.shape[2] - layer.kernel) // layer.stride + 1
        cols = (children.shape[3] - layer.kernel) // layer.stride + 1
        flat = (
            votes.new_zeros(votes.shape[0], votes.shape[1], votes.shape[3])
            if parents is None
            else parents.permute(0, 2, 3, 1, 4).flatten(0, 2)
        )
        poses, _ = reference_pass(votes, flat, scale, layer.norm)
        return poses.view(batch, rows, cols, poses.shape[1], poses.shape[2]).permute(0, 3, 1, 2, 4)
    votes = reference_votes(children.flatten(1, 3) if children.dim() == 5 else children,
                            layer.weight)
    flat = votes.new_zeros(batch, votes.shape[1], votes.shape[3]) if parents is None else parents
    poses, _ = reference_pass(votes, flat, scale, layer.norm)
    return poses


def code_scale(model: Any) -> float:
    """The official code's agreement scale, 1/√d of the pose dimension (read from the config's
    pose size, never from the config's switch, so that a preset that turns it off fails)."""
    return 1.0 / math.sqrt(model.config.pose_dim)


def reference_network_route(model: Any, primary: Tensor, passes: int, mode: str,
                            scale: float | None = None) -> list[Tensor]:
    """Poses of every capsule layer after ``passes`` passes, ``mode`` concurrent or sequential;
    the agreement is scaled by ``scale`` (default: the official code's 1/√d)."""
    scale = code_scale(model) if scale is None else scale
    layers = list(model.capsule_layers)
    if mode == "sequential":
        poses = [primary]
        for layer in layers:
            parent = reference_layer_pass(layer, poses[-1], None, scale)
            for _ in range(passes - 1):
                parent = reference_layer_pass(layer, poses[-1], parent, scale)
            poses.append(parent)
        return poses
    poses = [primary]
    for layer in layers:
        poses.append(reference_layer_pass(layer, poses[-1], None, scale))
    for _ in range(passes - 1):
        poses = [primary] + [
            reference_layer_pass(layer, poses[k], poses[k + 1], scale)
            for k, layer in enumerate(layers)
        ]
    return poses


def _gap(a: list[Tensor], b: list[Tensor]) -> float:
    return max(max_abs(x, y) for x, y in zip(a, b, strict=True))


def network_router(model: Any, primary: Tensor, routing: str) -> NetworkRouter:
    """The model's own ``route`` with the config switched to ``routing`` and a pass count."""

    def route(passes: int) -> list[Tensor]:
        model.config = dataclasses.replace(model.config, iterations=passes, routing=routing)
        poses: list[Tensor] = model.route(primary)
        return poses

    return route


def measure_concurrent(concurrent: NetworkRouter, model: Any, primary: Tensor,
                       passes: tuple[int, ...] = (1, 2, 3)) -> tuple[list[Finding], list[str]]:
    """Fig. 3: after pass t every layer holds the update from the poses of pass t − 1."""
    findings = [
        at_most(
            f"{t} pass(es): max |poses - concurrent reference|",
            _gap(concurrent(t), reference_network_route(model, primary, t, "concurrent")),
            OUTPUT_TOL,
        )
        for t in passes
    ]
    gap = max_abs(
        reference_network_route(model, primary, 2, "concurrent")[-1],
        reference_network_route(model, primary, 2, "sequential")[-1],
    )
    return findings, [contrast("2 passes: class poses, concurrent vs sequential reference", gap)]


def small_network(seed: int) -> Any:
    from models.registry import build_model

    torch.manual_seed(seed)
    return build_model("inverted_capsnet", "cifar10_simple", **SMALL_CAPSULES).double().eval()


@dataclass(frozen=True)
class PresetPassesArgs(CheckArgs):
    """``preset`` of inverted_capsnet (default cifar10_resnet) and its ``passes`` (default 2)."""

    preset: str = "cifar10_resnet"
    passes: int = 2


@dataclass(frozen=True)
class PassesArgs(CheckArgs):
    """``passes``: routing passes (default 3)."""

    passes: int = 3


@claim_check
def concurrent_routing(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 fig. 3, on the CIFAR-10 network with the simple backbone (float64),
    for 1, 2 and 3 passes: the third pass must use the second pass's poses, not stale ones."""
    model = small_network(ctx.seed)
    x = randn((1, 3, 32, 32), generator(ctx.seed))
    with torch.no_grad():
        primary = model.primary(x)
        findings, notes = measure_concurrent(
            network_router(model, primary, "concurrent"), model, primary
        )
    return property_evidence(
        "inverted_capsnet/cifar10_simple with 8 capsule types per layer (2 conv + 1 FC capsule "
        "layers), one random image, model.route against an independent concurrent reference",
        findings,
        notes,
    )


def measure_preset_routing(model: Any, x: Tensor, passes: int) -> tuple[list[Finding], list[str]]:
    """The preset as built: its forward equals concurrent routing with ``passes`` passes."""
    output = model(x)
    primary = model.primary(x)
    concurrent = reference_network_route(model, primary, passes, "concurrent")[-1]
    sequential = reference_network_route(model, primary, passes, "sequential")[-1]
    logits = (concurrent @ model.classifier.weight.T).squeeze(-1) + model.classifier.bias
    findings = [
        at_most(f"max |class poses - concurrent reference, {passes} passes|",
                max_abs(output.poses, concurrent), 1e-8),
        at_most("max |logits - shared linear map of the reference class poses|",
                max_abs(output.scores, logits), 1e-8),
    ]
    notes = [contrast("reference concurrent vs sequential", max_abs(concurrent, sequential))]
    return findings, notes


@claim_check(args=PresetPassesArgs)
def preset_routing_mode(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 fig. 3 and the official script: the preset routes concurrently with
    ``passes`` passes (README: ``--num_routing 2``). Args: ``preset``, ``passes`` (default 2)."""
    from models.registry import build_model

    args = PresetPassesArgs.of(ctx)
    preset, passes = args.preset, args.passes
    torch.manual_seed(ctx.seed)
    model = build_model("inverted_capsnet", preset).double().eval()
    x = randn((1, 3, 32, 32), generator(ctx.seed))
    with torch.no_grad():
        findings, notes = measure_preset_routing(model, x, passes)
    return property_evidence(
        f"inverted_capsnet/{preset} as the preset builds it, one random image (float64)",
        findings,
        notes,
    )


def measure_network_gradient(model: Any, primary: Tensor, passes: int) -> list[Finding]:
    """d(class poses · g)/d(primary) of the model's routing against the reference's."""
    weights = randn(model.route(primary)[-1].shape, generator(7))
    leaf = primary.detach().clone().requires_grad_(True)
    (got,) = torch.autograd.grad((model.route(leaf)[-1] * weights).sum(), leaf)
    ref_leaf = primary.detach().clone().requires_grad_(True)
    reference = reference_network_route(model, ref_leaf, passes, model.config.routing)[-1]
    (expected,) = torch.autograd.grad((reference * weights).sum(), ref_leaf)
    scale = float(expected.abs().max())
    return [
        at_most(
            f"max |gradient wrt primary poses - reference| / max |reference| ({passes} passes)",
            max_abs(got, expected) / scale,
            1e-8,
        )
    ]


@claim_check(args=PassesArgs)
def gradient_through_passes(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 alg. 1 and fig. 3: gradients flow through every routing pass (no pose
    detached between passes). Args: ``passes`` (default 3)."""
    passes = PassesArgs.of(ctx).passes
    model = small_network(ctx.seed)
    model.config = dataclasses.replace(model.config, iterations=passes, routing="concurrent")
    x = randn((1, 3, 32, 32), generator(ctx.seed))
    with torch.no_grad():
        primary = model.primary(x)
    findings = measure_network_gradient(model, primary, passes)
    return property_evidence(
        "inverted_capsnet/cifar10_simple with 8 capsule types, concurrent routing, float64",
        findings,
    )


def measure_conv_windows(votes_of: Callable[[Tensor], Tensor], weight: Tensor, stride: int,
                         children: Tensor) -> list[Finding]:
    """The layer's votes come from the true sliding windows of its input."""
    return [
        at_most(
            "max |layer votes - votes from explicit k×k windows|",
            max_abs(votes_of(children), reference_conv_votes(children, weight, stride)),
            1e-12,
        )
    ]


@claim_check
def conv_windows(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 fig. 1 (convolutional capsule layers), with the model's default
    ``input_expansion``; the details also report the official first commit's expansion."""
    from models.inverted.networks import ConvInvertedDotProductRouting

    torch.manual_seed(ctx.seed)
    layer = ConvInvertedDotProductRouting(3, 4, 2, 4, kernel=3, stride=2).double()
    scrambled = ConvInvertedDotProductRouting(
        3, 4, 2, 4, kernel=3, stride=2, input_expansion="apple_53899ae"
    ).double()
    children = randn((2, 3, 7, 7, 4), generator(ctx.seed))
    with torch.no_grad():
        scrambled.weight.copy_(layer.weight)
        findings = measure_conv_windows(layer.votes, layer.weight, 2, children)
        gap = max_abs(scrambled.votes(children), reference_conv_votes(children, layer.weight, 2))
    return property_evidence(
        f"ConvInvertedDotProductRouting(3 types, 2×2 poses, k=3, s=2, "
        f"input_expansion={layer.input_expansion!r}) on a 7×7 map",
        findings,
        [contrast("the apple@53899ae expansion vs explicit windows", gap)],
    )


@claim_check(args=InvertedPresetArgs)
def capsule_layer_counts(ctx: CheckContext) -> Evidence:
    """Fig. 1's layer structure in a built network: [conv capsule layers incl. primary, FC].

    Args: ``preset`` of ``inverted_capsnet``. Measured: a list of two ints.
    """
    from models.inverted.networks import ConvInvertedDotProductRouting, InvertedDotProductRouting
    from models.registry import build_model

    preset = InvertedPresetArgs.of(ctx).preset
    model = build_model("inverted_capsnet", preset)
    layers = list(model.capsule_layers)
    conv = 1 + sum(isinstance(layer, ConvInvertedDotProductRouting) for layer in layers)
    fc = sum(isinstance(layer, InvertedDotProductRouting) for layer in layers)
    sizes = [getattr(layer, "n_out", "?") for layer in layers]
    return Evidence(
        measured=[conv, fc],
        details=(
            f"inverted_capsnet/{preset}: primary capsules + {conv - 1} conv capsule layer(s), "
            f"{fc} fully connected capsule layer(s); capsule layer output types/sizes {sizes}"
        ),
    )
