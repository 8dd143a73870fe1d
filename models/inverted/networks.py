"""The CIFAR capsule networks of inverted dot-product attention routing (arxiv:2002.04764).

The routing and its FC layer live in ``models.inverted.layers``, the conv capsule layer in
``models.inverted.conv``; their public names are re-exported here, where the checks import them.

Official code: apple/ml-capsules-inverted-attention-routing (``src/layers.py``,
``src/capsule_model.py``). Differences from Procedure 1 that the code makes are named options:
``scale_agreement`` (the code divides the agreement by √d_out; Procedure 1 does not) and
``input_expansion`` (see ``ConvInvertedDotProductRouting``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from torch import Tensor, nn

from models.capsules import ClassifierOutput
from models.inverted.conv import ConvInvertedDotProductRouting, InputExpansion, expand_windows
from models.inverted.layers import (
    InvertedDotProductRouting,
    inverted_dot_product_routing,
    route_child_major,
)
from models.registry import register_model
from models.resnet import conv_bn_relu_stem, resnet_stage

__all__ = [
    "ConvInvertedDotProductRouting",
    "InputExpansion",
    "InvertedCapsNet",
    "InvertedCapsNetConfig",
    "InvertedDotProductRouting",
    "expand_windows",
    "inverted_dot_product_routing",
    "route_child_major",
]


@dataclass(frozen=True)
class InvertedCapsNetConfig:
    """The CIFAR capsule network of arxiv:2002.04764 (Fig. 1, official ``configs/*.json``).

    ``conv_capsules`` lists (types, kernel, stride) per conv capsule layer, ``fc_capsules`` the
    sizes of the FC capsule layers before the class capsules. ``iterations`` counts every pass,
    the uniform first one included (the code's ``--num_routing``; the README uses 2).
    ``routing="concurrent"`` is what the training script runs; ``"sequential"`` is the ablation.
    """

    num_classes: int = 10
    backbone: Literal["resnet", "simple"] = "resnet"
    in_channels: int = 3
    image_size: int = 32
    backbone_channels: int = 128
    primary_types: int = 32
    pose_dim: int = 16
    conv_capsules: tuple[tuple[int, int, int], ...] = ((32, 3, 2), (32, 3, 1))
    fc_capsules: tuple[int, ...] = ()
    iterations: int = 2
    routing: Literal["concurrent", "sequential"] = "concurrent"
    matrix_pose: bool = True
    scale_agreement: bool = True
    dropout: float = 0.0
    input_expansion: InputExpansion = "unfold"


def _cifar(num_classes: int, backbone: Literal["resnet", "simple"]) -> InvertedCapsNetConfig:
    if num_classes == 10:
        return InvertedCapsNetConfig(backbone=backbone)
    # CIFAR-100: 6×6 matrix poses and an extra FC layer of 20 capsules (800 -> 20 -> 100 is
    # cheaper than 800 -> 100, the authors' answer in the code's issue #7).
    return InvertedCapsNetConfig(
        num_classes=num_classes, backbone=backbone, pose_dim=36, fc_capsules=(20,)
    )


INVERTED_PRESETS = {
    "cifar10_resnet": lambda: _cifar(10, "resnet"),  # 1,828,817 params
    "cifar10_simple": lambda: _cifar(10, "simple"),  # 492,177
    "cifar100_resnet": lambda: _cifar(100, "resnet"),  # 2,799,629
    "cifar100_simple": lambda: _cifar(100, "simple"),  # 1,462,989
}


def _backbone(config: InvertedCapsNetConfig) -> nn.Sequential:
    """ResNet: CIFAR stem, 3 BasicBlocks at 64, 4 at ``backbone_channels`` with stride 2.
    Simple: one 3×3 stride-2 conv with bias and a ReLU. Both halve 32×32 to 16×16."""
    if config.backbone == "resnet":
        return nn.Sequential(
            conv_bn_relu_stem(config.in_channels, 64),
            resnet_stage(64, 64, 3, 1),
            resnet_stage(64, config.backbone_channels, 4, 2),
        )
    if config.backbone == "simple":
        return nn.Sequential(
            nn.Conv2d(config.in_channels, config.backbone_channels, 3, 2, padding=1), nn.ReLU()
        )
    raise ValueError(f"backbone must be 'resnet' or 'simple', got {config.backbone!r}")


@register_model("inverted_capsnet", INVERTED_PRESETS)
class InvertedCapsNet(nn.Module):
    """Backbone -> primary capsules -> conv capsule layers -> FC capsule layers -> class logits.

    Submodules: ``backbone``; ``primary_caps`` (1×1 conv without bias, ``types·d`` channels,
    capsule = ``d`` consecutive channels at one location) and ``primary_norm`` (LayerNorm of the
    primary poses, which replaces squash); ``capsule_layers.0`` … (the conv layers, then the FC
    layers, the last one being the class capsules; each keeps ``last_coupling``);
    ``classifier`` (one Linear(d, 1) shared by all class capsules). ``forward`` returns logits
    (B, K) and class poses (B, K, d). Capsule maps are (B, types, H, W, d).
    """

    score_kind = "logits"

    def __init__(self, config: InvertedCapsNetConfig) -> None:
        super().__init__()
        self.config = config
        d = config.pose_dim
        options: dict[str, Any] = {
            "matrix_pose": config.matrix_pose,
            "scale_agreement": config.scale_agreement,
            "dropout": config.dropout,
        }
        self.backbone = _backbone(config)
        self.primary_caps = nn.Conv2d(
            config.backbone_channels, config.primary_types * d, 1, bias=False
        )
        self.primary_norm = nn.LayerNorm(d)
        layers: list[nn.Module] = []
        types, grid = config.primary_types, config.image_size // 2
        for out_types, kernel, stride in config.conv_capsules:
            layers.append(
                ConvInvertedDotProductRouting(
                    types,
                    d,
                    out_types,
                    d,
                    kernel,
                    stride,
                    input_expansion=config.input_expansion,
                    **options,
                )
            )
            types, grid = out_types, (grid - kernel) // stride + 1
        n_in = types * grid * grid
        for n_out in (*config.fc_capsules, config.num_classes):
            layers.append(InvertedDotProductRouting(n_in, d, n_out, d, **options))
            n_in = n_out
        self.capsule_layers = nn.ModuleList(layers)
        self.classifier = nn.Linear(d, 1)

    def extra_repr(self) -> str:
        return f"config={self.config}"

    def primary(self, x: Tensor) -> Tensor:
        """Primary capsule map (B, types, H, W, d), LayerNorm-ed."""
        h = self.primary_caps(self.backbone(x))  # (B, types·d, H, W)
        batch, _, rows, cols = h.shape
        u = h.view(batch, self.config.primary_types, self.config.pose_dim, rows, cols)
        return self.primary_norm(u.permute(0, 1, 3, 4, 2))

    def route(self, primary: Tensor) -> list[Tensor]:
        """Poses of every capsule layer, primary first, after ``config.iterations`` passes.

        Concurrent (2002.04764 Fig. 3): a uniform pass through all layers, then each further
        pass updates every layer from the previous pass's child and own poses at once.
        Sequential: each layer runs all its passes on its final input before the next layer.
        """
        layers, passes = self.capsule_layers, self.config.iterations
        if passes < 1:
            raise ValueError(f"iterations must be >= 1, got {passes}")
        if self.config.routing == "concurrent":
            poses = [primary]
            for layer in layers:
                poses.append(layer(poses[-1]))
            for _ in range(passes - 1):
                poses = [primary] + [
                    layer(poses[k], poses[k + 1]) for k, layer in enumerate(layers)
                ]
            return poses
        if self.config.routing == "sequential":
            poses = [primary]
            for layer in layers:
                parent = layer(poses[-1])
                for _ in range(passes - 1):
                    parent = layer(poses[-1], parent)
                poses.append(parent)
            return poses
        raise ValueError(
            f"routing must be 'concurrent' or 'sequential', got {self.config.routing!r}"
        )

    def forward(self, x: Tensor) -> ClassifierOutput:
        class_poses = self.route(self.primary(x))[-1]  # (B, K, d)
        return ClassifierOutput(scores=self.classifier(class_poses).squeeze(-1), poses=class_poses)
