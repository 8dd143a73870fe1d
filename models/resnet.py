"""CIFAR ResNet-18 (He et al., arxiv:1512.03385, CIFAR variant) for the "4× fewer parameters"
claim of arxiv:2002.04764, and the BasicBlock shared with that paper's ResNet backbone.

CIFAR variant: a 3×3 stride-1 stem without max-pool, stages of 64-128-256-512 channels with two
BasicBlocks each, global average pooling, one linear layer. 11,173,962 parameters for 10 classes,
11,220,132 for 100.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch.nn.functional as F
from torch import Tensor, nn

from models.capsules import ClassifierOutput
from models.registry import register_model


class BasicBlock(nn.Module):
    """Two 3×3 conv-BN layers with an identity or 1×1 conv-BN shortcut (arxiv:1512.03385 Fig. 2)."""

    def __init__(self, in_channels: int, channels: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels, 3, stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, 1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or in_channels != channels:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_channels, channels, 1, stride, bias=False), nn.BatchNorm2d(channels)
            )

    def forward(self, x: Tensor) -> Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


def resnet_stage(in_channels: int, channels: int, blocks: int, stride: int) -> nn.Sequential:
    """``blocks`` BasicBlocks; only the first one changes stride and width."""
    layers = [BasicBlock(in_channels, channels, stride)]
    layers += [BasicBlock(channels, channels) for _ in range(blocks - 1)]
    return nn.Sequential(*layers)


def conv_bn_relu_stem(in_channels: int, channels: int) -> nn.Sequential:
    """The CIFAR stem: 3×3 stride-1 conv without bias, BN, ReLU."""
    return nn.Sequential(
        nn.Conv2d(in_channels, channels, 3, 1, padding=1, bias=False),
        nn.BatchNorm2d(channels),
        nn.ReLU(),
    )


@dataclass(frozen=True)
class ResNetConfig:
    """A CIFAR ResNet: stem width ``widths[0]``, one stage per width, stride 2 from stage 2 on."""

    in_channels: int = 3
    num_classes: int = 10
    widths: tuple[int, ...] = (64, 128, 256, 512)
    blocks: tuple[int, ...] = (2, 2, 2, 2)


RESNET18_PRESETS = {
    "cifar10": lambda: ResNetConfig(),
    "cifar100": lambda: ResNetConfig(num_classes=100),
}


@register_model("resnet18", RESNET18_PRESETS)
class CifarResNet(nn.Module):
    """CIFAR ResNet. Submodules: ``stem``, ``stages`` (``stages.0`` … ``stages.3``),
    ``classifier``. ``forward`` returns logits (B, K) and no poses."""

    score_kind = "logits"

    def __init__(self, config: ResNetConfig) -> None:
        super().__init__()
        self.config = config
        self.stem = conv_bn_relu_stem(config.in_channels, config.widths[0])
        stages, channels = [], config.widths[0]
        for index, (width, blocks) in enumerate(zip(config.widths, config.blocks, strict=True)):
            stages.append(resnet_stage(channels, width, blocks, 1 if index == 0 else 2))
            channels = width
        self.stages = nn.Sequential(*stages)
        self.classifier = nn.Linear(channels, config.num_classes)

    def extra_repr(self) -> str:
        return f"config={self.config}"

    def forward(self, x: Tensor) -> ClassifierOutput:
        features = self.stages(self.stem(x))
        return ClassifierOutput(scores=self.classifier(features.mean(dim=(2, 3))))
