"""Where primary capsules come from: channel grouping, the stem's layer order, normalisation.

* arxiv:1710.09829 §4: a primary capsule is 8 convolutional units (channels) at one position of
  the 6×6 grid, and Conv1 has a ReLU activation.
* arxiv:2002.04764 (README of the official code, Fig. 1): at each position, groups of d channels
  form a capsule, and LayerNorm over those d channels gives the primary capsules.
* arxiv:2101.12491, official code (``efficient_capsnet_graph_*.py``): each stem block is
  Conv -> ReLU -> BatchNorm (LeakyReLU -> InstanceNorm for smallNORB), and the primary capsules
  are squashed with eq. 2.

The grouping is probed from outside: a forward hook replaces the convolution's output with a
map that is non-zero at one spatial position only, and the check counts which capsules change.
Capsules made of d channels at one position light up as whole capsules, all at that position;
capsules cut from the flattened NCHW memory (a bug some ports have) light up as many
one-entry fragments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn

from claimcheck import claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import (
    DTYPE,
    CapsnetPresetArgs,
    EfficientPresetArgs,
    Finding,
    InvertedPresetArgs,
    at_least,
    at_most,
    generator,
    property_evidence,
)

PROBES = ((0, 0), (1, 2), (3, 1))  # spatial positions probed, (row, column)


def with_conv_output(conv: nn.Module, replacement: Tensor, run: Callable[[], Tensor]) -> Tensor:
    """Run ``run()`` while ``conv`` returns ``replacement`` instead of its own output."""
    handle = conv.register_forward_hook(lambda _m, _i, _o: replacement)
    try:
        return run()
    finally:
        handle.remove()


def measure_grouping(capsules_of: Callable[[Tensor], Tensor], channels: int, dim: int,
                     grid: tuple[int, int], seed: int) -> list[Finding]:
    """Each probe at one position must light up exactly channels/dim whole capsules.

    ``capsules_of(h)`` maps a conv output h (1, channels, H, W) to capsules (1, N, dim) or to a
    capsule map (1, types, H, W, dim).
    """
    gen = generator(seed)
    types = channels // dim
    findings: list[Finding] = []
    lit_sets: list[set[int]] = []
    for row, col in PROBES:
        if row >= grid[0] or col >= grid[1]:
            continue
        h = torch.zeros(1, channels, *grid, dtype=DTYPE)
        h[0, :, row, col] = torch.rand(channels, generator=gen, dtype=DTYPE) + 0.5
        capsules = capsules_of(h).reshape(-1, dim)
        nonzero = capsules.abs() > 1e-12
        lit = nonzero.any(dim=1)
        whole = bool((nonzero[lit].all(dim=1)).all())
        lit_sets.append(set(torch.nonzero(lit).flatten().tolist()))
        findings.append(Finding(
            f"probe at ({row}, {col}): {types} whole capsules change",
            int(lit.sum()) == types and whole,
            f"{int(lit.sum())} capsules changed, whole: {whole}",
        ))
    disjoint = all(a.isdisjoint(b) for i, a in enumerate(lit_sets) for b in lit_sets[i + 1:])
    findings.append(Finding("probes at different positions change different capsules",
                            disjoint, f"disjoint: {disjoint}"))
    findings.append(measure_channel_order(capsules_of, channels, dim, grid))
    return findings


def measure_channel_order(capsules_of: Callable[[Tensor], Tensor], channels: int, dim: int,
                          grid: tuple[int, int]) -> Finding:
    """Channel c at one position belongs to capsule type c // dim there (channels t·dim … t·dim +
    dim − 1 form type t), capsules ordered (type, row, column)."""
    row, col = min(1, grid[0] - 1), min(2, grid[1] - 1)
    wrong: list[str] = []
    for channel in sorted({0, dim - 1, dim, channels - 1}):
        h = torch.zeros(1, channels, *grid, dtype=DTYPE)
        h[0, channel, row, col] = 1.0
        lit = torch.nonzero((capsules_of(h).reshape(-1, dim).abs() > 1e-12).any(dim=1))
        expected = (channel // dim) * grid[0] * grid[1] + row * grid[1] + col
        if lit.flatten().tolist() != [expected]:
            wrong.append(f"channel {channel} -> capsules {lit.flatten().tolist()[:4]}, "
                         f"expected [{expected}]")
    return Finding(f"channel c is in capsule type c // {dim}", not wrong,
                   "; ".join(wrong) or "channels 0, d-1, d and the last in their types")


@claim_check(args=CapsnetPresetArgs)
def capsnet_primary_layout(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §4: PrimaryCaps groups 8 channels at one grid position into a capsule."""
    from models.registry import build_model

    torch.manual_seed(ctx.seed)
    model = build_model("capsnet", CapsnetPresetArgs.of(ctx).preset).double().eval()
    caps = model.primary_caps
    x = torch.zeros(1, model.config.in_channels, model.config.image_size,
                    model.config.image_size, dtype=DTYPE)
    grid = (model.config.primary_grid, model.config.primary_grid)
    channels = model.config.primary_types * model.config.primary_dim

    def capsules_of(h: Tensor) -> Tensor:
        return with_conv_output(caps.conv, h, lambda: caps(model.conv1(x)))

    with torch.no_grad():
        findings = measure_grouping(capsules_of, channels, model.config.primary_dim, grid,
                                    ctx.seed)
    return property_evidence(
        f"capsnet PrimaryCaps ({channels} channels on a {grid[0]}×{grid[1]} grid, "
        f"{model.config.primary_dim}-D capsules), one-position probes of the conv output",
        findings,
    )


