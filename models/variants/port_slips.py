"""Wrong variants of the code around the formulas: a fast path's cached kernel, dropout after
LayerNorm in inverted routing, Efficient-CapsNet's rate floor dropped, the second MultiMNIST
digit shifted along the diagonal, the CIFAR flip about the wrong axis, and the data stream seeded
by ``seed + epoch``.

Each writes out the function it replaces with its slip in it (a variant never calls the function
it replaces); the helpers they call (``shift_augment``, ``draw_partners``, ``shift_onto_canvas``,
the vote sums of the inverted layers) are ones the variants leave unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from claimcheck import wrong_variant
from models.variants.patching import module, replace


@wrong_variant
def window_kernel_cached() -> None:
    """The primary capsules' fast depthwise path keeps the channels-last copy of its kernel from
    its first call: after an optimiser step or ``load_state_dict`` it still multiplies by the
    old weights."""

    def forward(self: Any, x: Tensor) -> Tensor:
        k_h, k_w = self.kernel_size
        rows, cols = x.shape[-2:]
        one_by_one = (rows - k_h) // self.stride[0] == 0 and (cols - k_w) // self.stride[1] == 0
        plain = (self.groups == self.in_channels == self.out_channels
                 and self.padding == (0, 0) and self.dilation == (1, 1)
                 and self.padding_mode == "zeros")
        if not (one_by_one and plain and rows >= k_h and cols >= k_w):
            return torch.nn.Conv2d.forward(self, x)
        window = x[..., :k_h, :k_w]
        kernel = self.weight.view(-1, k_h, k_w)
        if x.is_contiguous(memory_format=torch.channels_last):
            if getattr(self, "_cached_kernel", None) is None:
                self._cached_kernel = kernel.permute(1, 2, 0).contiguous()
            h = (window.permute(0, 2, 3, 1) * self._cached_kernel).sum(dim=(1, 2))
        else:
            h = (window * kernel).sum(dim=(-2, -1))
        if self.bias is not None:
            h = h + self.bias
        return h.view(*h.shape, 1, 1)

    replace(module("models.capsules").WindowDepthwiseConv2d, "forward", forward)


@wrong_variant
def inverted_dropout_after_norm() -> None:
    """Inverted routing applies dropout to the parent poses after LayerNorm instead of before
    it (the official code drops the aggregated pose, then normalises): with dropout on, the
    poses lose their zero mean and unit variance."""
    layers = module("models.inverted.layers")

    def route_groups(self: Any, rows: Tensor, weight: Tensor, parents: Tensor | None) -> Any:
        if parents is not None:
            poses, coupling = self._routed_vote_sums(rows, weight, parents)
            return layers.RoutingResult(self.drop(self.norm(poses)), coupling)
        n_children, n_rows, groups = rows.shape[:3]
        flat_rows = rows.permute(1, 2, 0, 3).reshape(n_rows * groups, -1)
        total = flat_rows @ weight.reshape(-1, weight.shape[2])
        total = total.view(n_rows, groups, self.n_out, -1).permute(1, 2, 0, 3)
        vote_sum = total.reshape(groups, self.n_out, self.d_out)
        poses = self.drop(self.norm(vote_sum / self.n_out))
        coupling = vote_sum.new_full((1, 1, 1), 1.0 / self.n_out)
        return layers.RoutingResult(poses, coupling.expand(groups, n_children, self.n_out))

    replace(layers.InvertedCapsuleLayer, "route_groups", route_groups)


@wrong_variant
def schedule_lr_floor_dropped() -> None:
    """The learning-rate law without its floor: Efficient-CapsNet's 5e-4 · 0.97^epoch keeps
    falling below 5e-5 after epoch 75 instead of staying there."""
    schedules = module("models.training.schedules")

    def lr_at(self: Any, epoch: int, step: int) -> float:
        if self.decay == "per_epoch":
            return float(self.lr * self.decay_rate**epoch)
        if self.decay == "per_step":
            return float(self.lr * self.decay_rate ** (step / self.decay_steps))
        if self.decay == "multistep":
            return float(self.lr * self.decay_rate ** sum(epoch >= m for m in self.milestones))
        return float(self.lr)

    replace(schedules.Schedule, "lr_at", lr_at)


@wrong_variant
def multimnist_top_shift_diagonal() -> None:
    """The top MultiMNIST digit moved by one draw on both axes (its row offset reused for the
    column): each marginal is uniform, but the digit moves only along the diagonal."""
    data = module("models.data.multimnist")

    def make_multimnist(images: np.ndarray, labels: np.ndarray, pairs_per_image: int,
                        shift: int, rng: np.random.Generator) -> Any:
        digits = images.reshape(len(images), 28, 28)
        base = np.tile(np.arange(len(labels)), pairs_per_image)
        top = np.concatenate([data.draw_partners(labels, rng) for _ in range(pairs_per_image)])
        offsets = rng.integers(-shift, shift + 1, size=(4, len(base)))
        first = data.shift_onto_canvas(digits[base], offsets[0], offsets[1])
        second = data.shift_onto_canvas(digits[top], offsets[2], offsets[2])
        merged = np.minimum(first.astype(np.uint16) + second, 255).astype(np.uint8)
        return data.MultiMnistArrays(
            images=merged[:, None],
            labels=np.stack([labels[base], labels[top]], axis=1).astype(np.int64),
            components=np.stack([first, second], axis=1)[:, :, None])

    replace(data, "make_multimnist", make_multimnist)


@wrong_variant
def crop_flip_vertical() -> None:
    """The CIFAR augmentation mirrors half the images up-down (``[:, :, ::-1, :]``, the rows)
    where the official code's RandomHorizontalFlip mirrors them left-right."""
    loop = module("models.training.loop")

    def crop_flip_augment(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        shifted = loop.shift_augment(images, 4, rng)
        flip = rng.random(len(images)) < 0.5
        shifted[flip] = shifted[flip, :, ::-1, :]
        return shifted

    replace(loop, "crop_flip_augment", crop_flip_augment)


@wrong_variant
def data_rng_seed_plus_epoch() -> None:
    """The data stream seeded with ``seed + epoch``: seed s's epoch 1 orders and augments the
    images exactly as seed s + 1's epoch 0, so two seeds of a run share most of their data."""

    def data_rng(seed: int, epoch: int, stream: int = 0) -> np.random.Generator:
        if stream:
            return np.random.default_rng([seed, epoch, stream])
        return np.random.default_rng(seed + epoch)

    replace(module("models.training.loop"), "data_rng", data_rng)
