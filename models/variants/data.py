"""Wrong variants of the data the training checks use (arxiv:1710.09829 §6.1, MultiMNIST).

Each writes out the generator with its slip (``_generator``, a copy of
``models.data.multimnist.make_multimnist`` with switches): a variant never calls the function it
replaces.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from claimcheck import wrong_variant
from models.variants.patching import module, replace


def _generator(*, widen_to: int = 0, top: str = "independent") -> Any:
    """``make_multimnist`` with shifts of at least ``widen_to`` px and the top digit placed
    ``independent``-ly (right), ``unshifted`` or ``like-base``."""
    data = module("models.data.multimnist")

    def make_multimnist(images: np.ndarray, labels: np.ndarray, pairs_per_image: int,
                        shift: int, rng: np.random.Generator) -> Any:
        shift = max(shift, widen_to)
        digits = images.reshape(len(images), 28, 28)
        base = np.tile(np.arange(len(labels)), pairs_per_image)
        top_index = np.concatenate([data.draw_partners(labels, rng)
                                    for _ in range(pairs_per_image)])
        offsets = rng.integers(-shift, shift + 1, size=(4, len(base)))
        if top == "unshifted":
            offsets[2:] = 0
        elif top == "like-base":
            offsets[2:] = offsets[:2]
        first = data.shift_onto_canvas(digits[base], offsets[0], offsets[1])
        second = data.shift_onto_canvas(digits[top_index], offsets[2], offsets[3])
        merged = np.minimum(first.astype(np.uint16) + second, 255).astype(np.uint8)
        return data.MultiMnistArrays(
            images=merged[:, None],
            labels=np.stack([labels[base], labels[top_index]], axis=1).astype(np.int64),
            components=np.stack([first, second], axis=1)[:, :, None])

    return make_multimnist


@wrong_variant
def multimnist_shift_six() -> None:
    """MultiMNIST digits shifted by up to 6 px (the Efficient-CapsNet code's setting) where the
    recipe asks for 4."""
    replace(module("models.data.multimnist"), "make_multimnist", _generator(widen_to=6))


@wrong_variant
def multimnist_top_unshifted() -> None:
    """Only the base digit is shifted; the top digit stays centred."""
    replace(module("models.data.multimnist"), "make_multimnist", _generator(top="unshifted"))


@wrong_variant
def multimnist_top_shift_like_base() -> None:
    """The top digit moved by the base digit's own offsets (one draw reused), so the two digits
    always overlap in the same relative position."""
    replace(module("models.data.multimnist"), "make_multimnist", _generator(top="like-base"))


@wrong_variant
def multimnist_same_pairs_every_epoch() -> None:
    """The training pairs drawn from the seed alone: every epoch repeats the same partners and
    shifts instead of drawing new ones."""
    data = module("models.data.multimnist")

    def train_epoch(self: Any, seed: int, epoch: int, stream: int = 0) -> Any:
        rng = np.random.default_rng([seed, 0, 1] + ([stream] if stream else []))
        return data.make_multimnist(self.base.train_images, self.base.train_labels,
                                    self.train_pairs_per_image, self.shift, rng)

    replace(data.MultiMnistSource, "train_epoch", train_epoch)
