"""Wrong variants of the data the training checks use (arxiv:1710.09829 §6.1, MultiMNIST)."""

from __future__ import annotations

from typing import Any

from claimcheck import wrong_variant
from models.variants.patching import module, replace


@wrong_variant
def multimnist_shift_six() -> None:
    """MultiMNIST digits shifted by up to 6 px (the Efficient-CapsNet code's setting) where the
    recipe asks for 4."""
    data = module("models.data.multimnist")
    original = data.make_multimnist

    def wider(images: Any, labels: Any, pairs_per_image: int, shift: int, *rest: Any,
              **kwargs: Any) -> Any:
        return original(images, labels, pairs_per_image, max(shift, 6), *rest, **kwargs)

    replace(data, "make_multimnist", wider)
