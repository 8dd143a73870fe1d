"""Wrong variants of the training losses: margin loss (1710.09829 eq. 4, 2101.12491 eq. 7) and
the reconstruction term (1710.09829 §4.1). ``models.training.loop`` imported ``margin_loss`` by
name, so each variant rebinds it there as well as in ``models.capsules``."""

from __future__ import annotations

import dataclasses
from typing import Any

from torch import Tensor

from claimcheck import wrong_variant
from models.variants.patching import module, replace

LOSS_USERS = ("models.capsules", "models.training.loop")


def _margin_with(**fixed: Any) -> Any:
    """Eq. 4 written out (self-contained: it never calls ``margin_loss``), with some arguments
    forced whatever the caller passes; ``reduction`` replaces only the default ``"paper"``."""
    import torch
    import torch.nn.functional as F

    def wrong(lengths: Tensor, targets: Tensor, m_plus: float = 0.9, m_minus: float = 0.1,
              lam: float = 0.5, reduction: str = "paper") -> Tensor:
        if reduction == "paper" and "reduction" in fixed:
            reduction = fixed["reduction"]
        m_plus = fixed.get("m_plus", m_plus)
        m_minus = fixed.get("m_minus", m_minus)
        lam = fixed.get("lam", lam)
        classes = lengths.shape[1]
        present = (F.one_hot(targets.long(), classes) if targets.dim() == 1
                   else targets).to(lengths.dtype)
        per_class = (present * torch.relu(m_plus - lengths) ** 2
                     + lam * (1.0 - present) * torch.relu(lengths - m_minus) ** 2)
        if reduction == "paper":
            return per_class.sum(dim=1).mean()
        if reduction == "tf_official":
            return 0.5 * per_class.mean()
        return per_class

    return wrong


def _everywhere(replacement: Any) -> None:
    for user in LOSS_USERS:
        replace(module(user), "margin_loss", replacement)


@wrong_variant
def margin_loss_mean_over_classes() -> None:
    """The margin loss averaged over the classes (½·mean, the TF code) instead of summed."""
    _everywhere(_margin_with(reduction="tf_official"))


@wrong_variant
def margin_loss_swapped_margins() -> None:
    """m⁺ and m⁻ swapped (0.1 for the present class, 0.9 for the absent ones)."""
    _everywhere(_margin_with(m_plus=0.1, m_minus=0.9))


@wrong_variant
def margin_loss_unit_lambda() -> None:
    """The absent classes' term not down-weighted (λ = 1 instead of 0.5)."""
    _everywhere(_margin_with(lam=1.0))


@wrong_variant
def reconstruction_reduction_swapped() -> None:
    """The reconstruction error taken per pixel where the schedule sums it, and summed where it
    takes the mean (784× off on MNIST either way)."""
    _schedules_changed(lambda schedule: dataclasses.replace(
        schedule, recon_reduction="mse" if schedule.recon_reduction == "sse" else "sse"))


@wrong_variant
def reconstruction_unmasked() -> None:
    """In training the decoder sees every class capsule, not only the true class's."""
    import torch

    def all_capsules(labels: Tensor, num_classes: int, dtype: Any = torch.float32) -> Tensor:
        return torch.ones(labels.shape[0], num_classes, dtype=dtype, device=labels.device)

    replace(module("models.training.loop"), "label_mask", all_capsules)


def _schedules_changed(change: Any) -> None:
    """Every training schedule of every model replaced by ``change(schedule)``."""
    schedules = module("models.training.schedules")
    table = {model: {name: change(schedule) for name, schedule in named.items()}
             for model, named in schedules.SCHEDULES.items()}
    replace(schedules, "SCHEDULES", table)


@wrong_variant
def schedule_without_shifts() -> None:
    """Training without the random shifts of up to 2 px (§5), the images used as they are."""
    _schedules_changed(lambda schedule: dataclasses.replace(schedule, augment="none"))


@wrong_variant
def schedule_without_decay() -> None:
    """The learning rate kept at its initial value: the exponential decay left out."""
    _schedules_changed(lambda schedule: dataclasses.replace(schedule, decay="none"))


@wrong_variant
def schedule_tenth_learning_rate() -> None:
    """The initial learning rate ten times too small (1e-4 for Adam's 1e-3, a common slip)."""
    _schedules_changed(lambda schedule: dataclasses.replace(schedule, lr=schedule.lr / 10))
