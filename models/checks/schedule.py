"""What the training loop does with a named schedule: the learning rate it puts into the optimiser
at a given update, and the shifts its augmentation gives the images it feeds the model
(arxiv:1710.09829 §5; arxiv:2101.12491's and arxiv:2002.04764's official code).

Both are measured by running the loop's own epoch function on probe data
(:mod:`models.checks.loop_probe`), never read off the schedule's fields or its ``lr_at`` helper:
the rate is the one the optimiser holds when it takes the update, and a shift is the
displacement of a one-pixel image as the model receives it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import Finding, at_least, at_most, property_evidence
from models.checks.loop_probe import probe_images, run_epochs

MAX_UPDATES = 20_000  # a probe of the rate runs at most this many loop updates


@dataclass(frozen=True)
class LoopRateArgs(CheckArgs):
    """``model``, ``schedule`` and ``dataset`` (as for a training claim); the loop runs epoch
    ``epoch`` (0-based) starting at global update ``epoch_start``, and the rate of update
    ``step`` (0-based, global, at least ``epoch_start``) is read from the optimiser."""

    model: str = "capsnet"
    schedule: str = "paper"
    dataset: str = "mnist"
    epoch: int = 0
    epoch_start: int = 0
    step: int = 0


@claim_check(args=LoopRateArgs)
def loop_learning_rate(ctx: CheckContext) -> Evidence:
    """Measured: the learning rate the optimiser holds when the training loop takes update
    ``step``, running epoch ``epoch`` from update ``epoch_start`` on blank probe images."""
    from models.training.schedules import resolve_schedule

    args = LoopRateArgs.of(ctx)
    updates = args.step - args.epoch_start + 1
    if not 1 <= updates <= MAX_UPDATES:
        raise ValueError(f"step must lie in [epoch_start, epoch_start + {MAX_UPDATES}), got "
                         f"step {args.step} with epoch_start {args.epoch_start}")
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    images = np.zeros((updates * schedule.batch_size, 1, 4, 4), dtype=np.uint8)
    labels = np.zeros(len(images), dtype=np.int64)
    record = run_epochs(schedule, images, labels, [args.epoch], ctx.seed, args.epoch_start,
                        read=False)[0]
    if len(record.rates) != updates:
        raise RuntimeError(f"the loop took {len(record.rates)} updates for {len(images)} "
                           f"images at batch {schedule.batch_size}, not {updates}")
    rate = record.rates[-1]
    return Evidence(measured=rate, details=(
        f"{args.model}/{args.schedule} on {args.dataset}: the loop ran epoch {args.epoch} from "
        f"update {args.epoch_start}; the optimiser held {record.rates[0]:.6g} at update "
        f"{args.epoch_start} and {rate:.6g} at update {args.step} ({schedule.optimizer}, "
        f"batch {schedule.batch_size})"))


@dataclass(frozen=True)
class ShiftArgs(CheckArgs):
    """``model``, ``schedule``, ``dataset`` as for a training claim; ``reach``: the largest
    shift in px the statement allows; ``images`` probe images per epoch; ``epochs`` run."""

    model: str = "capsnet"
    schedule: str = "paper"
    dataset: str = "mnist"
    reach: int = 2
    images: int = 250
    epochs: int = 8


def chi_square_uniform(counts: Counter[int] | Counter[tuple[int, int]], cells: list[object],
                       total: int) -> float:
    """Pearson's X² of ``counts`` against a uniform distribution over ``cells``."""
    expected = total / len(cells)
    return float(sum((counts.get(cell, 0) - expected) ** 2 / expected  # type: ignore[call-overload]
                     for cell in cells))


def chi_bound(cells: int, p: float = 1e-4) -> float:
    """The upper X² bound at tail probability ``p`` for a uniform test over ``cells`` cells
    (Wilson–Hilferty's cube-root normal approximation, within 3% for 4 or more degrees of
    freedom): a faithful loop fails by chance about once in 10,000 seeds."""
    df = cells - 1
    z = NormalDist().inv_cdf(1.0 - p)
    return float(df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)) ** 0.5) ** 3)


@claim_check(args=ShiftArgs)
def shift_distribution(ctx: CheckContext) -> Evidence:
    """The whole distribution of the shifts the training loop gives the images it feeds the
    model: every integer in [-reach, reach] on each axis, uniform (X² at p = 1e-4), nothing
    beyond, rows and columns drawn independently, every image drawn on its own (not one shift
    per batch), and a spread (std) equal to a uniform's, √(reach (reach + 1) / 3)."""
    from models.training.schedules import resolve_schedule

    args = ShiftArgs.of(ctx)
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    images, labels = probe_images(args.images)
    records = run_epochs(schedule, images, labels, list(range(args.epochs)), ctx.seed)
    seen = [entry for record in records for entry in record.seen]
    lost = sum(identity < 0 for identity, _, _ in seen)
    rows = Counter(dy for identity, dy, _ in seen if identity >= 0)
    cols = Counter(dx for identity, _, dx in seen if identity >= 0)
    joint = Counter((dy, dx) for identity, dy, dx in seen if identity >= 0)
    total = len(seen) - lost
    r = args.reach
    span = list(range(-r, r + 1))
    pairs: list[object] = [(a, b) for a in span for b in span]
    findings = [
        at_most(f"probe images lost by the loop (of {len(seen)})", lost, 0),
        Finding("row shifts seen", set(rows) == set(span), str(sorted(rows))),
        Finding("column shifts seen", set(cols) == set(span), str(sorted(cols))),
        at_most("X² of row shifts against uniform", chi_square_uniform(rows, list(span), total),
                chi_bound(len(span))),
        at_most("X² of column shifts against uniform",
                chi_square_uniform(cols, list(span), total), chi_bound(len(span))),
        at_most("X² of (row, column) pairs against uniform (independent axes)",
                chi_square_uniform(joint, pairs, total), chi_bound(len(pairs))),
    ]
    if total:
        values = np.array([dy for identity, dy, _ in seen if identity >= 0], dtype=float)
        wanted = (r * (r + 1) / 3.0) ** 0.5
        findings.append(at_most(f"|std of row shifts - {wanted:.3f}| (a uniform's spread)",
                                abs(float(values.std()) - wanted), 0.05 * max(wanted, 1.0)))
    neighbours = [(a[1], a[2]) == (b[1], b[2])
                  for record in records for a, b in zip(record.seen, record.seen[1:], strict=False)
                  if a[0] >= 0 and b[0] >= 0]
    if neighbours:
        same = sum(neighbours) / len(neighbours)
        findings.append(at_most("share of neighbouring images in a batch with one shift "
                                f"(independent: {1 / len(pairs):.3f})", same, 3.0 / len(pairs)))
        findings.append(at_least("neighbouring pairs compared", len(neighbours), 100))
    return property_evidence(
        f"{args.model}/{args.schedule} on {args.dataset}: {args.epochs} epoch(s) of the training "
        f"loop on {args.images} one-pixel images, seed {ctx.seed}", findings)
