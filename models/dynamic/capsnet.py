"""The networks of dynamic routing between capsules (Sabour, Frosst, Hinton; arxiv:1710.09829):
PrimaryCaps, CapsNet and the plain CNN baselines.

The routing itself (Procedure 1 and the DigitCaps layer) is in :mod:`models.dynamic.routing`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch.nn.functional as F
from torch import Tensor, nn

from models.capsules import (
    ClassifierOutput,
    MLPDecoder,
    capsule_length,
    masked_poses,
    squash_sabour,
)
from models.dynamic.routing import DynamicRouting
from models.registry import register_model


class PrimaryCaps(nn.Module):
    """Convolutional primary capsules (arxiv:1710.09829 §4): one conv with types·dim channels.

    The capsule at each location is ``dim`` consecutive channels of one type (channel = type·dim
    + atom), squashed with eq. 1. Output (B, types·H'·W', dim), ordered (type, row, column).
    The TF code also scales the conv output by a uniform 1/types coupling before its bias; that
    is a reparametrisation of the same weights and is not reproduced.
    """

    def __init__(
        self, in_channels: int, types: int, dim: int, kernel: int, stride: int, eps: float = 1e-8
    ) -> None:
        super().__init__()
        self.types, self.dim, self.eps = types, dim, eps
        self.conv = nn.Conv2d(in_channels, types * dim, kernel, stride)

    def forward(self, x: Tensor) -> Tensor:
        h = self.conv(x)  # (B, types·dim, H', W')
        batch, _, rows, cols = h.shape
        u = h.view(batch, self.types, self.dim, rows, cols).permute(0, 1, 3, 4, 2)
        return squash_sabour(u.reshape(batch, -1, self.dim), eps=self.eps)


@dataclass(frozen=True)
class CapsNetConfig:
    """CapsNet of arxiv:1710.09829 §4 (Fig. 1, Fig. 2). Defaults are the MNIST network."""

    in_channels: int = 1
    image_size: int = 28
    conv_channels: int = 256
    conv_kernel: int = 9
    primary_types: int = 32
    primary_dim: int = 8
    primary_kernel: int = 9
    primary_stride: int = 2
    num_classes: int = 10
    class_dim: int = 16
    iterations: int = 3
    digit_bias: bool = False
    decoder: bool = True
    decoder_hidden: tuple[int, ...] = (512, 1024)
    detach_agreement: bool = False
    squash_eps: float = 1e-8

    @property
    def primary_grid(self) -> int:
        conv_out = self.image_size - self.conv_kernel + 1
        return (conv_out - self.primary_kernel) // self.primary_stride + 1

    @property
    def num_primary(self) -> int:
        return self.primary_types * self.primary_grid**2


CAPSNET_PRESETS = {
    # 8,215,568 params with the decoder, 6,804,224 without (no DigitCaps bias; digit_bias=True
    # gives the TF layout's 8,215,728 / 6,804,384). Paper §5: 8.2M / 6.8M.
    "mnist": lambda: CapsNetConfig(),
    # 36×36 input: 10×10×32 = 3,200 primary capsules, decoder to 1296 pixels, DigitCaps bias as
    # in the TF code: 11,361,968 params, the 11.36M of §6.2 (padding VALID, reference sheet §2.3).
    "multimnist": lambda: CapsNetConfig(image_size=36, digit_bias=True),
    # §7 SVHN (a smaller network): 64 Conv1 channels, 16 primary capsule types of 6 dimensions,
    # 8-D digit capsules, on 32×32 colour images: 16·8·8 = 1,024 primary capsules.
    "svhn": lambda: CapsNetConfig(
        in_channels=3,
        image_size=32,
        conv_channels=64,
        primary_types=16,
        primary_dim=6,
        class_dim=8,
    ),
}


@register_model("capsnet", CAPSNET_PRESETS)
class CapsNet(nn.Module):
    """CapsNet (arxiv:1710.09829 §4): Conv1 -> PrimaryCaps -> DigitCaps (routing) -> decoder.

    Submodules: ``conv1`` (256@9×9, ReLU), ``primary_caps`` (``PrimaryCaps``, its conv is
    ``primary_caps.conv``), ``digit_caps`` (``DynamicRouting``; coupling in
    ``digit_caps.last_coupling`` after a forward), ``decoder`` (``MLPDecoder``, absent when
    ``config.decoder`` is False). ``forward`` returns lengths (B, K) and poses (B, K, 16);
    ``reconstruct(poses, mask)`` feeds the masked 160-d vector to the decoder (§4.1).

    Presets: ``mnist`` has no DigitCaps bias (8,215,568 params, 6,804,224 without the decoder;
    ``digit_bias=True`` gives the TF layout's 8,215,728 / 6,804,384). ``multimnist`` (36×36,
    3,200 primary capsules, decoder to 1296 pixels) keeps the TF code's DigitCaps bias, the
    assumption under which it has the paper's 11.36M (11,361,968; reference sheet §2.3).
    """

    score_kind = "lengths"

    def __init__(self, config: CapsNetConfig) -> None:
        super().__init__()
        if config.primary_grid < 1:
            raise ValueError(f"image_size {config.image_size} is too small for {config}")
        self.config = config
        self.conv1 = nn.Conv2d(config.in_channels, config.conv_channels, config.conv_kernel)
        self.primary_caps = PrimaryCaps(
            config.conv_channels,
            config.primary_types,
            config.primary_dim,
            config.primary_kernel,
            config.primary_stride,
            config.squash_eps,
        )
        self.digit_caps = DynamicRouting(
            config.num_primary,
            config.primary_dim,
            config.num_classes,
            config.class_dim,
            iterations=config.iterations,
            bias=config.digit_bias,
            eps=config.squash_eps,
            detach_agreement=config.detach_agreement,
        )
        self.decoder: MLPDecoder | None = None
        if config.decoder:
            self.decoder = MLPDecoder(
                config.num_classes * config.class_dim,
                (config.in_channels, config.image_size, config.image_size),
                config.decoder_hidden,
            )

    def extra_repr(self) -> str:
        return f"config={self.config}"

    def forward(self, x: Tensor) -> ClassifierOutput:
        u = self.primary_caps(F.relu(self.conv1(x)))  # (B, 1152, 8)
        v = self.digit_caps(u)  # (B, 10, 16)
        return ClassifierOutput(scores=capsule_length(v), poses=v)

    def reconstruct(self, poses: Tensor, mask: Tensor) -> Tensor:
        """Decoder on the capsules selected by ``mask`` (B, K): (B, K, D) -> (B, C, H, W)."""
        if self.decoder is None:
            raise RuntimeError("this CapsNet was built with decoder=False")
        return self.decoder(masked_poses(poses, mask))


@dataclass(frozen=True)
class ConvBaselineConfig:
    """The plain CNN baselines of arxiv:1710.09829 (§5 MNIST, §6.2 MultiMNIST).

    The paper gives layer widths but not padding or pooling; SAME padding, and pooling only for
    MultiMNIST, are the choices that reproduce its totals (reference sheet §2.3).
    """

    in_channels: int = 1
    image_size: int = 28
    conv_channels: tuple[int, ...] = (256, 256, 128)
    conv_kernels: tuple[int, ...] = (5, 5, 5)
    pool: bool = False
    hidden: tuple[int, ...] = (328, 192)
    num_classes: int = 10
    dropout: float = 0.5


BASELINE_PRESETS = {
    # 35,445,522 params (§5: 35.4M): no pooling, so FC 328 sees 28·28·128 inputs.
    "mnist": lambda: ConvBaselineConfig(),
    # 24,563,978 params (§6.2: 24.56M): 9×9 then 5×5 conv, 2×2 pools, FC 1024, sigmoid outputs.
    "multimnist": lambda: ConvBaselineConfig(
        image_size=36,
        conv_channels=(512, 256),
        conv_kernels=(9, 5),
        pool=True,
        hidden=(1024,),
        dropout=0.0,
    ),
}


@register_model("capsnet_baseline", BASELINE_PRESETS)
class ConvBaseline(nn.Module):
    """Baseline CNN of arxiv:1710.09829: ReLU convs (``features``), ReLU FCs, dropout, logits.

    Submodules: ``features`` (convs, optional 2×2 max-pools), ``hidden`` (FC layers),
    ``classifier`` (last FC). ``forward`` returns logits (B, K), poses ``None``. The dropout rate
    is not given in the paper; 0.5 is an assumption.
    """

    score_kind = "logits"

    def __init__(self, config: ConvBaselineConfig) -> None:
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        channels, size = config.in_channels, config.image_size
        for width, kernel in zip(config.conv_channels, config.conv_kernels, strict=True):
            layers += [nn.Conv2d(channels, width, kernel, padding=kernel // 2), nn.ReLU()]
            channels = width
            if config.pool:
                layers.append(nn.MaxPool2d(2))
                size //= 2
        self.features = nn.Sequential(*layers)
        widths = [channels * size * size, *config.hidden]
        fcs: list[nn.Module] = []
        for fan_in, fan_out in itertools.pairwise(widths):
            fcs += [nn.Linear(fan_in, fan_out), nn.ReLU()]
        self.hidden = nn.Sequential(*fcs, nn.Dropout(config.dropout))
        self.classifier = nn.Linear(widths[-1], config.num_classes)

    def extra_repr(self) -> str:
        return f"config={self.config}"

    def forward(self, x: Tensor) -> ClassifierOutput:
        return ClassifierOutput(scores=self.classifier(self.hidden(self.features(x).flatten(1))))
