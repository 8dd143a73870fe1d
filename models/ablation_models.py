"""Models of the wiki's ablations: a narrow CapsNet, and Efficient-CapsNet with dynamic routing.

``capsnet_narrow`` is CapsNet (arxiv:1710.09829 §4) with 64 instead of 256 conv channels and 8
instead of 32 primary capsule types (6·6·8 = 288 primary capsules, 2.1M parameters with the
decoder instead of 8.2M): the same architecture, about six times cheaper to train, so that the
paper's tab. 1 ablation (1 against 3 routing iterations) fits a CPU. At the ``full`` budget the
ablation claims switch back to ``capsnet`` itself.

``efficient_capsnet_dynamic`` is the ablation arm of arxiv:2101.12491:
The paper replaces routing by agreement (arxiv:1710.09829 Procedure 1) with self-attention
routing (arxiv:2101.12491 eqs. 3-6). To ask what the routing alone changes, this network keeps
everything of :class:`models.self_attention.efficient_capsnet.EfficientCapsNet` (stem, depthwise
primary capsules with their squash, decoder, length read-out) and swaps only the class-capsule layer
for
:class:`models.dynamic.routing.DynamicRouting` with ``iterations`` rounds of agreement
(16 primary capsules → 10 class capsules, one 16×8 matrix per pair, as in the original).
It is a wiki experiment, not a model from either paper.
"""

from __future__ import annotations

from dataclasses import dataclass

from models.dynamic.capsnet import CapsNet, CapsNetConfig
from models.dynamic.routing import DynamicRouting
from models.registry import register_model
from models.self_attention.efficient_capsnet import EfficientCapsNet, EfficientCapsNetConfig

NARROW_PRESETS = {
    "mnist": lambda: CapsNetConfig(conv_channels=64, primary_types=8),
    "multimnist": lambda: CapsNetConfig(image_size=36, digit_bias=True, conv_channels=64,
                                        primary_types=8),
}


@register_model("capsnet_narrow", NARROW_PRESETS)
class CapsNetNarrow(CapsNet):
    """:class:`models.dynamic.capsnet.CapsNet` under its own registry name, with narrow presets."""


@dataclass(frozen=True)
class EfficientDynamicConfig(EfficientCapsNetConfig):
    """:class:`EfficientCapsNetConfig` plus the number of routing-by-agreement iterations."""

    iterations: int = 3


@register_model("efficient_capsnet_dynamic", {"mnist": lambda: EfficientDynamicConfig()})
class EfficientCapsNetDynamic(EfficientCapsNet):
    """Efficient-CapsNet with its self-attention layer replaced by dynamic routing (see above)."""

    def __init__(self, config: EfficientDynamicConfig) -> None:
        super().__init__(config)
        self.digit_caps = DynamicRouting(  # type: ignore[assignment]
            config.num_primary, config.primary_dim, config.num_classes, config.class_dim,
            iterations=config.iterations)
