"""Convolutional capsule layer with inverted dot-product attention routing (arxiv:2002.04764 §2).

Einsum letters as in ``models.inverted.layers``, plus n (child type), m (parent type), k/l
(kernel row/column), h/w (output row/column). Each output position is one routing group.
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor, nn

from models.capsules import RoutingResult
from models.inverted.layers import InvertedCapsuleLayer

InputExpansion = Literal["unfold", "apple_53899ae"]


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


class ConvInvertedDotProductRouting(InvertedCapsuleLayer):
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
        super().__init__(d_in, n_out, d_out, matrix_pose, scale_agreement, dropout)
        self.n_in, self.kernel, self.stride = n_in, kernel, stride
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

    def child_rows(self, children: Tensor) -> Tensor:
        """(B, n_in, H, W, d_in) -> (n_in·k·k, a, B·h·w, x), children ordered (n, k, l)."""
        windows = expand_windows(children, self.kernel, self.stride, self.input_expansion)
        windows = windows.unflatten(-1, (self.pose_rows, -1))  # (B, n, k, l, h, w, a, x)
        rows = windows.permute(1, 2, 3, 6, 0, 4, 5, 7)  # (n, k, l, a, B, h, w, x)
        window = self.n_in * self.kernel * self.kernel
        return rows.reshape(window, self.pose_rows, -1, windows.shape[-1])

    def weight_matrix(self) -> Tensor:
        """``weight`` as (n_in·k·k, x, n_out·e)."""
        by_child = self.weight.permute(1, 2, 3, 4, 0, 5)  # (n, k, l, x, m, e)
        return by_child.reshape(self.n_in * self.kernel * self.kernel, by_child.shape[3], -1)

    def votes(self, children: Tensor) -> Tensor:
        """(B, n_in, H, W, d_in) -> votes (B·h·w, n_out, n_in·k·k, d_out), children (n, k, l)."""
        return self.parent_major_votes(self.child_rows(children), self.weight_matrix())

    def route(self, children: Tensor, parents: Tensor | None = None) -> RoutingResult:
        batch, _, height, width, _ = children.shape
        rows = (height - self.kernel) // self.stride + 1
        cols = (width - self.kernel) // self.stride + 1
        if parents is not None:  # (B, m, h, w, e) -> (B·h·w, m, e)
            parents = parents.permute(0, 2, 3, 1, 4).flatten(0, 2)
        poses, coupling = self.route_groups(
            self.child_rows(children), self.weight_matrix(), parents
        )
        poses = poses.view(batch, rows, cols, self.n_out, self.d_out).permute(0, 3, 1, 2, 4)
        return RoutingResult(poses, coupling.view(batch, rows, cols, *coupling.shape[1:]))

    def forward(self, children: Tensor, parents: Tensor | None = None) -> Tensor:
        result = self.route(children, parents)
        self.last_coupling = result.coupling.detach()
        return result.poses
