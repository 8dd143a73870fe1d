"""Wrong variants of the two squash functions (1710.09829 eq. 1, 2101.12491 eq. 2), as the
shared module ``models.capsules`` defines them, and everywhere a content module imported them."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from claimcheck import wrong_variant
from models.variants.patching import module, replace

USERS = {"squash_sabour": ("models.dynamic.capsnet",),
         "squash_efficient": ("models.self_attention.efficient_capsnet",)}


def _everywhere(name: str, replacement: Any) -> None:
    replace(module("models.capsules"), name, replacement)
    for user in USERS[name]:
        replace(module(user), name, replacement)


def _unguarded_sabour(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    norm_sq = (s * s).sum(dim=dim, keepdim=True)
    return norm_sq / (1.0 + norm_sq) * s / norm_sq.sqrt()


def _unit_length(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    return s / torch.linalg.vector_norm(s, dim=dim, keepdim=True).clamp_min(eps)


@wrong_variant
def squash_without_zero_guard() -> None:
    """Eq. 1 written as ‖s‖²/(1+‖s‖²)·s/‖s‖ with no guard: squash(0) is 0/0 (gram-ai's port)."""
    _everywhere("squash_sabour", _unguarded_sabour)


@wrong_variant
def squash_to_unit_length() -> None:
    """The squash replaced by a normalisation to unit length (outside [0, 1))."""
    _everywhere("squash_sabour", _unit_length)


@wrong_variant
def squash_over_wrong_axis() -> None:
    """The squash takes the norm over axis 1 (the capsules) instead of the capsule's entries."""
    from models.capsules import squash_sabour

    def over_first_axis(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
        return squash_sabour(s, dim=1, eps=eps)

    _everywhere("squash_sabour", over_first_axis)


@wrong_variant
def efficient_squash_is_sabour() -> None:
    """Efficient-CapsNet's squash replaced by 1710.09829 eq. 1 (the two laws confused)."""
    from models.capsules import squash_sabour

    _everywhere("squash_efficient", squash_sabour)
