"""Initial values of learned parameters, as the official codes set them.

* arxiv:2101.12491, official ``utils/layers.py`` (``FCCaps``): the log priors B start at zero and
  W is drawn with Keras ``he_normal`` (a normal truncated at two standard deviations, rescaled so
  that its std is √(2 / fan_in), with Keras' fan_in = d_l · n_{l+1} · n_l for the 4-D W).
* arxiv:2002.04764, official ``src/layers.py``: W ~ N(0, 1) · √(n_out / (f · n_in · k²)) with
  f = √d for matrix poses (k = 1 for the fully connected layers); LayerNorm starts at unit gain
  and zero bias.

A wrong initialisation does not change a forward formula, so no equation check sees it, but it
changes what training reaches. These checks build the preset and measure the drawn values:
a std within 5% of the formula (the sampling error on ≥ 10,000 draws is under 1%).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from claimcheck import claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import (
    EfficientPresetArgs,
    Finding,
    InvertedPresetArgs,
    at_most,
    property_evidence,
)

STD_TOLERANCE = 0.05


def std_finding(name: str, values: torch.Tensor, expected: float) -> Finding:
    """|std / expected − 1| within the tolerance."""
    measured = float(values.double().std())
    return at_most(f"{name}: |std / {expected:.4g} - 1| (std measured {measured:.4g})",
                   abs(measured / expected - 1), STD_TOLERANCE)


@claim_check(args=EfficientPresetArgs)
def efficient_capsnet_init(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 official FCCaps: B = 0 and W he_normal. Args: ``preset``."""
    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    layer: Any = build_model("efficient_capsnet", preset).digit_caps
    return property_evidence(f"efficient_capsnet/{preset} digit_caps as built (seed {ctx.seed})",
                             measure_fccaps_init(layer.weight.detach(),
                                                 layer.log_prior.detach()))


def measure_fccaps_init(weight: torch.Tensor, log_prior: torch.Tensor) -> list[Finding]:
    """B = 0; W ~ he_normal with Keras' fan_in for a (n_out, n_in, d_in, d_out) tensor."""
    n_out, n_in, d_in, _ = weight.shape
    fan_in = d_in * n_out * n_in
    std = math.sqrt(2.0 / fan_in)
    return [
        Finding("log priors B are all zero", bool((log_prior == 0).all()),
                f"max |B| = {float(log_prior.abs().max()):.3g}"),
        std_finding(f"W (fan_in {fan_in})", weight, std),
        # A normal truncated at ±2σ' with std σ has σ' = σ / 0.8796; nothing lies beyond 2σ'.
        at_most("max |W| / (2 · untruncated std)",
                float(weight.abs().max()) / (2 * std / 0.87962566103423978), 1.0 + 1e-6),
    ]


@claim_check(args=InvertedPresetArgs)
def inverted_capsnet_init(ctx: CheckContext) -> Evidence:
    """arxiv:2002.04764 official layers: W std √(n_out/(f·n_in·k²)), LayerNorm (1, 0).
    Args: ``preset``."""
    from models.registry import build_model

    preset = InvertedPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model: Any = build_model("inverted_capsnet", preset)
    return property_evidence(f"inverted_capsnet/{preset} capsule layers as built",
                             measure_inverted_init(model))


def measure_inverted_init(model: Any) -> list[Finding]:
    """Each capsule layer: W std √(n_out/(f·n_in·k²)); LayerNorm at gain 1 and bias 0."""
    config = model.config
    fan = math.isqrt(config.pose_dim) if config.matrix_pose else config.pose_dim
    findings: list[Finding] = []
    for index, layer in enumerate(model.capsule_layers):
        weight = layer.weight.detach()
        n_out, n_in = weight.shape[0], weight.shape[1]
        kernel = weight.shape[2] if weight.dim() == 6 else 1
        expected = math.sqrt(n_out / (fan * n_in * kernel * kernel))
        findings.append(std_finding(f"capsule layer {index} W", weight, expected))
        findings.append(Finding(
            f"capsule layer {index} LayerNorm at gain 1, bias 0",
            bool((layer.norm.weight == 1).all() and (layer.norm.bias == 0).all()),
            "gain and bias as built",
        ))
    return findings


@claim_check(args=EfficientPresetArgs)
def efficient_encoder_init(ctx: CheckContext) -> Evidence:
    """arxiv:2101.12491 official code: every initialiser of the encoder. Stem convolutions
    he_normal (truncated at 2σ', std √(2/fan_in)) with zero biases; the depthwise primary
    convolution glorot_uniform (bound √(6/(fan_in + fan_out))) with a zero bias; batch norms at
    gain 1, bias 0, or instance norms with gain and bias drawn from U(−0.05, 0.05). Args:
    ``preset``."""
    from torch import nn

    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model: Any = build_model("efficient_capsnet", preset)
    findings: list[Finding] = []
    for index, block in enumerate(model.stem):
        conv, norm = block[0], block[2]
        weight, bias = conv.weight.detach(), conv.bias.detach()
        fan_in = weight.shape[1] * weight.shape[2] * weight.shape[3]
        std = math.sqrt(2.0 / fan_in)
        findings.append(std_finding(f"stem {index} conv (fan_in {fan_in})", weight, std))
        findings.append(at_most(f"stem {index} conv: max |W| / (2 · untruncated std)",
                                float(weight.abs().max()) / (2 * std / 0.87962566103423978),
                                1.0 + 1e-6))
        findings.append(Finding(f"stem {index} conv bias zero", bool((bias == 0).all()),
                                f"max {float(bias.abs().max()):.3g}"))
        if isinstance(norm, nn.BatchNorm2d):
            findings.append(Finding(f"stem {index} batch norm at gain 1, bias 0",
                                    bool((norm.weight.detach() == 1).all()
                                         and (norm.bias.detach() == 0).all()),
                                    "as built"))
        else:
            values = torch.cat([norm.weight.detach(), norm.bias.detach()])
            findings.append(at_most(f"stem {index} instance norm: max |gain, bias| / 0.05",
                                    float(values.abs().max()) / 0.05, 1.0))
            findings.append(Finding(f"stem {index} instance norm: gain and bias not constant",
                                    bool(values.std() > 0.01), f"std {float(values.std()):.3g}"))
    depthwise = model.primary_caps.conv
    weight = depthwise.weight.detach()
    receptive = weight.shape[2] * weight.shape[3]
    bound = math.sqrt(6.0 / (receptive * (1 + weight.shape[0])))
    findings.append(std_finding("depthwise conv (glorot_uniform)", weight, bound / math.sqrt(3)))
    findings.append(at_most("depthwise conv: max |W| / glorot bound", float(weight.abs().max())
                            / bound, 1.0))
    findings.append(Finding("depthwise conv bias zero", bool((depthwise.bias.detach() == 0).all()),
                            f"max {float(depthwise.bias.detach().abs().max()):.3g}"))
    return property_evidence(f"efficient_capsnet/{preset} encoder as built (seed {ctx.seed})",
                             findings)
