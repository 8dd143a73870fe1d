"""Inverted dot-product attention routing (Tsai et al.; arxiv:2002.04764) and its CIFAR networks.

Einsum letters: b batch, i child capsule, j parent capsule, e parent pose entries; for matrix
poses a pose of dimension d is an s×s matrix (s = √d) with row ``a`` and column ``x``; conv
layers add n (child type), m (parent type), k/l (kernel row/column), h/w (output row/column).
Votes are parent-major, ``votes[b, j, i, e]`` = v_ij.

Official code: apple/ml-capsules-inverted-attention-routing (``src/layers.py``,
``src/capsule_model.py``). Differences from Procedure 1 that the code makes are named options:
``scale_agreement`` (the code divides the agreement by √d_out; Procedure 1 does not) and
``input_expansion`` (see ``ConvInvertedDotProductRouting``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor, nn

from models.capsules import ClassifierOutput, RoutingResult
from models.registry import register_model
from models.resnet import conv_bn_relu_stem, resnet_stage

InputExpansion = Literal["unfold", "apple_53899ae"]


def inverted_dot_product_routing(
    votes: Tensor,
    parent_poses: Tensor | None,
    normalize: nn.Module,
    scale: float = 1.0,
    dropout: nn.Module | None = None,
) -> RoutingResult:
    """One pass of arxiv:2002.04764 Procedure 1 on votes (B, j, i, e).

    Agreement a_ij = p_jᵀ v_ij (eq. 2, times ``scale``); r_ij = softmax over the parents j of
    each child i (eq. 3); p_j = Σ_i r_ij v_ij (a sum, not a mean); p_j = LayerNorm(p_j)
    (``normalize``; ``dropout`` before it as in the code). ``parent_poses=None`` is the first
    pass: parent poses start at 0, so every r_ij = 1/n_parents. Returns the new poses (B, j, e)
    and r (B, i, j).
    """
    batch, parents, children, _ = votes.shape
    if parent_poses is None:
        coupling = votes.new_full((batch, parents, children), 1.0 / parents)
    else:
        agreement = torch.einsum("bjie,bje->bji", votes, parent_poses) * scale
        coupling = torch.softmax(agreement, dim=1)  # over parents j
    poses = torch.einsum("bji,bjie->bje", coupling, votes)
    if dropout is not None:
        poses = dropout(poses)
    return RoutingResult(normalize(poses), coupling.transpose(1, 2))


def _pose_side(dim: int) -> int:
    side = math.isqrt(dim)
    if side * side != dim:
        raise ValueError(f"a matrix pose needs a square dimension, got {dim}")
    return side


class _InvertedCapsuleLayer(nn.Module):
    """State shared by the FC and conv forms: LayerNorm, dropout, agreement scale, coupling."""

    def __init__(
        self, d_in: int, d_out: int, matrix_pose: bool, scale_agreement: bool, dropout: float
    ) -> None:
        super().__init__()
        if matrix_pose and d_in != d_out:
            raise ValueError(f"matrix poses need d_in == d_out, got {d_in} and {d_out}")
        self.d_in, self.d_out, self.matrix_pose = d_in, d_out, matrix_pose
        self.side = _pose_side(d_in) if matrix_pose else 0
        self.scale = 1.0 / math.sqrt(d_out) if scale_agreement else 1.0
        self.norm = nn.LayerNorm(d_out)
        self.drop = nn.Dropout(dropout)
        self.last_coupling: Tensor | None = None

    def _fan(self) -> int:
        return self.side if self.matrix_pose else self.d_in

    def _route(self, votes: Tensor, parent_poses: Tensor | None) -> RoutingResult:
        return inverted_dot_product_routing(votes, parent_poses, self.norm, self.scale, self.drop)

    def _uniform(self, vote_sum: Tensor, children: int) -> RoutingResult:
        """First pass from Σ_i v_ij (B, j, e), computed without forming the votes: every
        r_ij = 1/n_parents, so p_j = LayerNorm(Σ_i v_ij / n_parents), as in Procedure 1."""
        batch, parents, _ = vote_sum.shape
        poses = self.norm(self.drop(vote_sum / parents))
        coupling = vote_sum.new_full((1, 1, 1), 1.0 / parents).expand(batch, children, parents)
        return RoutingResult(poses, coupling)


class InvertedDotProductRouting(_InvertedCapsuleLayer):
    """Fully connected capsule layer with inverted dot-product attention routing.

    ``weight``: (n_out, n_in, s, s) for matrix poses (vote = P_i W_ij, the code's orientation of
    eq. 1), (n_out, n_in, d_in, d_out) for vector poses; initialised N(0, 1)·√(n_out/(f·n_in))
    with f = s or d_in, as in the code. Children are (B, n_in, d_in) or a conv capsule map
    (B, types, H, W, d_in), flattened in (type, row, column) order. ``forward(children,
    parents=None)`` returns the parent poses (B, n_out, d_out) and keeps the coupling, detached, in
    ``last_coupling`` (B, n_in, n_out); ``route`` returns both.
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        matrix_pose: bool = True,
        scale_agreement: bool = True,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(d_in, d_out, matrix_pose, scale_agreement, dropout)
        self.n_in, self.n_out = n_in, n_out
        shape = (n_out, n_in, self.side, self.side) if matrix_pose else (n_out, n_in, d_in, d_out)
        std = math.sqrt(n_out / (self._fan() * n_in))
        self.weight = nn.Parameter(torch.randn(shape) * std)

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"matrix_pose={self.matrix_pose}, scale={self.scale:.4g}"
        )

    def votes(self, children: Tensor) -> Tensor:
        """v_ij (eq. 1): (B, n_in, d_in) -> (B, n_out, n_in, d_out)."""
        if children.dim() == 5:  # (B, n, H, W, d) -> (B, n·H·W, d)
            children = children.flatten(1, 3)
        if not self.matrix_pose:
            return torch.einsum("bid,jide->bjie", children, self.weight)
        poses = children.unflatten(-1, (self.side, self.side))  # (B, i, a, x)
        votes = torch.einsum("biax,jixe->bjiae", poses, self.weight)
        return votes.flatten(-2)

    def route(self, children: Tensor, parents: Tensor | None = None) -> RoutingResult:
        if parents is not None:
            return self._route(self.votes(children), parents)
        if children.dim() == 5:
            children = children.flatten(1, 3)
        if self.matrix_pose:
            poses = children.unflatten(-1, (self.side, self.side))  # (B, i, a, x)
            vote_sum = torch.einsum("biax,jixe->bjae", poses, self.weight).flatten(-2)
        else:
            vote_sum = torch.einsum("bid,jide->bje", children, self.weight)
        return self._uniform(vote_sum, children.shape[1])

    def forward(self, children: Tensor, parents: Tensor | None = None) -> Tensor:
        result = self.route(children, parents)
        self.last_coupling = result.coupling.detach()
        return result.poses


