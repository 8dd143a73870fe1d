"""Self-attention routing and Efficient-CapsNet (Mazzia, Salvetti, Chiaberge; arxiv:2101.12491).

Einsum letters: b batch, i child capsule (layer l, n_l of them), j parent capsule (n_{l+1}),
d child dimension d_l, e parent dimension d_{l+1}. Predictions are parent-major,
``u_hat[b, j, i, e]`` = û_{j|i}, the rows of Û_j.

Where the paper and the official code (EscVM/Efficient-CapsNet ``utils/layers.py``) differ, the
difference is a named option, and the presets follow the code:

* ``divisor``: √d in eq. 5 is √d_l (``"input"``, the paper per the code's issue #18) or
  √d_{l+1} (``"output"``, the code);
* ``prior``: the learned log priors B are added to the softmax output (``"after_softmax"``, the
  code) or to the logits before it (``"logits"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor, nn

from models.capsules import (
    ClassifierOutput,
    MLPDecoder,
    PredictThenRoute,
    RoutingResult,
    UpsamplingDecoder,
    WindowDepthwiseConv2d,
    capsule_length,
    masked_poses,
    squash_efficient,
)
from models.registry import register_model

Divisor = Literal["input", "output"]
PriorMode = Literal["after_softmax", "logits"]
_KERAS_TRUNC_STD = 0.87962566103423978  # std of a unit normal truncated at ±2


class _SavesInputs(torch.autograd.Function):
    """Base of the two routing products below: both save their inputs for the backward."""

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
        ctx.save_for_backward(*inputs)


class _Agreement(_SavesInputs):
    """a_{j,i} = û_{j|i} · t_j for predictions (B, j, i, e) and totals t (B, j, e) (eq. 5).

    The forward is the einsum, so FLOP counters see the matrix product the rule performs; the
    backward is two broadcast products, because autograd's backward of that einsum is a batched
    outer product (K = 1) that took about half of the layer's training step on the CPU.
    """

    @staticmethod
    def forward(u_hat: Tensor, total: Tensor) -> Tensor:
        return torch.einsum("bjie,bje->bji", u_hat, total)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        u_hat, total = ctx.saved_tensors
        grad = grad.unsqueeze(-1)  # (B, j, i, 1)
        return grad * total.unsqueeze(2), (grad * u_hat).sum(dim=2)


class _WeightedSum(_SavesInputs):
    """s_j = Σ_i w_{j,i} û_{j|i} for weights (B, j, i) and predictions (B, j, i, e) (eq. 4);
    an einsum forward and a broadcast backward, as :class:`_Agreement`."""

    @staticmethod
    def forward(weights: Tensor, u_hat: Tensor) -> Tensor:
        return torch.einsum("bji,bjie->bje", weights, u_hat)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        weights, u_hat = ctx.saved_tensors
        grad = grad.unsqueeze(2)  # (B, j, 1, e)
        return (u_hat * grad).sum(dim=-1), weights.unsqueeze(-1) * grad


def self_attention_routing(
    u_hat: Tensor,
    scale_dim: int,
    log_prior: Tensor | None = None,
    prior: PriorMode = "after_softmax",
    eps: float = 1e-20,
) -> RoutingResult:
    """arxiv:2101.12491 eqs. 4-6 on predictions ``u_hat`` (B, j, i, e).

    Eq. 5 needs only the row sums of A_j = Û_j Û_jᵀ / √d: Σ_k A_{j,ik} = û_{j|i} · Σ_k û_{j|k} / √d,
    so the n_l × n_l matrix is never formed (O(n·d) instead of O(n²·d)). Eq. 6: c_{·i} = softmax
    over the parents j. Eq. 4: s_j = Σ_i (c_ji + b_ji) û_{j|i} with ``prior="after_softmax"``
    (then Σ_j (c_ji + b_ji) ≠ 1 in general), or c = softmax(logits + b) with ``prior="logits"``.
    v_j = squash(s_j) (eq. 2). ``log_prior`` is (j, i). Returns v (B, j, e) and the softmax
    output c (B, i, j), before an after-softmax prior is added.
    """
    total = u_hat.sum(dim=2)  # (B, j, e): Σ_k û_{j|k}
    logits = _Agreement.apply(u_hat, total) / math.sqrt(scale_dim)  # (B, j, i)
    if log_prior is not None and prior == "logits":
        logits = logits + log_prior
    coupling = torch.softmax(logits, dim=1)  # over parents j
    weights = coupling
    if log_prior is not None and prior == "after_softmax":
        weights = coupling + log_prior
    s = _WeightedSum.apply(weights, u_hat)  # (B, j, e)
    return RoutingResult(squash_efficient(s, eps=eps), coupling.transpose(1, 2))


def keras_he_normal_(tensor: Tensor, fan_in: int) -> Tensor:
    """Keras ``he_normal``: a normal truncated at ±2σ, rescaled so that its std is √(2/fan_in)."""
    std = math.sqrt(2.0 / fan_in) / _KERAS_TRUNC_STD
    return nn.init.trunc_normal_(tensor, std=std, a=-2 * std, b=2 * std)


class SelfAttentionRouting(PredictThenRoute):
    """Fully connected capsule layer with self-attention routing (``FCCaps``, arxiv:2101.12491).

    ``weight`` is (n_out, n_in, d_in, d_out), the code's layout, so û_{j|i} = u_i W_ji (eq. 3);
    ``log_prior`` B is (n_out, n_in), zero-initialised and learned. He-normal init with the
    Keras fan-in d_in·n_out·n_in. ``forward(u)`` maps (B, n_in, d_in) -> (B, n_out, d_out) and
    keeps the softmax coupling, detached, in ``last_coupling`` (B, n_in, n_out); ``route(u)``
    returns both; ``route_predictions(u_hat)`` routes given predictions (B, n_out, n_in, d_out).
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        divisor: Divisor = "output",
        prior: PriorMode = "after_softmax",
        eps: float = 1e-20,
    ) -> None:
        super().__init__()
        if divisor not in ("input", "output"):
            raise ValueError(f"divisor must be 'input' or 'output', got {divisor!r}")
        if prior not in ("after_softmax", "logits"):
            raise ValueError(f"prior must be 'after_softmax' or 'logits', got {prior!r}")
        self.n_in, self.d_in, self.n_out, self.d_out = n_in, d_in, n_out, d_out
        self.divisor, self.prior_mode, self.eps = divisor, prior, eps
        self.weight = nn.Parameter(
            keras_he_normal_(torch.empty(n_out, n_in, d_in, d_out), n_out * n_in * d_in)
        )
        self.log_prior = nn.Parameter(torch.zeros(n_out, n_in))
        self.last_coupling: Tensor | None = None

    @property
    def scale_dim(self) -> int:
        return self.d_in if self.divisor == "input" else self.d_out

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"divisor={self.divisor!r}, prior={self.prior_mode!r}, eps={self.eps}"
        )

    def predictions(self, u: Tensor) -> Tensor:
        """û_{j|i} = u_i W_ji (eq. 3): (B, i, d) -> (B, j, i, e)."""
        return torch.einsum("bid,jide->bjie", u, self.weight)

    def route_predictions(self, u_hat: Tensor) -> RoutingResult:
        return self_attention_routing(
            u_hat, self.scale_dim, self.log_prior, self.prior_mode, self.eps
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
