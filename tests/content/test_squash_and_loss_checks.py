"""The squash and margin-loss checks hold for the models and fail for wrong variants."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from models.capsules import margin_loss, squash_efficient, squash_sabour
from models.checks.common import all_hold
from models.checks.losses import margin_loss_constants, measure_margin_loss
from models.checks.squash import (
    efficient_length,
    measure_squash,
    sabour_length,
    squash_efficient_properties,
    squash_sabour_properties,
)


def test_both_squash_checks_hold_for_the_models(make_ctx) -> None:
    for check in (squash_sabour_properties, squash_efficient_properties):
        evidence = check(make_ctx())
        assert evidence.measured is True, evidence.details
        assert "max |length - law(norm)|" in evidence.details


def test_squash_check_rejects_a_unit_normaliser() -> None:
    def to_unit(s: Tensor) -> Tensor:  # length 1: outside [0, 1)
        return s / s.norm(dim=-1, keepdim=True).clamp_min(1e-12)

    findings = measure_squash(to_unit, sabour_length, seed=0)
    assert not all_hold(findings)
    assert not next(f for f in findings if f.name == "max length < 1").ok


def test_squash_check_rejects_a_flipped_direction() -> None:
    findings = measure_squash(lambda s: -squash_sabour(s), sabour_length, seed=0)
    assert not next(f for f in findings if "cosine" in f.name).ok


def test_squash_check_rejects_the_wrong_axis() -> None:
    findings = measure_squash(lambda s: squash_sabour(s, dim=1), sabour_length, seed=0)
    assert not all_hold(findings)


def test_squash_check_tells_the_two_laws_apart() -> None:
    findings = measure_squash(squash_sabour, efficient_length, seed=0)
    assert not next(f for f in findings if "law" in f.name).ok


def test_efficient_squash_passes_its_own_law() -> None:
    assert all_hold(measure_squash(squash_efficient, efficient_length, seed=3))


def test_margin_loss_check_measures_the_paper_constants(make_ctx) -> None:
    evidence = margin_loss_constants(make_ctx({"m_plus": 0.9, "m_minus": 0.1, "lam": 0.5}))
    assert evidence.measured is True, evidence.details
    assert "m+ measured 0.9" in evidence.details


def test_margin_loss_check_rejects_other_constants(make_ctx) -> None:
    evidence = margin_loss_constants(make_ctx({"m_plus": 0.95, "m_minus": 0.1, "lam": 0.5}))
    assert evidence.measured is False


def unsquared(lengths: Tensor, targets: Tensor, reduction: str = "paper") -> Tensor:
    present = F.one_hot(targets, lengths.shape[1]).to(lengths.dtype)
    per_class = present * F.relu(0.9 - lengths) + 0.5 * (1 - present) * F.relu(lengths - 0.1)
    return per_class if reduction == "none" else per_class.sum(1).mean()


def test_margin_loss_check_rejects_unsquared_hinges() -> None:
    assert not all_hold(measure_margin_loss(unsquared, 0.9, 0.1, 0.5))


def test_margin_loss_check_rejects_a_mean_over_classes() -> None:
    def mean_over_classes(lengths: Tensor, targets: Tensor, reduction: str = "paper") -> Tensor:
        if reduction == "none":
            return margin_loss(lengths, targets, reduction="none")
        return margin_loss(lengths, targets, reduction="tf_official")

    findings = measure_margin_loss(mean_over_classes, 0.9, 0.1, 0.5)
    assert not next(f for f in findings if "sum over classes" in f.name).ok


def test_margin_loss_check_rejects_swapped_lambda() -> None:
    def heavy_absent(lengths: Tensor, targets: Tensor, reduction: str = "paper") -> Tensor:
        return margin_loss(lengths, targets, lam=1.0, reduction=reduction)  # type: ignore[arg-type]

    assert not all_hold(measure_margin_loss(heavy_absent, 0.9, 0.1, 0.5))
    assert torch.isfinite(heavy_absent(torch.rand(2, 3), torch.tensor([0, 1]))).all()
