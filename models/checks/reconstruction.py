"""The reconstruction term of the training loss (arxiv:1710.09829 §4.1, Fig. 2).

§4.1: "During training, we mask out all but the activity vector of the correct digit capsule",
the decoder's output is compared with the pixels by a sum of squared differences, and the loss
is scaled down by 0.0005. The checks run the wiki's own training loss
(``models.training.loop.training_loss``) with a named schedule, so they test the path training
uses, not a separate formula:

* ``reconstruction_scale`` solves for the coefficient: two pixel targets (one of them the
  decoder's own output) give two losses whose margin parts are identical, so
  (L_a − L_b) / (SSE_a − SSE_b) is the weight per unit of the per-image sum of squared errors,
  averaged over the batch. Measured: that coefficient (a
  float); 0.0005 for the paper's objective. A mean over pixels instead of a sum reads 784× too
  small; a sum over the batch instead of a mean reads B× too large.
* ``reconstruction_uses_true_label``: the reconstruction term's gradient reaches only the true
  class's capsule, even when another capsule is longer.
* ``decoder_layers``: the decoder is the Fig. 2 stack (FC 512 ReLU, FC 1024 ReLU, FC sigmoid)
  fed the masked, flattened class capsules.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import DTYPE, Finding, at_least, at_most, generator, property_evidence

LABELS = (3, 1, 4, 1)


@dataclass(frozen=True)
class ModelArgs(CheckArgs):
    """The ``model`` and ``preset`` built (default capsnet/mnist), trained with ``schedule``."""

    model: str = "capsnet"
    preset: str = "mnist"
    schedule: str = "paper"


def _setup(ctx: CheckContext) -> tuple[Any, Any, Tensor, Tensor]:
    from models.registry import build_model
    from models.training.schedules import resolve_schedule

    args = ModelArgs.of(ctx)
    model_name, preset = args.model, args.preset
    schedule = resolve_schedule(model_name, args.schedule, None, preset)
    torch.manual_seed(ctx.seed)
    model = build_model(model_name, preset).double().eval()
    if getattr(model, "decoder", None) is None:
        raise ValueError(f"{model_name}/{preset} has no decoder")
    gen = generator(ctx.seed)
    classes = model.config.num_classes
    poses = torch.randn(len(LABELS), classes, model.config.class_dim, generator=gen,
                        dtype=DTYPE) * 0.3
    labels = torch.tensor(LABELS)
    return model, schedule, poses, labels


def _loss(model: Any, schedule: Any, poses: Tensor, labels: Tensor, pixels: Tensor) -> Tensor:
    from models.capsules import ClassifierOutput, capsule_length
    from models.training.loop import training_loss

    output = ClassifierOutput(scores=capsule_length(poses), poses=poses)
    return training_loss(model, output, labels, pixels, None, schedule)


@claim_check(args=ModelArgs)
def reconstruction_scale(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §4.1: the weight of the per-image sum of squared errors in the training
    loss. Args: ``model``, ``preset``, ``schedule`` (default capsnet, mnist, paper).
    Measured: the coefficient (a float)."""

    model, schedule, poses, labels = _setup(ctx)
    coefficient, losses, sse = measure_scale(model, schedule, poses, labels, ctx.seed)
    config = model.config
    pixels = config.in_channels * config.image_size * config.image_size
    return Evidence(
        measured=coefficient,
        details=(
            f"{schedule.name} schedule of {type(model).__name__}: losses {losses[0]:.6g} and "
            f"{losses[1]:.6g} for two targets whose per-image SSE (batch mean) is "
            f"{sse[0]:.6g} and {sse[1]:.6g}; coefficient {coefficient:.6g} per unit of SSE "
            f"({coefficient * pixels:.6g} per unit of per-pixel MSE)"
        ),
    )


def measure_scale(model: Any, schedule: Any, poses: Tensor, labels: Tensor,
                  seed: int) -> tuple[float, list[float], list[float]]:
    """(coefficient, the two losses, the two batch-mean per-image SSEs)."""
    from models.capsules import label_mask

    config = model.config
    shape = (len(labels), config.in_channels, config.image_size, config.image_size)
    with torch.no_grad():
        image = model.reconstruct(poses, label_mask(labels, poses.shape[1], DTYPE))
        # The decoder's own output as one target (SSE 0), random pixels as the other.
        targets = [image.clone(), torch.rand(shape, generator=generator(seed + 1), dtype=DTYPE)]
        losses = [float(_loss(model, schedule, poses, labels, t)) for t in targets]
    sse = [float((image - t).pow(2).flatten(1).sum(1).mean()) for t in targets]
    return (losses[0] - losses[1]) / (sse[0] - sse[1]), losses, sse


