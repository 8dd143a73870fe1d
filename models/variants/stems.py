"""Wrong variants of what feeds the primary capsules: CapsNet's Conv1, Efficient-CapsNet's
stem blocks (official code: Conv -> ReLU -> BatchNorm; Conv -> LeakyReLU(0.3) -> InstanceNorm
for smallNORB) and the inverted-routing network's primary capsules."""

from __future__ import annotations

from typing import Any

from torch import nn

from claimcheck import wrong_variant
from models.variants.patching import Replaced, identity, module, replace

EFFICIENT = "models.self_attention_routing"


@wrong_variant
def conv1_without_relu() -> None:
    """CapsNet's Conv1 without its ReLU (§4: "and ReLU activation")."""
    import torch.nn.functional as F

    routing = module("models.dynamic_routing")
    replace(routing, "F", Replaced(F, relu=identity))


def _rebuilt_blocks(rebuild: Any) -> None:
    """Rebind Efficient-CapsNet's ``_stem_block`` to ``rebuild(block)`` of the official one."""
    network = module(EFFICIENT)
    original = network._stem_block

    def block(c_in: int, c_out: int, kernel: int, stride: int, norm: str) -> nn.Sequential:
        built: nn.Sequential = rebuild(original(c_in, c_out, kernel, stride, norm))
        return built

    replace(network, "_stem_block", block)


@wrong_variant
def stem_norm_before_activation() -> None:
    """Each Efficient-CapsNet stem block normalises before its activation (Conv, Norm, ReLU)."""
    _rebuilt_blocks(lambda b: nn.Sequential(b[0], b[2], b[1]))


@wrong_variant
def stem_torch_leaky_slope() -> None:
    """The smallNORB stem's LeakyReLU with PyTorch's default slope 0.01 instead of Keras' 0.3."""

    def slope(block: nn.Sequential) -> nn.Sequential:
        if isinstance(block[1], nn.LeakyReLU):
            block[1] = nn.LeakyReLU(0.01)
        return block

    _rebuilt_blocks(slope)


@wrong_variant
def stem_without_bias() -> None:
    """Efficient-CapsNet's stem convolutions built without biases (bias=False before a norm)."""

    def unbiased(block: nn.Sequential) -> nn.Sequential:
        conv = block[0]
        block[0] = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                             bias=False)
        return block

    _rebuilt_blocks(unbiased)


@wrong_variant
def primary_caps_without_bias() -> None:
    """CapsNet's PrimaryCaps convolution built without biases."""
    layer = module("models.dynamic_routing").PrimaryCaps
    original = layer.__init__

    def init(self: Any, in_channels: int, types: int, dim: int, kernel: int, stride: int,
             eps: float = 1e-8) -> None:
        original(self, in_channels, types, dim, kernel, stride, eps)
        self.conv = nn.Conv2d(in_channels, types * dim, kernel, stride, bias=False)

    replace(layer, "__init__", init)
