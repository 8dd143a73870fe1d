"""MultiMNIST: two overlaid MNIST digits of different classes (arxiv:1710.09829 §6.1).

Recipe, following the paper and the authors' ``mnist_shift.py``: each 28×28 digit is padded by
4 px to 36×36 and shifted by an integer in ``[-shift, shift]`` on each axis; a second digit with
a *different* label is drawn from the *same* split, shifted independently, and the two are merged
as ``min(a + b, 255)``. The paper uses ``shift=4``; the official Efficient-CapsNet code
(arxiv:2101.12491, ``config.json`` ``shift_multimnist``) uses ``shift=6``, in which case a digit
may be pushed up to 2 px past the canvas edge and is cropped there, as in that code.

The paper draws 1,000 pairs per digit (60M images); here ``pairs_per_image`` sets the number,
and training pairs are drawn afresh each epoch from ``seed`` and the epoch number.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from models.data.identity import DataIdentity, LabelledSplits

CANVAS = 36
PAD = 4
MAX_BYTES = 8_000_000_000  # the arrays are materialised at once; 60M pairs would need ~230 GB


@dataclass(frozen=True)
class MultiMnistArrays:
    """``images`` (N, 1, 36, 36) uint8 overlays; ``labels`` (N, 2) int64 (base, top);
    ``components`` (N, 2, 1, 36, 36) uint8, each shifted digit alone (reconstruction targets)."""

    images: np.ndarray
    labels: np.ndarray
    components: np.ndarray


def shift_onto_canvas(digits: np.ndarray, dy: np.ndarray, dx: np.ndarray) -> np.ndarray:
    """Place (N, 28, 28) digits on 36×36 canvases, moved by (dy, dx) from the centred position.

    One fancy-indexing assignment into a canvas large enough for any shift, then a centre crop.
    """
    reach = max(PAD, int(np.abs(dy).max(initial=0)), int(np.abs(dx).max(initial=0)))
    side = 28 + 2 * reach
    count = len(digits)
    big = np.zeros((count, side, side), dtype=np.uint8)
    rows = np.arange(28)
    big[np.arange(count)[:, None, None],
        (reach + dy)[:, None, None] + rows[None, :, None],
        (reach + dx)[:, None, None] + rows[None, None, :]] = digits
    crop = reach - PAD
    return big[:, crop: crop + CANVAS, crop: crop + CANVAS]


def draw_partners(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For every item, the index of another item with a different label (uniform among those)."""
    partners = rng.integers(0, len(labels), size=len(labels))
    clash = labels[partners] == labels
    while clash.any():
        partners[clash] = rng.integers(0, len(labels), size=int(clash.sum()))
        clash = labels[partners] == labels
    return partners


def make_multimnist(images: np.ndarray, labels: np.ndarray, pairs_per_image: int, shift: int,
                    rng: np.random.Generator) -> MultiMnistArrays:
    """Overlay pairs from one split. ``images`` (N, 28, 28) or (N, 1, 28, 28) uint8."""
    if pairs_per_image < 1:
        raise ValueError(f"pairs_per_image must be >= 1, got {pairs_per_image}")
    if shift < 0:
        raise ValueError(f"shift must be >= 0, got {shift}")
    if len(np.unique(labels)) < 2:
        raise ValueError("MultiMNIST needs at least two classes in the split")
    needed = len(labels) * pairs_per_image * CANVAS * CANVAS * 3  # overlay + two components
    if needed > MAX_BYTES:
        raise ValueError(f"{len(labels)} digits × {pairs_per_image} pairs need "
                         f"{needed / 1e9:.1f} GB in memory (limit {MAX_BYTES / 1e9:.0f} GB); "
                         "use fewer pairs per image")
    digits = images.reshape(len(images), 28, 28)
    base = np.tile(np.arange(len(labels)), pairs_per_image)
    top = np.concatenate([draw_partners(labels, rng) for _ in range(pairs_per_image)])
    offsets = rng.integers(-shift, shift + 1, size=(4, len(base)))
    first = shift_onto_canvas(digits[base], offsets[0], offsets[1])
    second = shift_onto_canvas(digits[top], offsets[2], offsets[3])
    merged = np.minimum(first.astype(np.uint16) + second, 255).astype(np.uint8)
    return MultiMnistArrays(
        images=merged[:, None],
        labels=np.stack([labels[base], labels[top]], axis=1).astype(np.int64),
        components=np.stack([first, second], axis=1)[:, :, None],
    )


@dataclass(frozen=True)
class MultiMnistSource:
    """MultiMNIST built on an MNIST :class:`LabelledSplits`; pairs never cross the splits."""

    base: LabelledSplits
    shift: int = 4
    train_pairs_per_image: int = 1
    eval_pairs_per_image: int = 1

    @property
    def identity(self) -> DataIdentity:
        inner = self.base.identity
        extra = dict(inner.extra)
        extra["multimnist"] = (
            f"36x36 overlays, shift ±{self.shift} px, different labels, clip at 255; "
            f"{self.train_pairs_per_image} train pair(s) per image redrawn each epoch, "
            f"{self.eval_pairs_per_image} fixed eval pair(s) per image; pairs within a split")
        return replace(
            inner, name=f"multimnist({inner.name})",
            split=(f"train {len(self.base.train_labels) * self.train_pairs_per_image} / eval "
                   f"{len(self.base.eval_labels) * self.eval_pairs_per_image} pairs from "
                   f"{inner.split}"),
            extra=extra)

    def train_epoch(self, seed: int, epoch: int, stream: int = 0) -> MultiMnistArrays:
        """The training pairs of ``epoch``; ``stream`` > 0 draws them from another valid random
        stream of the same seed (the trainer's controls)."""
        rng = np.random.default_rng([seed, epoch, 1] + ([stream] if stream else []))
        return make_multimnist(self.base.train_images, self.base.train_labels,
                               self.train_pairs_per_image, self.shift, rng)

    def eval_set(self, seed: int) -> MultiMnistArrays:
        rng = np.random.default_rng([seed, 0, 2])
        return make_multimnist(self.base.eval_images, self.base.eval_labels,
                               self.eval_pairs_per_image, self.shift, rng)