def expand_windows(poses: Tensor, kernel: int, stride: int, mode: InputExpansion) -> Tensor:
    """k×k windows of a capsule map: (B, n, H, W, d) -> (B, n, k, k, h, w, d).

    ``"unfold"`` gives the true sliding windows. ``"apple_53899ae"`` reproduces the official
    code's first commit: it stacked the windows of all output positions on a new last axis,
    giving (…, d, h·w) in memory, then viewed that memory as (…, h, w, d), which mixes pose
    entries and positions (the values are a permutation of the true windows). The follow-up
    repository yaohungt/Capsules-Inverted-Attention-Routing replaced it with unfold.
    """
    if mode not in ("unfold", "apple_53899ae"):
        raise ValueError(f"input_expansion must be 'unfold' or 'apple_53899ae', got {mode!r}")
    windows = poses.unfold(2, kernel, stride).unfold(3, kernel, stride)  # (B, n, h, w, d, k, l)
    windows = windows.permute(0, 1, 5, 6, 2, 3, 4)  # (B, n, k, l, h, w, d)
    if mode == "unfold":
        return windows
    scrambled = windows.permute(0, 1, 2, 3, 6, 4, 5).contiguous()  # (B, n, k, l, d, h, w)
    return scrambled.view(windows.shape)


class ConvInvertedDotProductRouting(_InvertedCapsuleLayer):
    """Convolutional capsule layer with inverted dot-product attention routing (2002.04764 §2).

    Each output position (h, w) routes the n_in·k·k child capsules of its window to its n_out
    parent types; the softmax runs over the parent types at that position, so a child in several
    windows is normalised separately in each (as in the code). ``weight``: (n_out, n_in, k, k, s, s)
    for matrix poses, (n_out, n_in, k, k, d_in, d_out) for vector poses. Capsule maps are
    (B, types, H, W, d). ``last_coupling``/``route(...).coupling``: (B, h, w, n_in·k·k, n_out),
    children ordered (type, kernel row, kernel column). ``input_expansion="apple_53899ae"``
    reproduces the official repository's position-mixing bug (``expand_windows``).
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        kernel: int,
        stride: int,
        matrix_pose: bool = True,
        scale_agreement: bool = True,
        dropout: float = 0.0,
        input_expansion: InputExpansion = "unfold",
    ) -> None:
        super().__init__(d_in, d_out, matrix_pose, scale_agreement, dropout)
        self.n_in, self.n_out, self.kernel, self.stride = n_in, n_out, kernel, stride
        self.input_expansion = input_expansion
        pose_shape = (self.side, self.side) if matrix_pose else (d_in, d_out)
        std = math.sqrt(n_out / (self._fan() * n_in * kernel * kernel))
        self.weight = nn.Parameter(torch.randn(n_out, n_in, kernel, kernel, *pose_shape) * std)

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"kernel={self.kernel}, stride={self.stride}, matrix_pose={self.matrix_pose}, "
            f"scale={self.scale:.4g}, input_expansion={self.input_expansion!r}"
        )

    def votes(self, children: Tensor) -> Tensor:
        """(B, n_in, H, W, d_in) -> votes (B·h·w, n_out, n_in·k·k, d_out), children (n, k, l)."""
        windows = expand_windows(children, self.kernel, self.stride, self.input_expansion)
        if self.matrix_pose:
            poses = windows.unflatten(-1, (self.side, self.side))  # (B, n, k, l, h, w, a, x)
            votes = torch.einsum("bnklhwax,mnklxe->bhwmnklae", poses, self.weight).flatten(-2)
        else:
            votes = torch.einsum("bnklhwd,mnklde->bhwmnkle", windows, self.weight)
        return votes.flatten(4, 6).flatten(0, 2)

    def _vote_sum(self, children: Tensor) -> Tensor:
        """Σ_i v_ij over each window: (B, n_in, H, W, d_in) -> (B·h·w, n_out, d_out)."""
        windows = expand_windows(children, self.kernel, self.stride, self.input_expansion)
        if self.matrix_pose:
            poses = windows.unflatten(-1, (self.side, self.side))
            total = torch.einsum("bnklhwax,mnklxe->bhwmae", poses, self.weight).flatten(-2)
        else:
            total = torch.einsum("bnklhwd,mnklde->bhwme", windows, self.weight)
        return total.flatten(0, 2)

    def route(self, children: Tensor, parents: Tensor | None = None) -> RoutingResult:
        batch, _, height, width, _ = children.shape
        rows = (height - self.kernel) // self.stride + 1
        cols = (width - self.kernel) // self.stride + 1
        if parents is not None:  # (B, m, h, w, e) -> (B·h·w, m, e)
            flat_parents = parents.permute(0, 2, 3, 1, 4).flatten(0, 2)
            poses, coupling = self._route(self.votes(children), flat_parents)
        else:
            window = self.n_in * self.kernel * self.kernel
            poses, coupling = self._uniform(self._vote_sum(children), window)
        poses = poses.view(batch, rows, cols, self.n_out, self.d_out).permute(0, 3, 1, 2, 4)
        return RoutingResult(poses, coupling.view(batch, rows, cols, *coupling.shape[1:]))

    def forward(self, children: Tensor, parents: Tensor | None = None) -> Tensor:
        result = self.route(children, parents)
        self.last_coupling = result.coupling.detach()
        return result.poses


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
