"""Wrong variants of the training loop: its learning-rate path, its shuffling and its shifts
(arxiv:1710.09829 §5; the official codes of arxiv:2101.12491 and arxiv:2002.04764).

Each is a slip real ports make, written out in full here: a variant never calls the function it
replaces. ``_epoch`` is one copy of ``models.training.loop.train_one_epoch`` with two switches
for the slips that live inside the epoch.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from claimcheck import wrong_variant
from models.variants.patching import module, replace


def _epoch(*, seed_per_epoch: bool, rate_each_step: bool) -> Any:
    """A copy of the loop's epoch; ``seed_per_epoch=False`` draws order and shifts from the seed
    alone (one stream reused every epoch), ``rate_each_step=False`` sets the rate only when the
    epoch starts."""
    loop = module("models.training.loop")

    def train_one_epoch(model: Any, optimizer: Any, data: Any, schedule: Any, batches: Any,
                        settings: Any, run: Any, epoch: int, step: int) -> int:
        key = [run.seed, epoch] if seed_per_epoch else [run.seed]
        rng = np.random.default_rng(key + ([settings.data_stream] if settings.data_stream else []))
        for group in optimizer.param_groups:
            group["lr"] = schedule.lr_at(epoch, step)
        model.train()
        order = rng.permutation(len(data.labels))
        epoch_start, loss_sum, seen = time.perf_counter(), 0.0, 0
        for start in range(0, len(order), schedule.batch_size):
            index = np.sort(order[start: start + schedule.batch_size])
            components = None if data.components is None else data.components[index]
            batch = loop.augment(loop.Arrays(data.images[index], data.labels[index], components),
                                 schedule, rng)
            inputs, pixels = batches.images(batch.images)
            labels = batches.tensor(batch.labels)
            parts = None if batch.components is None else batches.images(batch.components)[1]
            output = model(inputs)
            loss = loop.training_loss(model, output, labels, pixels, parts, schedule)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if rate_each_step and schedule.decay == "per_step":
                for group in optimizer.param_groups:
                    group["lr"] = schedule.lr_at(epoch, step)
            loss_sum += float(loss.detach()) * len(index)
            seen += len(index)
        run.train_seconds += time.perf_counter() - epoch_start
        run.images_trained += seen
        run.epochs.append({"epoch": epoch + 1, "loss": loss_sum / max(seen, 1),
                           "accuracy": float("nan"), "seconds": run.train_seconds,
                           "lr": optimizer.param_groups[0]["lr"], "images": run.images_trained})
        return step

    return train_one_epoch


@wrong_variant
def loop_rate_set_once_per_epoch() -> None:
    """The decayed learning rate set only at the start of each epoch: a per-step decay (CapsNet's
    ×0.96 every 2,000 steps) then moves in epoch-sized jumps."""
    replace(module("models.training.loop"), "train_one_epoch",
            _epoch(seed_per_epoch=True, rate_each_step=False))


@wrong_variant
def loop_same_order_every_epoch() -> None:
    """Shuffling and augmentation drawn from the seed alone: every epoch sees the images in the
    same order with the same shifts."""
    replace(module("models.training.loop"), "train_one_epoch",
            _epoch(seed_per_epoch=False, rate_each_step=True))


@wrong_variant
def schedule_staircase_decay() -> None:
    """A staircase where the code decays smoothly: the rate drops by the whole factor at every
    multiple of the decay period (TF's ``staircase=True``), flat in between."""
    schedules = module("models.training.schedules")

    def lr_at(self: Any, epoch: int, step: int) -> float:
        if self.decay == "per_epoch":
            rate = self.lr * self.decay_rate**epoch
        elif self.decay == "per_step":
            rate = self.lr * self.decay_rate ** math.floor(step / self.decay_steps)
        elif self.decay == "multistep":
            rate = self.lr * self.decay_rate ** sum(epoch >= m for m in self.milestones)
        else:
            rate = self.lr
        return float(max(rate, self.lr_floor))

    replace(schedules.Schedule, "lr_at", lr_at)


@wrong_variant
def schedule_smooth_epoch_decay() -> None:
    """A smooth per-update decay where the code decays once per epoch: Efficient-CapsNet's
    ×0.97 per epoch ported as ×0.97 every 3,750 updates (an MNIST epoch at batch 16), applied
    after every update, so the rate falls inside each epoch."""
    schedules = module("models.training.schedules")

    def smooth(schedule: Any) -> Any:
        if schedule.decay != "per_epoch":
            return schedule
        return dataclasses.replace(schedule, decay="per_step", decay_steps=3750)

    table = {model: {name: smooth(schedule) for name, schedule in named.items()}
             for model, named in schedules.SCHEDULES.items()}
    replace(schedules, "SCHEDULES", table)


@wrong_variant
def schedule_milestones_off_by_one() -> None:
    """The multistep decay a step early: ``epoch + 1 >= milestone`` (a 1-based epoch count fed
    to a 0-based rule), so the rate drops after epochs 149 and 249 instead of 150 and 250."""
    schedules = module("models.training.schedules")

    def lr_at(self: Any, epoch: int, step: int) -> float:
        if self.decay == "per_epoch":
            rate = self.lr * self.decay_rate**epoch
        elif self.decay == "per_step":
            rate = self.lr * self.decay_rate ** (step / self.decay_steps)
        elif self.decay == "multistep":
            rate = self.lr * self.decay_rate ** sum(epoch + 1 >= m for m in self.milestones)
        else:
            rate = self.lr
        return float(max(rate, self.lr_floor))

    replace(schedules.Schedule, "lr_at", lr_at)


def _shifts(draw: Any) -> None:
    """The loop's shift augmentation with the offsets drawn by ``draw(rng, reach, count)``,
    which returns (dy, dx) as indices into the padded image (0 .. 2·reach)."""
    loop = module("models.training.loop")

    def shift_augment(images: np.ndarray, reach: int, rng: np.random.Generator) -> np.ndarray:
        count, channels, height, width = images.shape
        padded = np.pad(images, ((0, 0), (0, 0), (reach, reach), (reach, reach)))
        dy, dx = draw(rng, reach, count)
        rows = dy[:, None] + np.arange(height)
        cols = dx[:, None] + np.arange(width)
        return padded[np.arange(count)[:, None, None, None],
                      np.arange(channels)[None, :, None, None],
                      rows[:, None, :, None], cols[:, None, None, :]]

    replace(loop, "shift_augment", shift_augment)


@wrong_variant
def shifts_one_direction() -> None:
    """Shifts drawn from 0..reach only (``randint(0, reach + 1)`` where -reach..reach was
    meant): images move right and down, never left or up."""
    _shifts(lambda rng, reach, count: rng.integers(reach, 2 * reach + 1, size=(2, count)))


@wrong_variant
def shifts_one_per_batch() -> None:
    """One shift drawn per batch and applied to every image in it (a scalar where a vector of
    per-image offsets was meant)."""
    _shifts(lambda rng, reach, count: np.repeat(rng.integers(0, 2 * reach + 1, size=(2, 1)),
                                                count, axis=1))


@wrong_variant
def shifts_short_range() -> None:
    """Shifts of -reach..reach-1: an exclusive upper bound (``integers(-r, r)``) that never
    moves an image by +reach."""
    _shifts(lambda rng, reach, count: rng.integers(0, 2 * reach, size=(2, count)))


@wrong_variant
def shifts_same_both_axes() -> None:
    """One offset used for rows and columns: images move only along the diagonal."""
    def draw(rng: np.random.Generator, reach: int, count: int) -> np.ndarray:
        offset = rng.integers(0, 2 * reach + 1, size=count)
        return np.stack([offset, offset])

    _shifts(draw)