@claim_check(args=InvertedPresetArgs)
def inverted_primary_layout(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 (official README, Fig. 1): d channels at one position form a capsule,
    normalised by LayerNorm over those d channels (mean 0, variance 1 at the initial affine)."""
    from models.registry import build_model

    torch.manual_seed(ctx.seed)
    model = build_model("inverted_capsnet", InvertedPresetArgs.of(ctx).preset)
    model = model.double().eval()
    config = model.config
    channels, grid = config.primary_types * config.pose_dim, config.image_size // 2
    x = torch.zeros(1, config.in_channels, config.image_size, config.image_size, dtype=DTYPE)

    def capsules_of(h: Tensor) -> Tensor:
        return with_conv_output(model.primary_caps, h, lambda: model.primary(x))

    with torch.no_grad():
        findings = measure_grouping(capsules_of, channels, config.pose_dim, (grid, grid), ctx.seed)
        h = torch.randn(2, channels, grid, grid, generator=generator(ctx.seed), dtype=DTYPE) * 3
        poses = with_conv_output(model.primary_caps, h, lambda: model.primary(x.expand(2, -1, -1,
                                                                                   -1)))
    mean = poses.mean(-1)
    var = ((poses - mean.unsqueeze(-1)) ** 2).mean(-1)
    findings += [
        at_most("primary poses: max |mean over the pose entries|", float(mean.abs().max()), 1e-9),
        at_most("primary poses: max |variance - 1|", float((var - 1).abs().max()), 1e-3),
    ]
    return property_evidence(
        f"inverted_capsnet primary capsules ({config.primary_types} types × {config.pose_dim}-D "
        f"on a {grid}×{grid} grid), probes of the 1×1 conv output",
        findings,
    )


@claim_check(args=CapsnetPresetArgs)
def capsnet_conv1_relu(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §4: Conv1 ... "and ReLU activation": PrimaryCaps receives Conv1's
    rectified output (non-negative, with exact zeros), in a full forward of the network."""
    features = primary_caps_input("capsnet", CapsnetPresetArgs.of(ctx).preset, ctx.seed)
    return property_evidence("capsnet forward on two random images; the input of primary_caps",
                             measure_rectified(features))


@claim_check(args=InvertedPresetArgs)
def inverted_backbone_rectified(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764's backbones end in a ReLU (the simple one: one 3×3 stride-2 conv and a
    ReLU, as in the official code): the primary capsules' 1×1 conv receives a rectified map
    (non-negative, with exact zeros), in a full forward of the network."""
    preset = InvertedPresetArgs.of(ctx).preset
    features = primary_caps_input("inverted_capsnet", preset, ctx.seed)
    return property_evidence(
        f"inverted_capsnet/{preset} forward on two random images; the input of primary_caps "
        "(the backbone's output)", measure_rectified(features))


def primary_caps_input(model_name: str, preset: str, seed: int) -> Tensor:
    """What the network's ``primary_caps`` receives in a full forward on two random images."""
    from models.registry import build_model

    torch.manual_seed(seed)
    model = build_model(model_name, preset).double().eval()
    config = model.config
    seen: list[Tensor] = []
    handle = model.primary_caps.register_forward_pre_hook(lambda _m, args: seen.append(args[0]))
    x = torch.randn(2, config.in_channels, config.image_size, config.image_size,
                    generator=generator(seed), dtype=DTYPE)
    try:
        with torch.no_grad():
            model(x)
    finally:
        handle.remove()
    if not seen:
        raise RuntimeError("the forward pass never called primary_caps")
    return seen[0]


def measure_rectified(features: Tensor) -> list[Finding]:
    """A ReLU's output: nothing below zero, and a real share of exact zeros."""
    return [
        at_least("min of PrimaryCaps input", float(features.min()), 0.0),
        at_least("share of exact zeros in PrimaryCaps input",
                 float((features == 0).double().mean()), 0.05),
    ]


def reference_stem_block(conv: nn.Module, norm: Any, x: Tensor, kind: str) -> Tensor:
    """The official block written out: conv, then the activation, then the norm (eval mode).

    ``batch``: ReLU, then BatchNorm with the module's running statistics and affine (Keras eps
    1e-3). ``instance``: LeakyReLU with Keras' default slope 0.3, then InstanceNorm over each
    image and channel, with the module's affine.
    """
    h = conv(x)
    if kind == "batch":
        a = torch.relu(h)
        shape = (1, -1, 1, 1)
        return ((a - norm.running_mean.view(shape)) / torch.sqrt(norm.running_var.view(shape)
                + 1e-3)) * norm.weight.view(shape) + norm.bias.view(shape)
    a = torch.where(h > 0, h, 0.3 * h)
    mean = a.mean(dim=(2, 3), keepdim=True)
    var = ((a - mean) ** 2).mean(dim=(2, 3), keepdim=True)
    return (a - mean) / torch.sqrt(var + 1e-3) * norm.weight.view(1, -1, 1, 1) + norm.bias.view(
        1, -1, 1, 1)


def measure_stem_block(block: nn.Module, x: Tensor, kind: str, seed: int) -> list[Finding]:
    """The block's output against :func:`reference_stem_block`, with its norm's statistics and
    affine set to random values first (defaults of 0 and 1 would hide a misplaced norm)."""
    convs = [m for m in block.modules() if isinstance(m, nn.Conv2d)]
    norms = [m for m in block.modules() if isinstance(m, (nn.BatchNorm2d, nn.InstanceNorm2d))]
    if len(convs) != 1 or len(norms) != 1:
        return [Finding("one convolution and one norm in the block", False,
                        f"{len(convs)} convolutions, {len(norms)} norms")]
    norm = norms[0]
    gen = generator(seed)
    with torch.no_grad():
        channels = norm.weight.shape[0]
        norm.weight.copy_(torch.rand(channels, generator=gen, dtype=DTYPE) + 0.5)
        norm.bias.copy_(torch.randn(channels, generator=gen, dtype=DTYPE))
        if kind == "batch":
            norm.running_mean.copy_(torch.randn(channels, generator=gen, dtype=DTYPE))
            norm.running_var.copy_(torch.rand(channels, generator=gen, dtype=DTYPE) + 0.5)
        got = block.eval()(x)
        expected = reference_stem_block(convs[0], norm, x, kind)
    order = "ReLU, BatchNorm" if kind == "batch" else "LeakyReLU(0.3), InstanceNorm"
    return [at_most(f"max |block output - (conv, {order})| / max |reference|",
                    float((got - expected).abs().max()) / float(expected.abs().max()), 1e-9)]


@claim_check(args=EfficientPresetArgs)
def efficient_stem_order(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 official code (efficient_capsnet_graph_*.py): every stem block is
    Conv2D -> ReLU -> BatchNorm (MNIST, MultiMNIST) or Conv2D -> LeakyReLU -> InstanceNorm
    (smallNORB). Args: ``preset``."""
    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model = build_model("efficient_capsnet", preset).double().eval()
    kind = model.config.norm
    x = torch.randn(4, model.config.in_channels, model.config.image_size,
                    model.config.image_size, generator=generator(ctx.seed), dtype=DTYPE)
    findings: list[Finding] = []
    with torch.no_grad():
        for index, block in enumerate(model.stem):
            for finding in measure_stem_block(block, x, kind, ctx.seed + index):
                findings.append(Finding(f"block {index}: {finding.name}", finding.ok,
                                        finding.measured))
            x = block(x)
    return property_evidence(
        f"efficient_capsnet/{preset} stem ({kind} norm), four random images, each norm given "
        "random statistics and affine, in eval mode",
        findings,
    )


def measure_primary_squash(capsules: Tensor, raw: Tensor, dim: int) -> list[Finding]:
    """Eq. 2 on the primary capsules: length 1 − e^{−‖s‖}, direction of s."""
    s = raw.reshape(raw.shape[0], -1, dim)
    norm = s.norm(dim=-1)
    expected = (1 - torch.exp(-norm)).unsqueeze(-1) * s / norm.unsqueeze(-1)
    return [at_most("max |primary capsule - squash(depthwise output)|",
                    float((capsules - expected).abs().max()), 1e-9)]


@claim_check(args=CapsnetPresetArgs)
def capsnet_primary_squash(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 eq. 1 applied to the primary capsules: every PrimaryCaps output has
    length ‖s‖²/(1 + ‖s‖²) of a capsule s of the conv output. Lengths are compared sorted per
    image, so the measurement does not depend on how channels are grouped (the layout claim
    measures that)."""
    from models.registry import build_model

    preset = CapsnetPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model = build_model("capsnet", preset).double().eval()
    caps: Any = model.primary_caps
    config = model.config
    side = config.image_size - config.conv_kernel + 1
    features = torch.relu(torch.randn(2, config.conv_channels, side, side,
                                      generator=generator(ctx.seed), dtype=DTYPE))
    seen: list[Tensor] = []
    handle = caps.conv.register_forward_hook(lambda _m, _i, out: seen.append(out))
    try:
        with torch.no_grad():
            capsules = caps(features)
    finally:
        handle.remove()
    raw = seen[0]
    s = raw.view(2, config.primary_types, config.primary_dim, *raw.shape[-2:])
    norm_sq = (s * s).sum(dim=2).flatten(1)
    expected = (norm_sq / (1 + norm_sq)).sort(dim=1).values
    got = capsules.norm(dim=-1).sort(dim=1).values
    return property_evidence(
        f"capsnet/{preset} PrimaryCaps on two random rectified feature maps",
        [at_most("max |sorted primary lengths - sorted ‖s‖²/(1+‖s‖²)|",
                 float((got - expected).abs().max()), 1e-6)])


@claim_check(args=EfficientPresetArgs)
def efficient_batchnorm_update(ctx: CheckContext) -> Evidence:
    """Measured: the share of one training batch's mean that the first stem BatchNorm moves its
    running mean by (PyTorch's ``momentum``; Keras' ``momentum`` is one minus it). Keras'
    BatchNormalization, which the official code uses, keeps 0.99 of the running mean per batch."""
    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model = build_model("efficient_capsnet", preset).double().train()
    norm = next(m for m in model.stem.modules() if isinstance(m, nn.BatchNorm2d))
    before = norm.running_mean.clone()
    seen: list[Tensor] = []
    handle = norm.register_forward_pre_hook(lambda _m, args: seen.append(args[0]))
    x = torch.randn(4, model.config.in_channels, model.config.image_size,
                    model.config.image_size, generator=generator(ctx.seed), dtype=DTYPE)
    try:
        with torch.no_grad():
            model(x)
    finally:
        handle.remove()
    batch_mean = seen[0].mean(dim=(0, 2, 3))
    share = float(((norm.running_mean - before) / (batch_mean - before)).mean())
    return Evidence(measured=share, details=(
        f"efficient_capsnet/{preset}, first stem BatchNorm after one training batch of 4 random "
        f"images: running mean moved by {share:.6g} of the way to the batch mean"))


@claim_check(args=EfficientPresetArgs)
def efficient_primary_squash(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 eq. 2 applied to the primary capsules (official code, PrimaryCaps
    layer): each 8-D primary capsule is the squash of 8 depthwise channels."""
    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model = build_model("efficient_capsnet", preset).double().eval()
    caps: Any = model.primary_caps
    x = torch.randn(2, model.config.in_channels, model.config.image_size,
                    model.config.image_size, generator=generator(ctx.seed), dtype=DTYPE)
    seen: list[Tensor] = []
    handle = caps.conv.register_forward_hook(lambda _m, _i, out: seen.append(out))
    try:
        with torch.no_grad():
            capsules = caps(model.stem(x))
    finally:
        handle.remove()
    raw = seen[0]
    if raw.shape[-1] != 1 or raw.shape[-2] != 1:
        raise ValueError(f"expected a 1×1 depthwise map, got {tuple(raw.shape)}")
    findings = measure_primary_squash(capsules, raw.flatten(1), model.config.primary_dim)
    return property_evidence(f"efficient_capsnet/{preset} primary capsules, two random images",
                             findings)
