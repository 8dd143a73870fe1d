"""Wrong variants of the reconstruction decoders (1710.09829 fig. 2; the smallNORB decoder of
the Efficient-CapsNet code)."""

from __future__ import annotations

from typing import Any

from torch import nn

from claimcheck import wrong_variant
from models.variants.patching import after_init, module, replace


@wrong_variant
def decoder_without_sigmoid() -> None:
    """The MLP decoder's last layer left linear (no sigmoid on the pixels)."""
    def linear_output(decoder: Any) -> None:
        decoder.net[-1] = nn.Identity()

    after_init(module("models.capsules").MLPDecoder, linear_output)


@wrong_variant
def decoder_narrow_hidden() -> None:
    """The MLP decoder with hidden layers of 256 and 512 units instead of 512 and 1024."""
    decoder = module("models.capsules").MLPDecoder
    original = decoder.__init__

    def init(self: Any, in_features: int, out_shape: Any, hidden: Any = (512, 1024)) -> None:
        original(self, in_features, out_shape, tuple(width // 2 for width in hidden))

    replace(decoder, "__init__", init)


@wrong_variant
def decoder_fed_one_capsule() -> None:
    """The MLP decoder fed only the 16 entries of the selected capsule instead of all masked
    capsules (K·16 inputs, the others zero): 1,337,616 decoder parameters instead of 1,411,344."""
    capsules = module("models.capsules")
    decoder = capsules.MLPDecoder
    original = decoder.forward

    def init_narrow(owner: Any) -> Any:
        first = owner.__init__

        def init(self: Any, config: Any) -> None:
            first(self, config)
            if isinstance(self.decoder, decoder):
                self.decoder = decoder(config.class_dim, self.decoder.out_shape)

        return init

    def forward(self: Any, flat: Any) -> Any:
        width = self.net[0].in_features
        if flat.shape[1] != width:  # (B, K·D) masked -> (B, D), the one non-zero capsule
            flat = flat.view(flat.shape[0], -1, width).sum(dim=1)
        return original(self, flat)

    replace(decoder, "forward", forward)
    for family, name in (("models.dynamic.capsnet", "CapsNet"),
                         ("models.self_attention.efficient_capsnet", "EfficientCapsNet")):
        owner = getattr(module(family), name)
        replace(owner, "__init__", init_narrow(owner))
