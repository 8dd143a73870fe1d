"""Wrong variants of the two squash functions (1710.09829 eq. 1, 2101.12491 eq. 2), as the
shared module ``models.capsules`` defines them, and everywhere a content module imported them.

Each replacement is written out here (self-contained): none calls the squash it replaces. Two of
them give the right values and the wrong gradient, the class of bug that only a gradient check
sees: at a zero capsule the gradient is NaN (a square root's infinite slope times zero, or
``torch.where``'s untaken branch, whose 0/0 still reaches the backward pass).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from claimcheck import wrong_variant
from models.variants.patching import module, replace

USERS = {"squash_sabour": ("models.dynamic.routing", "models.dynamic.capsnet"),
         "squash_efficient": ("models.self_attention.routing",
                              "models.self_attention.efficient_capsnet")}


def _everywhere(name: str, replacement: Any) -> None:
    replace(module("models.capsules"), name, replacement)
    for user in USERS[name]:
        replace(module(user), name, replacement)


def _unguarded_sabour(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    norm_sq = (s * s).sum(dim=dim, keepdim=True)
    return norm_sq / (1.0 + norm_sq) * s / norm_sq.sqrt()


def _unit_length(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    return s / torch.linalg.vector_norm(s, dim=dim, keepdim=True).clamp_min(eps)


def _sabour_over_first_axis(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    norm_sq = (s * s).sum(dim=1, keepdim=True)
    return s * (norm_sq / ((1.0 + norm_sq) * torch.sqrt(norm_sq + eps)))


def _sabour_by_norm(s: Tensor, dim: int = -1, eps: float = 1e-8) -> Tensor:
    norm = (s * s).sum(dim=dim, keepdim=True).sqrt()
    return s * norm / (1.0 + norm * norm)


def _sabour(s: Tensor, dim: int = -1, eps: float = 1e-20) -> Tensor:
    norm_sq = (s * s).sum(dim=dim, keepdim=True)
    return s * (norm_sq / ((1.0 + norm_sq) * torch.sqrt(norm_sq + 1e-8)))


def _efficient_where_guarded(s: Tensor, dim: int = -1, eps: float = 1e-20) -> Tensor:
    norm = (s * s).sum(dim=dim, keepdim=True).sqrt()
    return torch.where(norm > 0, -torch.expm1(-norm) * s / norm, torch.zeros_like(s))


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
    _everywhere("squash_sabour", _sabour_over_first_axis)


@wrong_variant
def squash_nan_gradient_at_zero() -> None:
    """Eq. 1 as s·‖s‖/(1+‖s‖²) with ‖s‖ a plain square root: every value right (0 at 0), but
    the gradient at a zero capsule is NaN (∞·0), and one NaN poisons the whole training step."""
    _everywhere("squash_sabour", _sabour_by_norm)


@wrong_variant
def efficient_squash_is_sabour() -> None:
    """Efficient-CapsNet's squash replaced by 1710.09829 eq. 1 (the two laws confused)."""
    _everywhere("squash_efficient", _sabour)


@wrong_variant
def efficient_squash_where_guard() -> None:
    """Eq. 2 guarded with ``torch.where(‖s‖ > 0, ..., 0)``: the value at zero is 0 as it should
    be, but the untaken branch's 0/0 makes the gradient at a zero capsule NaN."""
    _everywhere("squash_efficient", _efficient_where_guarded)


def _length_eps_outside(v: Tensor, dim: int = -1, eps: float = 0.0) -> Tensor:
    return torch.sqrt((v * v).sum(dim=dim)) + eps


@wrong_variant
def length_eps_outside_root() -> None:
    """The length read-out's ε added outside the square root (√(Σv²) + ε, not √(Σv² + ε)):
    scores move by about 1e-7, and the gradient at a zero capsule is NaN."""
    for name in ("models.capsules", "models.dynamic.capsnet",
                 "models.self_attention.efficient_capsnet"):
        replace(module(name), "capsule_length", _length_eps_outside)
