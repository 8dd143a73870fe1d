"""Running the training loop itself on probe data, and reading what it really did.

The schedule and data checks measure through ``models.training.loop.train_one_epoch``, the
function ``run_seed`` calls for every epoch, never through a helper beside it (``Schedule.lr_at``,
``augment``): a port that sets the rate only at the start of an epoch, draws one shift per batch
or reuses one order in every epoch is then seen, because the probe sees what the loop hands the
optimiser and the model.

* :class:`ProbeModel` is a one-parameter "classifier" that records every input batch the loop
  gives it (the images after augmentation, in the loop's order).
* Probe images are one-pixel images: image ``n`` is black except for one pixel of value
  ``n + 1`` at the centre, so a recorded image tells which image it is (the value) and how far
  the loop moved it (the pixel's displacement).
* :func:`run_epochs` runs the loop's epochs with the schedule's real optimiser and records the
  learning rate of every update through an optimiser step hook.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from models.capsules import ClassifierOutput

SIDE = 28  # probe images are 1×28×28, MNIST's size
CENTRE = SIDE // 2
MAX_IMAGES = 255  # identities are pixel values 1..255


class ProbeModel(nn.Module):
    """Logits from one parameter; keeps a copy of every input batch (B, C, H, W)."""

    score_kind = "logits"

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(num_classes))
        self.inputs: list[Tensor] = []

    def forward(self, x: Tensor) -> ClassifierOutput:
        self.inputs.append(x.detach().clone())
        scores = x.flatten(1).mean(1, keepdim=True) * 0.0 + self.weight  # (B, K)
        return ClassifierOutput(scores=scores)


def probe_images(count: int, channels: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``count`` one-pixel uint8 images (N, C, 28, 28), pixel ``n + 1`` at the centre of
    image ``n``, and labels ``n % 10``."""
    if not 1 <= count <= MAX_IMAGES:
        raise ValueError(f"probe images are identified by one pixel value: 1..{MAX_IMAGES}")
    images = np.zeros((count, channels, SIDE, SIDE), dtype=np.uint8)
    images[np.arange(count), :, CENTRE, CENTRE] = np.arange(1, count + 1, dtype=np.uint8)[:, None]
    return images, np.arange(count, dtype=np.int64) % 10


@dataclass
class EpochRecord:
    """What one epoch of the loop did: each update's learning rate, and each image it fed the
    model as (identity, dy, dx) in the loop's order (identity ``-1`` when no probe pixel was
    found, for example a shift that pushed it off the image)."""

    rates: list[float] = field(default_factory=list)
    seen: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def order(self) -> list[int]:
        return [identity for identity, _, _ in self.seen]

    def shifts(self) -> dict[int, tuple[int, int]]:
        """Image identity -> (dy, dx) that the loop gave it in this epoch."""
        return {identity: (dy, dx) for identity, dy, dx in self.seen}


def read_batch(batch: Tensor) -> list[tuple[int, int, int]]:
    """(identity, dy, dx) of each recorded probe image (pixels scaled back to 0..255)."""
    values = torch.round(batch[:, 0].double() * 255.0).to(torch.int64)  # (B, H, W)
    found = []
    for image in values:
        where = torch.nonzero(image)
        if len(where) != 1:
            found.append((-1, 0, 0))
            continue
        row, col = (int(v) for v in where[0])
        found.append((int(image[row, col]) - 1, row - CENTRE, col - CENTRE))
    return found


def run_epochs(schedule: Any, images: np.ndarray, labels: np.ndarray, epochs: Sequence[int],
               seed: int, start_step: int = 0, read: bool = True) -> list[EpochRecord]:
    """Run ``train_one_epoch`` of the training loop for each epoch number in ``epochs`` on one
    probe model with ``schedule``'s own optimiser, starting at global step ``start_step``;
    ``read=False`` records only the rates (the images need not be probe images)."""
    from models.training.loop import Arrays, Batches, LoopSettings, SeedRun, train_one_epoch

    model = ProbeModel()
    optimizer = schedule.make_optimizer(model.parameters())
    records: list[EpochRecord] = []

    def rate_hook(opt: torch.optim.Optimizer, *_: Any) -> None:
        records[-1].rates.append(float(opt.param_groups[0]["lr"]))

    optimizer.register_step_pre_hook(rate_hook)
    settings = LoopSettings(epochs=max(epochs) + 1, device="cpu", amp=False, deadline=None,
                            time_limit_s=None)
    run, step = SeedRun(seed), start_step
    for epoch in epochs:
        records.append(EpochRecord())
        model.inputs.clear()
        step = train_one_epoch(model, optimizer, Arrays(images, labels), schedule,
                               Batches("cpu", None, None), settings, run, epoch, step)
        for batch in model.inputs if read else ():
            records[-1].seen.extend(read_batch(batch))
    return records
