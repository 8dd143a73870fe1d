"""What the training loop does with a named schedule: its learning rate at a given point, and
how far its augmentation shifts an image (arxiv:1710.09829 §5; arxiv:2101.12491's official code).

Both are measured through the code the loop runs (``Schedule.lr_at``, ``train_loop.augment``),
never read off the schedule's fields.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence


@dataclass(frozen=True)
class ScheduleArgs(CheckArgs):
    """``model``, ``schedule`` and ``dataset`` (as for a training claim), and the point
    (0-based ``epoch``, global optimiser ``step``) where the learning rate is read."""

    model: str = "capsnet"
    schedule: str = "paper"
    dataset: str = "mnist"
    epoch: int = 0
    step: int = 0


@claim_check(args=ScheduleArgs)
def learning_rate_at(ctx: CheckContext) -> Evidence:
    """Measured: the learning rate the training loop sets at (``epoch``, ``step``)."""
    from models.training.schedules import resolve_schedule

    args = ScheduleArgs.of(ctx)
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    rate = schedule.lr_at(args.epoch, args.step)
    return Evidence(measured=rate, details=(
        f"{args.model}/{args.schedule} on {args.dataset}: learning rate {rate:.6g} at epoch "
        f"{args.epoch}, step {args.step} ({schedule.optimizer}, decay {schedule.decay})"))


@claim_check(args=ScheduleArgs)
def largest_shift(ctx: CheckContext) -> Evidence:
    """Measured: the largest displacement, in pixels along either axis, that the schedule's
    augmentation gives a one-pixel image, over 400 draws (0 when it does not shift)."""
    from models.training.loop import Arrays, augment
    from models.training.schedules import resolve_schedule

    args = ScheduleArgs.of(ctx)
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    images = np.zeros((400, 1, 28, 28), dtype=np.uint8)
    images[:, 0, 14, 14] = 255
    shifted = augment(Arrays(images, np.zeros(400, dtype=np.int64)), schedule,
                      np.random.default_rng(ctx.seed)).images
    found = np.argwhere(shifted[:, 0] == 255)  # (image, row, column) of each bright pixel
    reach = int(np.abs(found[:, 1:] - 14).max()) if len(found) else -1
    return Evidence(measured=reach, details=(
        f"{args.model}/{args.schedule} on {args.dataset}: {len(found)} of 400 one-pixel images "
        f"keep their pixel; largest shift {reach} px"))
