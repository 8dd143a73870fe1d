"""Efficient-CapsNet (Mazzia, Salvetti, Chiaberge; arxiv:2101.12491): the depthwise primary
capsules, the stem and the network, built as the official code builds them for each dataset.

The routing (eqs. 3-6, the ``FCCaps`` layer) is in :mod:`models.self_attention.routing`; its
paper-vs-code options (``divisor``, ``prior``) are fields of the config here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn

from models.capsules import (
    ClassifierOutput,
    MLPDecoder,
    UpsamplingDecoder,
    WindowDepthwiseConv2d,
    capsule_length,
    masked_poses,
    squash_efficient,
)
from models.registry import register_model
from models.self_attention.routing import (
    Divisor,
    PriorMode,
    SelfAttentionRouting,
    keras_he_normal_,
)


class DepthwisePrimaryCaps(nn.Module):
    """Primary capsules of arxiv:2101.12491 eq. 1: a linear depthwise conv (no pointwise conv,
    the author's answer in the code's issue #10), grouped into capsules of ``dim`` consecutive
    channels at each location, ordered (row, column, capsule), then squashed (eq. 2).
    For the presets the map is 1×1 and this is the code's reshape to (16, 8); the conv is then a
    per-channel window dot product (``WindowDepthwiseConv2d``).
    """

    def __init__(
        self, channels: int, kernel: int, stride: int, dim: int, eps: float = 1e-20
    ) -> None:
        super().__init__()
        if channels % dim:
            raise ValueError(f"{channels} channels do not split into capsules of dim {dim}")
        self.dim, self.eps = dim, eps
        self.conv = WindowDepthwiseConv2d(channels, channels, kernel, stride, groups=channels)
        nn.init.xavier_uniform_(self.conv.weight)  # Keras glorot_uniform, same fans
        nn.init.zeros_(self.conv.bias)

    def forward(self, x: Tensor) -> Tensor:
        h = self.conv(x)  # (B, C, H', W')
        batch, channels, rows, cols = h.shape
        u = h.view(batch, channels // self.dim, self.dim, rows, cols).permute(0, 3, 4, 1, 2)
        return squash_efficient(u.reshape(batch, -1, self.dim), eps=self.eps)


@dataclass(frozen=True)
class EfficientCapsNetConfig:
    """Efficient-CapsNet as the official code builds it; defaults are the MNIST graph.

    ``norm="batch"``: Conv -> ReLU -> BatchNorm (Keras ε 1e-3, momentum 0.99) as for MNIST and
    MultiMNIST; ``norm="instance"``: Conv -> LeakyReLU(0.3) -> InstanceNorm (affine, ε 1e-3, γ and β
    drawn from U(−0.05, 0.05)) as for smallNORB. ``decoder`` is ``"mlp"`` (512-1024-C·H·W),
    ``"upsample"`` (the smallNORB decoder) or ``"none"``. ``length_eps`` is the code's 1e-7
    under the square root of the ``Length`` layer.
    """

    in_channels: int = 1
    image_size: int = 28
    conv_channels: tuple[int, ...] = (32, 64, 64, 128)
    conv_kernels: tuple[int, ...] = (5, 3, 3, 3)
    conv_strides: tuple[int, ...] = (1, 1, 1, 2)
    norm: Literal["batch", "instance"] = "batch"
    primary_kernel: int = 9
    primary_stride: int = 1
    primary_dim: int = 8
    num_classes: int = 10
    class_dim: int = 16
    divisor: Divisor = "output"
    prior: PriorMode = "after_softmax"
    decoder: Literal["mlp", "upsample", "none"] = "mlp"
    squash_eps: float = 1e-20
    length_eps: float = 1e-7

    @property
    def stem_size(self) -> int:
        size = self.image_size
        for kernel, stride in zip(self.conv_kernels, self.conv_strides, strict=True):
            size = (size - kernel) // stride + 1
        return size

    @property
    def num_primary(self) -> int:
        grid = (self.stem_size - self.primary_kernel) // self.primary_stride + 1
        return grid * grid * self.conv_channels[-1] // self.primary_dim


EFFICIENT_PRESETS = {
    # 161,824 trainable without the decoder (+576 BN buffers); decoder 1,411,344.
    "mnist": lambda: EfficientCapsNetConfig(),
    # 151,664 without the decoder; upsampling decoder 229,570.
    "smallnorb": lambda: EfficientCapsNetConfig(
        in_channels=2,
        image_size=48,
        conv_kernels=(7, 3, 3, 3),
        conv_strides=(2, 1, 1, 2),
        norm="instance",
        primary_kernel=8,
        num_classes=5,
        decoder="upsample",
    ),
    # 154,656 trainable without the decoder (+576 BN buffers); decoder to 36×36, 1,936,144.
    "multimnist": lambda: EfficientCapsNetConfig(
        image_size=36, conv_strides=(1, 1, 2, 2), primary_kernel=5, primary_stride=2
    ),
    # "stride 1 in every convolution" taken literally: an 18×18 stem output, 10×10×16 = 1,600
    # primary capsules, 2,205,184 trainable params without the decoder (sheet 2101.12491 §5).
    "paper_literal": lambda: EfficientCapsNetConfig(conv_strides=(1, 1, 1, 1)),
}


def _stem_block(c_in: int, c_out: int, kernel: int, stride: int, norm: str) -> nn.Sequential:
    conv = nn.Conv2d(c_in, c_out, kernel, stride)
    keras_he_normal_(conv.weight, c_in * kernel * kernel)
    nn.init.zeros_(conv.bias)
    if norm == "batch":
        return nn.Sequential(conv, nn.ReLU(), nn.BatchNorm2d(c_out, eps=1e-3, momentum=0.01))
    if norm == "instance":
        inorm = nn.InstanceNorm2d(c_out, eps=1e-3, affine=True)
        nn.init.uniform_(inorm.weight, -0.05, 0.05)
        nn.init.uniform_(inorm.bias, -0.05, 0.05)
        return nn.Sequential(conv, nn.LeakyReLU(0.3), inorm)
    raise ValueError(f"norm must be 'batch' or 'instance', got {norm!r}")


@register_model("efficient_capsnet", EFFICIENT_PRESETS)
class EfficientCapsNet(nn.Module):
    """Efficient-CapsNet (arxiv:2101.12491 eqs. 1-7, official graphs for each dataset).

    Submodules: ``stem`` (``stem.0`` … ``stem.3``, each Conv/activation/norm), ``primary_caps``
    (``DepthwisePrimaryCaps``; depthwise conv ``primary_caps.conv``), ``digit_caps``
    (``SelfAttentionRouting``; coupling in ``digit_caps.last_coupling`` after a forward),
    ``decoder`` (absent with ``decoder="none"``). ``forward`` returns lengths (B, K) and poses
    (B, K, 16); ``reconstruct(poses, mask)`` decodes the masked capsules. Initialisers follow the
    Keras defaults of the code (he_normal convs and W, glorot depthwise), except the decoders,
    which keep PyTorch's defaults.
    """

    score_kind = "lengths"

    def __init__(self, config: EfficientCapsNetConfig) -> None:
        super().__init__()
        if config.stem_size < config.primary_kernel:
            raise ValueError(
                f"the stem output {config.stem_size} is smaller than the primary kernel"
            )
        self.config = config
        channels = (config.in_channels, *config.conv_channels)
        self.stem = nn.Sequential(
            *(
                _stem_block(c_in, c_out, kernel, stride, config.norm)
                for c_in, c_out, kernel, stride in zip(
                    channels[:-1],
                    channels[1:],
                    config.conv_kernels,
                    config.conv_strides,
                    strict=True,
                )
            )
        )
        # Channels-last weights make every stem conv run channels-last (the input follows them),
        # about 1.1x faster per training step on the CPU; names and values are unchanged.
        self.stem.to(memory_format=torch.channels_last)
        self.primary_caps = DepthwisePrimaryCaps(
            channels[-1],
            config.primary_kernel,
            config.primary_stride,
            config.primary_dim,
            config.squash_eps,
        )
        self.digit_caps = SelfAttentionRouting(
            config.num_primary,
            config.primary_dim,
            config.num_classes,
            config.class_dim,
            divisor=config.divisor,
            prior=config.prior,
            eps=config.squash_eps,
        )
        flat = config.num_classes * config.class_dim
        self.decoder: nn.Module | None = None
        if config.decoder == "mlp":
            self.decoder = MLPDecoder(
                flat, (config.in_channels, config.image_size, config.image_size)
            )
        elif config.decoder == "upsample":
            self.decoder = UpsamplingDecoder(flat, config.in_channels)

    def extra_repr(self) -> str:
        return f"config={self.config}"

    def forward(self, x: Tensor) -> ClassifierOutput:
        u = self.primary_caps(self.stem(x))  # (B, 16, 8)
        v = self.digit_caps(u)  # (B, K, 16)
        return ClassifierOutput(scores=capsule_length(v, eps=self.config.length_eps), poses=v)

    def reconstruct(self, poses: Tensor, mask: Tensor) -> Tensor:
        """Decoder on the capsules selected by ``mask`` (B, K): (B, K, D) -> (B, C, H, W)."""
        if self.decoder is None:
            raise RuntimeError("this EfficientCapsNet was built with decoder='none'")
        out: Tensor = self.decoder(masked_poses(poses, mask))
        return out
