"""Epoch-to-epoch randomness of the training loop: each epoch visits the images in a new order
with new augmentation, and the same seed repeats both (arxiv:1710.09829 §5 trains on freshly
shifted images; every official code reshuffles each epoch).

Measured by running the loop's own epoch function twice per seed on one-pixel probe images
(:mod:`models.checks.loop_probe`): the order is the sequence of image identities the model
receives, the augmentation the displacement each image got.
"""

from __future__ import annotations

from dataclasses import dataclass

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import Finding, at_most, property_evidence
from models.checks.loop_probe import EpochRecord, probe_images, run_epochs


@dataclass(frozen=True)
class EpochArgs(CheckArgs):
    """``model``, ``schedule``, ``dataset`` as for a training claim; ``images`` probe images."""

    model: str = "capsnet"
    schedule: str = "paper"
    dataset: str = "mnist"
    images: int = 240


def same_shift_share(a: EpochRecord, b: EpochRecord) -> float:
    """Share of images that got the same displacement in both epochs."""
    first, second = a.shifts(), b.shifts()
    common = [key for key in first if key >= 0 and key in second]
    return sum(first[key] == second[key] for key in common) / max(len(common), 1)


def batches(record: EpochRecord, size: int) -> list[frozenset[int]]:
    """The sets of images that made up each batch, in order."""
    order = record.order
    return [frozenset(order[start: start + size]) for start in range(0, len(order), size)]


@claim_check(args=EpochArgs)
def epoch_randomness(ctx: CheckContext) -> Evidence:
    """Two epochs of the loop, twice with the run's seed and once with the next seed: the
    second epoch's order, batches and augmentation differ from the first's; the same seed
    repeats order and augmentation exactly; another seed orders differently."""
    from models.training.schedules import resolve_schedule

    args = EpochArgs.of(ctx)
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    images, labels = probe_images(args.images)
    first = run_epochs(schedule, images, labels, [0, 1], ctx.seed)
    again = run_epochs(schedule, images, labels, [0, 1], ctx.seed)
    other = run_epochs(schedule, images, labels, [0, 1], ctx.seed + 1)
    size = schedule.batch_size
    findings = [
        Finding("every image seen once per epoch",
                all(sorted(record.order) == list(range(args.images)) for record in first),
                f"{[len(record.order) for record in first]} images"),
        Finding("epoch 1 visits the images in another order than epoch 0",
                first[0].order != first[1].order, "orders compared"),
        Finding("epoch 1's first batch holds other images than epoch 0's (batch "
                f"{min(size, args.images)} of {args.images})",
                batches(first[0], size)[0] != batches(first[1], size)[0]
                or size >= args.images, "batches compared"),
        Finding("the same seed repeats every epoch's order",
                [r.order for r in first] == [r.order for r in again], "orders compared"),
        Finding("the same seed repeats every epoch's augmentation",
                [r.seen for r in first] == [r.seen for r in again], "images compared"),
        Finding("the next seed orders epoch 0 differently", first[0].order != other[0].order,
                "orders compared"),
    ]
    if schedule.augment != "none":
        findings.append(at_most("share of images shifted alike in epochs 0 and 1 "
                                "(independent draws: about 1/25 or less)",
                                same_shift_share(first[0], first[1]), 0.15))
    return property_evidence(
        f"{args.model}/{args.schedule} on {args.dataset}: epochs 0 and 1 of the training loop "
        f"on {args.images} one-pixel images, seeds {ctx.seed} (twice) and {ctx.seed + 1}, "
        f"augmentation {schedule.augment}", findings)
