"""Property check of the margin loss (arxiv:1710.09829 eq. 4, reused as arxiv:2101.12491 eq. 7).

L_k = T_k max(0, m⁺ − ‖v_k‖)² + λ (1 − T_k) max(0, ‖v_k‖ − m⁻)², total Σ_k L_k.

The check does not read the implementation's defaults: it evaluates the loss at chosen lengths
and solves for m⁺, m⁻ and λ, so a wrong constant, a missing square or a mean over classes shows
up as a measured difference. :func:`margin_loss_constants` probes ``models.capsules.margin_loss``;
:func:`training_margin_loss` probes the margin term of a model's training loss as a training
schedule computes it (``models.training.loop.training_loss``), the path each paper's training runs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import DTYPE, Finding, at_most, property_evidence

# (lengths, targets, reduction) -> loss; reduction "none" gives (B, K), "paper" the total.
MarginLoss = Callable[..., Tensor]

PRESENT_PROBE = 0.3  # a present class's length below m⁺
ABSENT_PROBES = (0.5, 0.7)  # two absent-class lengths above m⁻
PRESENT_SATISFIED, ABSENT_SATISFIED = 0.95, 0.05


def infer_constants(loss: MarginLoss) -> tuple[float, float, float, Tensor]:
    """Solve m⁺, m⁻, λ from per-class losses at probe lengths; also return the probe losses.

    Batch rows, class 0 always present: [0.3, 0.5], [0.3, 0.7], [0.95, 0.05].
    Present: L = (m⁺ − 0.3)², so m⁺ = 0.3 + √L. Absent: √L = √λ (y − m⁻) at y = 0.5 and 0.7,
    so √λ = (√L(0.7) − √L(0.5)) / 0.2 and m⁻ = 0.5 − √L(0.5)/√λ.
    """
    lengths = torch.tensor(
        [[PRESENT_PROBE, ABSENT_PROBES[0]], [PRESENT_PROBE, ABSENT_PROBES[1]],
         [PRESENT_SATISFIED, ABSENT_SATISFIED]],
        dtype=DTYPE,
    )
    targets = torch.zeros(3, dtype=torch.long)
    per_class = loss(lengths, targets, reduction="none")
    m_plus = PRESENT_PROBE + math.sqrt(float(per_class[0, 0]))
    low, high = math.sqrt(float(per_class[0, 1])), math.sqrt(float(per_class[1, 1]))
    sqrt_lam = (high - low) / (ABSENT_PROBES[1] - ABSENT_PROBES[0])
    m_minus = ABSENT_PROBES[0] - low / sqrt_lam if sqrt_lam > 0 else math.nan
    return m_plus, m_minus, sqrt_lam**2, per_class


def measure_margin_loss(
    loss: MarginLoss, m_plus: float, m_minus: float, lam: float, tol: float = 1e-9
) -> list[Finding]:
    """Compare the inferred constants with the paper's, and check the sum over classes."""
    got_plus, got_minus, got_lam, per_class = infer_constants(loss)
    lengths = torch.tensor([[0.2, 0.6, 0.4], [0.8, 0.3, 0.05]], dtype=DTYPE)
    targets = torch.tensor([1, 0])
    total = float(loss(lengths, targets, reduction="paper"))
    summed = float(loss(lengths, targets, reduction="none").sum(dim=1).mean())
    satisfied = float(per_class[2].abs().max())
    return [
        at_most(f"|m+ - {m_plus}| (m+ measured {got_plus:.6g})", abs(got_plus - m_plus), tol),
        at_most(f"|m- - {m_minus}| (m- measured {got_minus:.6g})", abs(got_minus - m_minus), tol),
        at_most(f"|lambda - {lam}| (lambda measured {got_lam:.6g})", abs(got_lam - lam), tol),
        at_most("loss of a satisfied margin (lengths 0.95 present, 0.05 absent)", satisfied, 0.0),
        at_most("|total - sum over classes (batch mean)|", abs(total - summed), tol),
    ]


