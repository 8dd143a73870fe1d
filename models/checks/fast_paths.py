"""A computation rewritten for speed equals the plain one, values and gradients, at the shapes the
network really runs.

Efficient-CapsNet's primary capsules (arxiv:2101.12491 eq. 1) are a depthwise convolution whose
kernel covers the whole stem output. The port computes that 1×1 map as a per-channel window dot
product (``models.capsules.WindowDepthwiseConv2d``), with a second code path for channels-last
inputs, which is what the stem produces. This check runs the preset's own stem and primary layer
on a batch of images and compares the layer's output, and its gradients with respect to the
stem's output, the kernel and the bias, with ``torch.nn.functional.conv2d`` (groups = channels)
on the same tensors, for the stem's channels-last output and for a contiguous copy of it.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from claimcheck import claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import (
    DTYPE,
    EfficientPresetArgs,
    Finding,
    at_most,
    generator,
    max_abs,
    property_evidence,
)
from models.checks.gradients import gradients

BATCH = 3
TOL = 1e-10


def measure_window_conv(conv: Any, x: Tensor, seed: int, layout: str) -> list[Finding]:
    """Value and gradients of ``conv(x)`` against the grouped convolution."""
    g = torch.randn((x.shape[0], conv.out_channels, 1, 1), generator=generator(seed + 5),
                    dtype=DTYPE)
    leaf = x.detach().clone(memory_format=torch.preserve_format).requires_grad_(True)
    got = conv(leaf)
    got_grads = gradients((got * g).sum(), (leaf, conv.weight, conv.bias))
    ref_x = x.detach().contiguous().requires_grad_(True)
    ref_w = conv.weight.detach().clone().requires_grad_(True)
    ref_b = conv.bias.detach().clone().requires_grad_(True)
    expected = F.conv2d(ref_x, ref_w, ref_b, conv.stride, 0, 1, conv.groups)
    expected_grads = torch.autograd.grad((expected * g).sum(), (ref_x, ref_w, ref_b))
    findings = [at_most(f"{layout}: max |output - grouped conv|", max_abs(got, expected), TOL)]
    for name, a, b in zip(("input", "kernel", "bias"), got_grads, expected_grads, strict=True):
        findings.append(at_most(f"{layout}: max |d/d{name} - grouped conv's|",
                                max_abs(a.contiguous(), b), TOL))
    return findings


@claim_check(args=EfficientPresetArgs)
def primary_window_conv(ctx: CheckContext) -> Evidence:
    """Args: ``preset`` of efficient_capsnet (default mnist)."""
    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model = build_model("efficient_capsnet", preset).double().eval()
    config = model.config
    images = torch.rand((BATCH, config.in_channels, config.image_size, config.image_size),
                        generator=generator(ctx.seed), dtype=DTYPE)
    with torch.no_grad():
        stem_out = model.stem(images)
    conv = model.primary_caps.conv
    findings: list[Finding] = []
    for layout, x in (("channels-last (the stem's)", stem_out),
                      ("contiguous", stem_out.contiguous())):
        findings += measure_window_conv(conv, x, ctx.seed, layout)
    return property_evidence(
        f"efficient_capsnet/{preset} primary_caps.conv on the stem's output of {BATCH} random "
        f"images {tuple(stem_out.shape)} (float64), against F.conv2d with groups="
        f"{conv.groups}",
        findings,
    )
