"""Dynamic routing between capsules (Sabour, Frosst, Hinton; arxiv:1710.09829) and its networks.

Einsum letters: b batch, i child capsule (layer l), j parent capsule (layer l+1), d child
dimension, e parent dimension. Predictions are stored parent-major, ``u_hat[b, j, i, e]`` =
û_{j|i}, so both contractions of the routing loop are contiguous batched matmuls.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from models.capsules import (
    ClassifierOutput,
    MLPDecoder,
    PredictThenRoute,
    RoutingResult,
    capsule_length,
    masked_poses,
    squash_sabour,
)
from models.registry import register_model


def dynamic_routing(
    u_hat: Tensor,
    iterations: int,
    bias: Tensor | None = None,
    eps: float = 1e-8,
    detach_agreement: bool = False,
) -> RoutingResult:
    """arxiv:1710.09829 Procedure 1 on predictions ``u_hat`` (B, j, i, e).

    b_ij ← 0; r times: c_i = softmax_j(b_i) (eq. 3, over the **parents**);
    s_j = Σ_i c_ij û_{j|i} (eq. 2, plus ``bias`` (j, e) as in the authors' TF code);
    v_j = squash(s_j) (eq. 1); b_ij ← b_ij + û_{j|i}·v_j (agreement).
    The update after the last iteration cannot change v and is skipped. With ``iterations=1``
    every c_ij is exactly 1/n_parents. ``detach_agreement`` stops gradients through the
    agreement (some re-implementations do this; the TF code and the paper do not).
    Returns poses v (B, j, e) and the last coupling c (B, i, j).
    """
    batch, parents, children, dim = u_hat.shape
    entries = u_hat.reshape(batch * parents, children, dim)
    return route_by_agreement(entries, batch, iterations, bias, eps, detach_agreement)


def route_by_agreement(
    entries: Tensor,
    batch: int,
    iterations: int,
    bias: Tensor | None = None,
    eps: float = 1e-8,
    detach_agreement: bool = False,
) -> RoutingResult:
    """``dynamic_routing`` on the predictions as one (i, e) matrix per (b, j): (B·j, i, e).

    ``entries`` may be a strided view, such as the child-major predictions (i, B·j, e) that
    ``DynamicRouting.route`` makes, transposed: both sums of Procedure 1 (eq. 2 and the
    agreement) are batched products that read the predictions where they lie.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    groups, children, dim = entries.shape
    parents = groups // batch
    logits = entries.new_zeros(batch, parents, children)  # (B, j, i)
    agree_from = entries.detach() if detach_agreement else entries
    for step in range(iterations):
        coupling = torch.softmax(logits, dim=1)  # over parents j
        s = torch.bmm(coupling.view(groups, 1, children), entries).view(batch, parents, dim)
        if bias is not None:
            s = s + bias
        v = squash_sabour(s, eps=eps)  # (B, j, e)
        if step < iterations - 1:
            agreement = torch.bmm(v.view(groups, 1, dim), agree_from.transpose(1, 2))
            logits = logits + agreement.view(batch, parents, children)
    return RoutingResult(v, coupling.transpose(1, 2))


class DynamicRouting(PredictThenRoute):
    """A fully connected capsule layer with routing by agreement (DigitCaps, arxiv:1710.09829 §4).

    û_{j|i} = W_ij u_i (eq. 2) with one 16×8 matrix per (child i, parent j): ``weight`` has shape
    (n_out, n_in, d_out, d_in). ``bias`` (n_out, d_out) exists only with ``bias=True`` (the TF code
    has it; eq. 2 does not). ``forward(u)`` maps (B, n_in, d_in) to (B, n_out, d_out) and keeps the
    last coupling, detached, in ``last_coupling`` (B, n_in, n_out); ``route(u)`` returns both.
    ``route_predictions(u_hat)`` runs Procedure 1 on given predictions (B, n_out, n_in, d_out).
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        iterations: int = 3,
        bias: bool = False,
        eps: float = 1e-8,
        detach_agreement: bool = False,
        init_std: float = 0.01,
    ) -> None:
        super().__init__()
        self.n_in, self.d_in, self.n_out, self.d_out = n_in, d_in, n_out, d_out
        self.iterations = iterations
        self.eps = eps
        self.detach_agreement = detach_agreement
        self.weight = nn.Parameter(torch.randn(n_out, n_in, d_out, d_in) * init_std)
        self.bias = nn.Parameter(torch.zeros(n_out, d_out)) if bias else None
        self.last_coupling: Tensor | None = None

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"iterations={self.iterations}, bias={self.bias is not None}, eps={self.eps}, "
            f"detach_agreement={self.detach_agreement}"
        )

    def predictions(self, u: Tensor) -> Tensor:
        """û_{j|i} = W_ij u_i: (B, i, d) -> (B, j, i, e)."""
        return torch.einsum("jied,bid->bjie", self.weight, u)

    def route_predictions(self, u_hat: Tensor) -> RoutingResult:
        return dynamic_routing(u_hat, self.iterations, self.bias, self.eps, self.detach_agreement)

    def route(self, u: Tensor) -> RoutingResult:
        """Routes the predictions in the layout their product writes, child-major (i, B, j, e),
        so they are never copied into parent-major order; same result as ``route_predictions``
        up to the order of the sums."""
        u_hat = torch.einsum("jied,bid->ibje", self.weight, u)
        children, batch, parents, dim = u_hat.shape
        entries = u_hat.view(children, batch * parents, dim).transpose(0, 1)  # (B·j, i, e)
        return route_by_agreement(
            entries, batch, self.iterations, self.bias, self.eps, self.detach_agreement
        )


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
