"""Every stride and feature-map size of a network, backbones included, and the initialisers its
official code leaves to PyTorch (arxiv:2002.04764's official code; the CIFAR ResNet-18 of
arxiv:1512.03385 that its abstract compares with).

``stage_sizes`` traces one forward pass of the registered network with hooks on every
convolution and capsule layer, in call order, so a stride moved from a block's first
convolution to its second (same output, same parameters) still shows in the first convolution's
map. ``default_initialisers`` measures every convolution, linear map and norm outside the
capsule layers against PyTorch's defaults, which the official code never overrides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import Finding, at_most, property_evidence


@dataclass(frozen=True)
class StageArgs(CheckArgs):
    """``model`` and ``preset`` of the registry; ``input`` [B, C, H, W] of the traced pass."""

    model: str = "inverted_capsnet"
    preset: str = "cifar10_resnet"
    input: list[int] | None = None


def traced(module: nn.Module) -> bool:
    return isinstance(module, nn.Conv2d) or hasattr(module, "route")


@claim_check(args=StageArgs)
def stage_sizes(ctx: CheckContext) -> Evidence:
    """Measured: ``name CxHxW`` (capsule maps ``types x H x W x d``) of every convolution and
    capsule layer in the order a forward pass calls them; the batch axis must be kept."""
    from models.registry import build_model

    args = StageArgs.of(ctx)
    shape = args.input or [5, 3, 32, 32]
    torch.manual_seed(ctx.seed)
    model = build_model(args.model, args.preset).eval()
    seen: list[str] = []
    lost: list[str] = []

    def hook(name: str) -> Any:
        def record(_module: nn.Module, _inputs: Any, output: Any) -> None:
            out: Tensor = output[0] if isinstance(output, tuple) else output
            if out.shape[0] != shape[0]:
                lost.append(name)
            seen.append(f"{name} {'x'.join(str(v) for v in out.shape[1:])}")
        return record

    handles = [module.register_forward_hook(hook(name))
               for name, module in model.named_modules() if name and traced(module)]
    with torch.no_grad():
        model(torch.zeros(shape))
    for handle in handles:
        handle.remove()
    if lost:
        raise ValueError(f"the batch axis of {shape[0]} was not kept by {lost}")
    return Evidence(measured=seen, details=f"{args.model}/{args.preset} on input {shape}: "
                    + "; ".join(seen))


@dataclass(frozen=True)
class InitArgs(CheckArgs):
    """``model`` and ``preset`` of the registry."""

    model: str = "inverted_capsnet"
    preset: str = "cifar10_resnet"


def uniform_findings(name: str, weight: Tensor, fan_in: int) -> list[Finding]:
    """PyTorch's default for convolutions and linear maps, kaiming_uniform(a=√5):
    U(-1/√fan_in, 1/√fan_in), std 1/√(3·fan_in)."""
    bound = 1.0 / math.sqrt(fan_in)
    values = weight.detach().flatten().double()
    std = float(values.std())
    tolerance = 4.0 / math.sqrt(2.0 * values.numel()) + 0.02  # 4 standard errors of a std
    return [
        at_most(f"{name}: max |w| / (1/√fan_in)", float(values.abs().max()) / bound, 1.0 + 1e-6),
        at_most(f"{name}: |std / (1/√(3·fan_in)) - 1|", abs(std / (bound / math.sqrt(3)) - 1),
                tolerance),
    ]


@claim_check(args=InitArgs)
def default_initialisers(ctx: CheckContext) -> Evidence:
    """Every Conv2d and Linear outside the capsule layers at PyTorch's default (weights and
    biases U(±1/√fan_in)); every BatchNorm and LayerNorm at gain 1 and bias 0 with running
    mean 0 and variance 1."""
    from models.registry import build_model

    args = InitArgs.of(ctx)
    torch.manual_seed(ctx.seed)
    model = build_model(args.model, args.preset)
    findings: list[Finding] = []
    norms = 0
    for name, module in model.named_modules():
        if ".capsule_layers." in f".{name}." and not isinstance(module, nn.LayerNorm):
            continue
        if isinstance(module, nn.Conv2d | nn.Linear):
            fan_in = module.weight[0].numel()
            findings += uniform_findings(name, module.weight, fan_in)
            if module.bias is not None:
                findings.append(at_most(f"{name} bias: max |b| / (1/√fan_in)",
                                        float(module.bias.detach().abs().max())
                                        * math.sqrt(fan_in), 1.0 + 1e-6))
        elif isinstance(module, nn.BatchNorm2d | nn.LayerNorm):
            norms += 1
            ok = bool((module.weight == 1).all() and (module.bias == 0).all())
            if isinstance(module, nn.BatchNorm2d):
                ok = ok and bool((module.running_mean == 0).all()
                                 and (module.running_var == 1).all())
            if not ok:
                findings.append(Finding(f"{name} at gain 1, bias 0", False, "as built"))
    findings.append(Finding("norms at gain 1, bias 0 (and BatchNorm's running mean 0, "
                            "variance 1)", all(f.ok for f in findings if "gain" in f.name),
                            f"{norms} norms"))
    return property_evidence(f"{args.model}/{args.preset} as built, seed {ctx.seed}", findings)