@dataclass(frozen=True)
class MarginLossArgs(CheckArgs):
    """The paper's constants: ``m_plus`` (m⁺), ``m_minus`` (m⁻) and ``lam`` (λ)."""

    m_plus: float
    m_minus: float
    lam: float


@claim_check(args=MarginLossArgs)
def margin_loss_constants(ctx: CheckContext) -> Evidence:
    """The margin loss's constants, measured; args: ``m_plus``, ``m_minus``, ``lam`` (paper)."""
    from models.capsules import margin_loss

    args = MarginLossArgs.of(ctx)
    findings = measure_margin_loss(margin_loss, args.m_plus, args.m_minus, args.lam)
    return property_evidence(
        "models.capsules.margin_loss evaluated at probe lengths; constants solved from the losses",
        findings,
    )


# The training loss computes in float32; its constants are solved to float32 rounding.
TRAINING_TOL = 1e-5


def schedule_margin_loss(model_name: str, preset: str, schedule_name: str) -> MarginLoss:
    """The margin term of ``model_name``'s training loss under a schedule, as a
    :data:`MarginLoss`.

    Probe lengths of 2-3 classes are padded with satisfied absent classes (length 0.05). The
    ``"paper"`` reduction is the training loss of the batch; ``"none"`` gives each L_k as the
    loss of a one-image batch whose other classes are all satisfied (0.95 present, 0.05 absent).
    The reconstruction term is switched off (``recon_weight=0``); its weight is measured by
    ``models.checks.reconstruction``.
    """
    import dataclasses

    from models.capsules import ClassifierOutput
    from models.registry import build_model
    from models.training.loop import training_loss
    from models.training.schedules import resolve_schedule

    model = build_model(model_name, preset)
    schedule = dataclasses.replace(resolve_schedule(model_name, schedule_name, None, preset),
                                   recon_weight=0.0)
    classes = model.config.num_classes

    def total(lengths: Tensor, targets: Tensor) -> Tensor:
        padded = torch.full((lengths.shape[0], classes), ABSENT_SATISFIED, dtype=lengths.dtype)
        padded[:, : lengths.shape[1]] = lengths
        output = ClassifierOutput(scores=padded, poses=None)
        return training_loss(model, output, targets, padded, None, schedule).double()

    def loss(lengths: Tensor, targets: Tensor, reduction: str = "paper") -> Tensor:
        if reduction == "paper":
            return total(lengths, targets)
        per_class = torch.zeros_like(lengths)
        for row, column in itertools.product(range(lengths.shape[0]), range(lengths.shape[1])):
            probe = torch.full((1, lengths.shape[1]), ABSENT_SATISFIED, dtype=lengths.dtype)
            probe[0, targets[row]] = PRESENT_SATISFIED
            probe[0, column] = lengths[row, column]
            per_class[row, column] = total(probe, targets[row : row + 1])
        return per_class

    return loss


@dataclass(frozen=True)
class TrainingMarginArgs(MarginLossArgs):
    """The paper's constants, and whose training loss: ``model``, ``preset`` and the training
    ``schedule`` (``models.training.schedules``)."""

    model: str = "capsnet"
    preset: str = "mnist"
    schedule: str = "paper"


@claim_check(args=TrainingMarginArgs)
def training_margin_loss(ctx: CheckContext) -> Evidence:
    """The margin term of a training schedule's loss, its constants measured."""
    args = TrainingMarginArgs.of(ctx)
    loss = schedule_margin_loss(args.model, args.preset, args.schedule)
    findings = measure_margin_loss(loss, args.m_plus, args.m_minus, args.lam, tol=TRAINING_TOL)
    model_name, preset, schedule = args.model, args.preset, args.schedule
    return property_evidence(
        f"the margin term of {model_name}/{preset}'s training loss under the {schedule!r} "
        "schedule (models.training.loop.training_loss, float32), evaluated at probe lengths; "
        "constants solved from the losses",
        findings,
    )
