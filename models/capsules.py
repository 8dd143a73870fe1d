"""Pieces shared by the three capsule families: squash, length, margin loss, masks, decoders.

Symbols follow the papers: ``s`` is a capsule's total input, ``v`` its output, ``K`` the number
of classes (output capsules), ``D`` their dimension. Every epsilon is a named argument, and
nothing here picks a device or dtype: both come from the inputs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

MarginReduction = Literal["paper", "tf_official", "none"]


@dataclass
class ClassifierOutput:
    """What every registered classifier returns (docs/architecture.md, "Model contract").

    ``scores`` is (B, K): capsule lengths or logits, as the model's ``score_kind`` says.
    ``poses`` is (B, K, D) for capsule nets, ``None`` for plain CNNs.
    """

    scores: Tensor
    poses: Tensor | None = None


class RoutingResult(NamedTuple):
    """Output of a routing layer's ``route`` method.

    ``poses`` are the parent capsules; ``coupling`` holds the coefficients that the softmax over
    parents produced, with the parent axis last, so ``coupling.sum(-1)`` is 1 for every child.
    """

    poses: Tensor
    coupling: Tensor


class PredictThenRoute(nn.Module):
    """Base of the fully connected routing layers: children -> predictions -> routed parents.

    Subclasses define ``predictions(u)`` (the votes û, laid out (B, parent j, child i, e)) and
    ``route_predictions(u_hat)``. ``forward`` returns the parent poses and keeps the coupling,
    detached, in ``last_coupling`` so that property checks can read it.
    """

    last_coupling: Tensor | None

    def predictions(self, u: Tensor) -> Tensor:
        raise NotImplementedError

    def route_predictions(self, u_hat: Tensor) -> RoutingResult:
        raise NotImplementedError

    def route(self, u: Tensor) -> RoutingResult:
        """Poses and coupling for children ``u``, with no side effect."""
        return self.route_predictions(self.predictions(u))

    def forward(self, u: Tensor) -> Tensor:
        result = self.route(u)
        self.last_coupling = result.coupling.detach()
        return result.poses


def squash_sabour(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    """arxiv:1710.09829 eq. 1: v = ‖s‖²/(1+‖s‖²) · s/‖s‖.

    Written as s · ‖s‖²/((1+‖s‖²)·sqrt(‖s‖²+eps)), so a zero vector maps to zero with a finite
    gradient; ``eps`` only matters for ‖s‖² near ``eps``.
    """
    norm_sq = (s * s).sum(dim=dim, keepdim=True)
    return s * (norm_sq / ((1.0 + norm_sq) * torch.sqrt(norm_sq + eps)))


def squash_efficient(s: Tensor, dim: int = -1, eps: float = 1e-20) -> Tensor:
    """arxiv:2101.12491 eq. 2: v = (1 − e^{−‖s‖}) · s/‖s‖.

    ``eps`` is added to the norm in the denominator, as in the official code (which writes
    ``10e-21`` = 1e-20). ``torch.linalg.vector_norm`` has a zero subgradient at 0, so both the
    value and the gradient at a zero vector are finite (zero).
    """
    norm = torch.linalg.vector_norm(s, dim=dim, keepdim=True)
    return -torch.expm1(-norm) * s / (norm + eps)


def capsule_length(v: Tensor, dim: int = -1, eps: float = 0.0) -> Tensor:
    """‖v‖ along ``dim``: the class score of a capsule (arxiv:1710.09829 §2).

    ``eps`` is added under the square root (the Efficient-CapsNet code uses 1e-7); with the
    default 0 the gradient at a zero vector is zero rather than undefined.
    """
    if eps == 0.0:
        return torch.linalg.vector_norm(v, dim=dim)
    return torch.sqrt((v * v).sum(dim=dim) + eps)


class WindowDepthwiseConv2d(nn.Conv2d):
    """A depthwise ``nn.Conv2d`` (one filter per channel, no padding) that computes a 1×1
    output map as a per-channel dot product of the top-left window with the filter.

    Efficient-CapsNet's primary capsules (arxiv:2101.12491 eq. 1) are a depthwise conv whose
    kernel covers the whole stem output, so the map is 1×1: h_c = Σ_xy x_cxy w_cxy + b_c. On the
    CPU the product and sum cost a tenth of a depthwise conv kernel, forward and backward, with
    the same value up to reassociation. Larger maps, and any other configuration, fall back to
    the convolution. It stays an ``nn.Conv2d`` (same ``weight``/``bias`` names, its forward hooks
    fire), so weight loading and the checks that hook it see the layer as before.
    """

    def forward(self, x: Tensor) -> Tensor:
        k_h, k_w = self.kernel_size
        rows, cols = x.shape[-2:]
        one_by_one = (rows - k_h) // self.stride[0] == 0 and (cols - k_w) // self.stride[1] == 0
        plain = (
            self.groups == self.in_channels == self.out_channels
            and self.padding == (0, 0)
            and self.dilation == (1, 1)
            and self.padding_mode == "zeros"
        )
        if not (one_by_one and plain and rows >= k_h and cols >= k_w):
            return super().forward(x)
        window = x[..., :k_h, :k_w]  # (B, C, k_h, k_w)
        kernel = self.weight.view(-1, k_h, k_w)  # (C, k_h, k_w)
        if x.is_contiguous(memory_format=torch.channels_last):
            # Channels innermost, as the stem writes them: multiply and reduce over the window
            # with C as the contiguous (vectorised) axis of both factors, 3-4x faster than the
            # NCHW-shaped product on a channels-last input, forward and backward.
            window, kernel = window.permute(0, 2, 3, 1), kernel.permute(1, 2, 0).contiguous()
            h = (window * kernel).sum(dim=(1, 2))  # (B, C)
        else:
            h = (window * kernel).sum(dim=(-2, -1))  # (B, C)
        if self.bias is not None:
            h = h + self.bias
        return h.view(*h.shape, 1, 1)


def margin_loss(
    lengths: Tensor,
    targets: Tensor,
    m_plus: float = 0.9,
    m_minus: float = 0.1,
    lam: float = 0.5,
    reduction: MarginReduction = "paper",
) -> Tensor:
    """arxiv:1710.09829 eq. 4 (also arxiv:2101.12491 eq. 7).

    L_k = T_k max(0, m⁺ − ‖v_k‖)² + λ (1 − T_k) max(0, ‖v_k‖ − m⁻)².

    ``targets`` is (B,) class indices or (B, K) multi-hot (MultiMNIST). Reductions:

    * ``"paper"``: Σ_k L_k, averaged over the batch (the paper's "sum of the losses of all digit
      capsules"; the Efficient-CapsNet code does the same);
    * ``"tf_official"``: the 1710.09829 TF code, ½ L_k averaged over batch *and* classes, i.e.
      Σ_k L_k / (2K) per image;
    * ``"none"``: the (B, K) matrix of L_k.
    """
    if lengths.dim() != 2:
        raise ValueError(f"lengths must be (B, K), got shape {tuple(lengths.shape)}")
    present = _as_multi_hot(targets, lengths.shape[1]).to(lengths.dtype)
    per_class = (
        present * F.relu(m_plus - lengths) ** 2
        + lam * (1.0 - present) * F.relu(lengths - m_minus) ** 2
    )
    if reduction == "paper":
        return per_class.sum(dim=1).mean()
    if reduction == "tf_official":
        return 0.5 * per_class.mean()
    if reduction == "none":
        return per_class
    raise ValueError(f"unknown reduction {reduction!r}; use 'paper', 'tf_official' or 'none'")


def _as_multi_hot(targets: Tensor, num_classes: int) -> Tensor:
    if targets.dim() == 1:
        return F.one_hot(targets.long(), num_classes)
    if targets.dim() == 2 and targets.shape[1] == num_classes:
        return targets
    raise ValueError(f"targets must be (B,) or (B, {num_classes}), got {tuple(targets.shape)}")


def label_mask(labels: Tensor, num_classes: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """(B, K) one-hot mask of the true label, the decoder input in training (1710.09829 §4.1)."""
    return F.one_hot(labels.long(), num_classes).to(dtype)


def longest_mask(lengths: Tensor) -> Tensor:
    """(B, K) one-hot mask of the longest capsule: the decoder's input at test time."""
    return F.one_hot(lengths.argmax(dim=1), lengths.shape[1]).to(lengths.dtype)


def top_k_masks(lengths: Tensor, k: int = 2) -> Tensor:
    """(k, B, K) one-hot masks of the k longest capsules, longest first.

    MultiMNIST predicts the two most active capsules and reconstructs each digit from its own
    capsule (1710.09829 §6.2; the 2101.12491 code does the same at test time).
    """
    top = lengths.topk(k, dim=1).indices  # (B, k)
    return F.one_hot(top.t(), lengths.shape[1]).to(lengths.dtype)


def masked_poses(poses: Tensor, mask: Tensor) -> Tensor:
    """Zero every capsule but the masked one(s) and flatten: (B, K, D), (B, K) -> (B, K·D)."""
    return (poses * mask.unsqueeze(-1)).flatten(1)


class MLPDecoder(nn.Module):
    """Reconstruction MLP of arxiv:1710.09829 Fig. 2: (K·D) -> 512 -> 1024 -> C·H·W, sigmoid.

    Used with 784 outputs for MNIST (1,411,344 params from a 160-d input) and 1296 for
    36×36 MultiMNIST (1,936,144). Input: masked, flattened poses (B, K·D).
    """

    def __init__(
        self,
        in_features: int,
        out_shape: Sequence[int],
        hidden: Sequence[int] = (512, 1024),
    ) -> None:
        super().__init__()
        self.out_shape = tuple(out_shape)
        widths = [in_features, *hidden]
        layers: list[nn.Module] = []
        for fan_in, fan_out in itertools.pairwise(widths):
            layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
        layers += [nn.Linear(widths[-1], math.prod(self.out_shape)), nn.Sigmoid()]
        self.net = nn.Sequential(*layers)

    def forward(self, flat: Tensor) -> Tensor:  # (B, K·D) -> (B, C, H, W)
        return self.net(flat).view(flat.shape[0], *self.out_shape)


class UpsamplingDecoder(nn.Module):
    """smallNORB decoder of the Efficient-CapsNet code (arxiv:2101.12491, 229,570 params).

    Dense(K·D -> 64, linear) -> 8×8×1 -> three times [bilinear ×2 upsampling, 3×3 valid conv,
    leaky ReLU (α = 0.2, ``tf.nn.leaky_relu``)] with 64, 128, 128 filters -> 3×3 valid conv to
    ``out_channels`` with a sigmoid: 8 -> 16 -> 14 -> 28 -> 26 -> 52 -> 50 -> 48.
    Keras bilinear upsampling uses half-pixel centres, which is ``align_corners=False`` here.
    """

    def __init__(
        self,
        in_features: int = 80,
        out_channels: int = 2,
        widths: Sequence[int] = (64, 128, 128),
        negative_slope: float = 0.2,
    ) -> None:
        super().__init__()
        self.seed = nn.Linear(in_features, 64)
        channels = [1, *widths]
        self.convs = nn.ModuleList(
            nn.Conv2d(c_in, c_out, 3) for c_in, c_out in itertools.pairwise(channels)
        )
        self.head = nn.Conv2d(channels[-1], out_channels, 3)
        self.negative_slope = negative_slope

    def forward(self, flat: Tensor) -> Tensor:  # (B, K·D) -> (B, C, 48, 48)
        x = self.seed(flat).view(-1, 1, 8, 8)
        for conv in self.convs:
            x = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
            x = F.leaky_relu(conv(x), self.negative_slope)
        return torch.sigmoid(self.head(x))


def count_parameters(module: nn.Module, trainable_only: bool = True) -> int:
    """Number of (trainable) parameters; buffers such as BN running statistics are not counted."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad or not trainable_only)