@claim_check(args=ModelArgs)
def reconstruction_uses_true_label(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §4.1: in training the decoder sees only the correct digit capsule.
    The poses are set so that a wrong capsule is the longest for every image."""
    model, schedule, poses, labels = _setup(ctx)
    return property_evidence(
        f"{type(model).__name__} training loss ({schedule.name} schedule), {len(LABELS)} images "
        "whose longest capsule is a wrong class",
        measure_label_mask(model, schedule, poses, labels, ctx.seed),
    )


def measure_label_mask(model: Any, schedule: Any, poses: Tensor, labels: Tensor,
                       seed: int) -> list[Finding]:
    """The reconstruction term's gradient with respect to each capsule's pose."""
    rows = torch.arange(len(labels))
    with torch.no_grad():
        poses = poses.clone()
        wrong = (labels + 1) % poses.shape[1]
        poses[rows, wrong] *= 4.0
        poses[rows, labels] *= 0.25
    config = model.config
    pixels = torch.rand(len(labels), config.in_channels, config.image_size, config.image_size,
                        generator=generator(seed + 2), dtype=DTYPE)
    leaf = poses.requires_grad_(True)
    without = dataclasses.replace(schedule, recon_weight=0.0)
    term = _loss(model, schedule, leaf, labels, pixels) - _loss(model, without, leaf, labels,
                                                                pixels)
    (grad,) = torch.autograd.grad(term, leaf)
    per_capsule = grad.abs().sum(-1)  # (B, K)
    mask = torch.ones_like(per_capsule, dtype=torch.bool)
    mask[rows, labels] = False
    return [
        at_most("max |gradient of the reconstruction term| on other capsules",
                float(per_capsule[mask].max()), 0.0),
        at_least("min |gradient| on the true class's capsule",
                 float(per_capsule[rows, labels].min()), 1e-12),
    ]


def measure_decoder(model: Any, poses: Tensor, mask: Tensor,
                    widths: tuple[int, ...]) -> list[Finding]:
    """Fig. 2: three fully connected layers, ReLU, ReLU, sigmoid, fed the masked capsules.

    The reference reads only the decoder's three ``Linear`` layers (in order) and applies the
    activations itself, so a missing sigmoid, an extra activation or a decoder fed anything but
    the masked, flattened capsules shows up as a difference.
    """
    linears = [m for m in model.decoder.modules() if isinstance(m, nn.Linear)]
    shapes = [(m.in_features, m.out_features) for m in linears]
    expected_shapes = list(itertools.pairwise(widths))
    findings = [Finding("fully connected layers (in, out)", shapes == expected_shapes,
                        f"{shapes}, expected {expected_shapes}")]
    if shapes != expected_shapes:
        return findings
    x = (poses * mask.unsqueeze(-1)).flatten(1)
    for linear in linears[:-1]:
        x = torch.relu(linear(x))
    expected = torch.sigmoid(linears[-1](x))
    got = model.reconstruct(poses, mask).flatten(1)
    findings.append(at_most("max |reconstruction - sigmoid(L3 relu(L2 relu(L1 masked)))|",
                            float((got - expected).abs().max()), 1e-12))
    return findings


@claim_check(args=ModelArgs)
def decoder_layers(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 fig. 2 and §4.1 on the preset's decoder (args: ``model``, ``preset``):
    the masked class capsules go through FC 512 (ReLU), FC 1024 (ReLU), FC pixels (sigmoid)."""
    from models.capsules import label_mask

    model, _, poses, labels = _setup(ctx)
    config = model.config
    pixels = config.in_channels * config.image_size * config.image_size
    widths = (config.num_classes * config.class_dim, 512, 1024, pixels)
    with torch.no_grad():
        findings = measure_decoder(model, poses * 5.0, label_mask(labels, poses.shape[1], DTYPE),
                                   widths)
    return property_evidence(
        f"{type(model).__name__} decoder, {len(LABELS)} masked pose sets (float64)", findings
    )
