"""Wrong variants of the port of the official Efficient-CapsNet Keras weights
(:mod:`models.self_attention.keras_weights`): mappings whose names and shapes all fit but whose
values land in the wrong places."""

from __future__ import annotations

from typing import Any

import numpy as np

from claimcheck import wrong_variant
from models.variants.patching import module, replace

PORT = "models.self_attention.keras_weights"


@wrong_variant
def port_transposed_kernels() -> None:
    """Every convolution kernel ported with its two spatial axes swapped (HWIO read as WHIO)."""
    port = module(PORT)
    original = port.converted

    def transposed(kind: str, variables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = original(kind, variables)
        if kind == "conv":
            out["weight"] = out["weight"].transpose(0, 1, 3, 2)
        return out

    replace(port, "converted", transposed)


@wrong_variant
def port_swapped_norm_affine() -> None:
    """Each norm's gamma loaded as its bias and beta as its gain."""
    port = module(PORT)
    swapped: dict[str, Any] = dict(port.NORM_KEYS, gamma="bias", beta="weight")
    replace(port, "NORM_KEYS", swapped)
