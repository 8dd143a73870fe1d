"""Wrong variants of the reconstruction decoders (1710.09829 fig. 2; the smallNORB decoder of
the Efficient-CapsNet code). Each is self-contained: it builds or runs its own layers and never
calls the constructor or forward it replaces."""

from __future__ import annotations

import itertools
import math
from typing import Any

from torch import Tensor, nn

from claimcheck import wrong_variant
from models.variants.patching import module, replace

FAMILIES = ("models.dynamic.capsnet", "models.self_attention.efficient_capsnet")
CLASSES = 10  # every preset with an MLP decoder has ten classes


def _mlp(in_features: int, out_shape: Any, hidden: Any, sigmoid: bool = True) -> nn.Sequential:
    widths = [in_features, *hidden]
    layers: list[nn.Module] = []
    for fan_in, fan_out in itertools.pairwise(widths):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    layers.append(nn.Linear(widths[-1], math.prod(out_shape)))
    if sigmoid:
        layers.append(nn.Sigmoid())
    return nn.Sequential(*layers)


@wrong_variant
def decoder_without_sigmoid() -> None:
    """The MLP decoder's last layer left linear (no sigmoid on the pixels)."""

    def forward(self: Any, flat: Tensor) -> Tensor:
        out: Tensor = self.net[:-1](flat)
        return out.view(flat.shape[0], *self.out_shape)

    replace(module("models.capsules").MLPDecoder, "forward", forward)


@wrong_variant
def decoder_narrow_hidden() -> None:
    """The MLP decoder with hidden layers of 256 and 512 units instead of 512 and 1024."""

    def init(self: Any, in_features: int, out_shape: Any, hidden: Any = (512, 1024)) -> None:
        nn.Module.__init__(self)
        self.out_shape = tuple(out_shape)
        self.net = _mlp(in_features, self.out_shape, tuple(width // 2 for width in hidden))

    replace(module("models.capsules").MLPDecoder, "__init__", init)


class _OneCapsuleDecoder(nn.Module):
    """Fig. 2's stack fed the D entries of the selected capsule (the masked capsules summed)
    instead of all K·D masked entries: 1,337,616 parameters instead of 1,411,344 on MNIST."""

    def __init__(self, in_features: int, out_shape: Any, hidden: Any = (512, 1024)) -> None:
        super().__init__()
        self.out_shape = tuple(out_shape)
        self.width = in_features // CLASSES
        self.net = _mlp(self.width, self.out_shape, hidden)

    def forward(self, flat: Tensor) -> Tensor:
        one = flat.view(flat.shape[0], -1, self.width).sum(dim=1)  # (B, D)
        out: Tensor = self.net(one)
        return out.view(flat.shape[0], *self.out_shape)


@wrong_variant
def decoder_fed_one_capsule() -> None:
    """The MLP decoder fed only the 16 entries of the selected capsule instead of all masked
    capsules (K·16 inputs, the others zero): 1,337,616 decoder parameters instead of 1,411,344."""
    for family in FAMILIES:
        replace(module(family), "MLPDecoder", _OneCapsuleDecoder)
