"""Named training schedules: the papers' text (``paper``) and their official code (``official``).

A :class:`Schedule` holds the optimiser, learning-rate law, batch size, epoch count of the full
protocol, loss and augmentation, and says where each value comes from. ``unstated`` lists values
that neither the paper nor the code fixes (we chose them); ``departures`` lists places where we
knowingly do *not* follow the protocol. A run is ``exact`` only when it follows a schedule without
departures on the paper's own data (see :mod:`models.training.run`).

Sources are the fact sheets in ``shared/reference``:

* arxiv:2101.12491 (Efficient-CapsNet) §6 "Training and evaluation as coded": Adam 5e-4,
  lr·0.97^epoch floored at 5e-5, batch 16, 150 epochs, margin loss + 0.392·MSE reconstruction.
  The paper's own training section could not be read, so there is no ``paper`` schedule.
* arxiv:1710.09829 (CapsNet) §3-4 and the TF code (``experiment.py``): Adam lr 1e-3 decayed
  ×0.96 every 2,000 steps, margin loss eq. 4 + 0.0005·SSE reconstruction, 2-px shifts (§5).
  The code's margin loss is ½·mean over classes (``tf_official``), the paper's a sum.
* arxiv:2002.04764 (inverted dot-product routing) official ``main_capsule.py``: SGD lr 0.1,
  momentum 0.9, weight decay 5e-4, ×0.1 at epochs 150 and 250, 350 epochs, batch 128, random
  crop (pad 4) + horizontal flip + per-channel normalisation, cross-entropy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import torch

Optimizer = Literal["adam", "sgd"]
Decay = Literal["none", "per_epoch", "per_step", "multistep"]
Augment = Literal["none", "shift2", "crop_flip"]


@dataclass(frozen=True)
class Schedule:
    name: str
    source: str
    optimizer: Optimizer
    lr: float
    batch_size: int
    epochs: int
    decay: Decay = "none"
    decay_rate: float = 1.0
    decay_steps: int = 1
    lr_floor: float = 0.0
    milestones: tuple[int, ...] = ()
    momentum: float = 0.0
    weight_decay: float = 0.0
    loss: Literal["margin", "cross_entropy"] = "margin"
    margin_reduction: Literal["paper", "tf_official"] = "paper"
    recon_weight: float = 0.0
    recon_reduction: Literal["sse", "mse"] = "sse"
    augment: Augment = "none"
    paper_datasets: tuple[str, ...] = ()
    unstated: tuple[str, ...] = ()
    departures: tuple[str, ...] = ()

    def lr_at(self, epoch: int, step: int) -> float:
        """Learning rate for 0-based ``epoch`` and global optimiser ``step``."""
        if self.decay == "per_epoch":
            rate = self.lr * self.decay_rate**epoch
        elif self.decay == "per_step":
            rate = self.lr * self.decay_rate ** (step / self.decay_steps)
        elif self.decay == "multistep":
            rate = self.lr * self.decay_rate ** sum(epoch >= m for m in self.milestones)
        else:
            rate = self.lr
        return max(rate, self.lr_floor)

    def make_optimizer(self, parameters: Iterable[torch.nn.Parameter]) -> torch.optim.Optimizer:
        """The schedule's optimiser, in PyTorch's fused implementation where this torch build
        has one for the parameters' device (the CPU from torch 2.4), else the per-tensor loop.

        Both compute the same update (Adam: Kingma & Ba, Algorithm 1; SGD with momentum); the
        fused kernel makes one pass over each parameter instead of about ten elementwise ops,
        which was 12% of an Efficient-CapsNet training step at batch 16 on one CPU thread
        (``benchmarks/README.md``). The two differ only in rounding (multiply-adds where the
        loop uses ``lerp``), so a seed's figures can differ in their last digits between torch
        builds with and without it, as they do between builds anyway.
        """
        params = list(parameters)
        try:
            return self._optimizer(params, fused=True)
        except (RuntimeError, TypeError):  # no fused kernel for this device or torch build
            return self._optimizer(params)

    def _optimizer(self, params: list[torch.nn.Parameter], **fused: bool
                   ) -> torch.optim.Optimizer:
        if self.optimizer == "adam":
            return torch.optim.Adam(params, lr=self.lr, weight_decay=self.weight_decay, **fused)
        return torch.optim.SGD(params, lr=self.lr, momentum=self.momentum,
                               weight_decay=self.weight_decay, **fused)

    def describe(self) -> dict[str, Any]:
        """The plain-dict form stored with every result."""
        record = dataclasses.asdict(self)
        record["milestones"] = list(self.milestones)
        record["paper_datasets"] = list(self.paper_datasets)
        record["unstated"] = list(self.unstated)
        record["departures"] = list(self.departures)
        return record


EFFICIENT_OFFICIAL = Schedule(
    name="official",
    source="arxiv:2101.12491 official code (config.json, utils/tools.py, models/model.py)",
    optimizer="adam", lr=5e-4, batch_size=16, epochs=150,
    decay="per_epoch", decay_rate=0.97, lr_floor=5e-5,
    loss="margin", margin_reduction="paper", recon_weight=0.392, recon_reduction="mse",
    augment="shift2", paper_datasets=("mnist",),
    departures=("augmentation: the official code also rotates, squishes and erases; only random "
                "shifts of up to 2 px are implemented here",
                "model selection: the official code keeps the epoch with the best test accuracy; "
                "here the last epoch is reported"),
)

CAPSNET_PAPER = Schedule(
    name="paper",
    source="arxiv:1710.09829 §3-5 (margin loss eq. 4, 0.0005·SSE reconstruction, 2-px shifts), "
           "Adam with the TF code's decay (lr 1e-3, ×0.96 per 2,000 steps)",
    optimizer="adam", lr=1e-3, batch_size=128, epochs=50,
    decay="per_step", decay_rate=0.96, decay_steps=2000, lr_floor=1e-6,
    loss="margin", margin_reduction="paper", recon_weight=0.0005, recon_reduction="sse",
    augment="shift2", paper_datasets=("mnist", "multimnist"),
    unstated=("batch size 128 and 50 epochs: the paper states neither",),
)

CAPSNET_OFFICIAL = dataclasses.replace(
    CAPSNET_PAPER, name="official",
    source="arxiv:1710.09829 authors' TF code (research/capsules experiment.py, layers.py)",
    margin_reduction="tf_official",
)

INVERTED_OFFICIAL = Schedule(
    name="official",
    source="arxiv:2002.04764 official code (main_capsule.py)",
    optimizer="sgd", lr=0.1, batch_size=128, epochs=350, momentum=0.9, weight_decay=5e-4,
    decay="multistep", decay_rate=0.1, milestones=(150, 250),
    loss="cross_entropy", augment="crop_flip", paper_datasets=("cifar10", "cifar100"),
    departures=("model selection: the official code reports the best test epoch; here the last "
                "epoch is reported",),
)

# Registry model name -> schedule name -> Schedule.
SCHEDULES: dict[str, dict[str, Schedule]] = {
    "efficient_capsnet": {"official": EFFICIENT_OFFICIAL},
    # The wiki's routing ablation (models/ablation_models.py): the same schedule, so that only
    # the routing differs between the two arms.
    "efficient_capsnet_dynamic": {"official": dataclasses.replace(
        EFFICIENT_OFFICIAL, paper_datasets=(),
        source="the Efficient-CapsNet official schedule, for the wiki's routing ablation")},
    "capsnet": {"paper": CAPSNET_PAPER, "official": CAPSNET_OFFICIAL},
    # The §5 baseline CNN: "Adam", the same shifted data, cross-entropy, no decoder.
    # The wiki's narrow CapsNet (models/ablation_models.py): the paper's schedules.
    "capsnet_narrow": {name: dataclasses.replace(schedule, paper_datasets=())
                       for name, schedule in (("paper", CAPSNET_PAPER),
                                              ("official", CAPSNET_OFFICIAL))},
    "capsnet_baseline": {"paper": dataclasses.replace(
        CAPSNET_PAPER, loss="cross_entropy", recon_weight=0.0,
        source="arxiv:1710.09829 §5 baseline (Adam, 2-px shifts, cross-entropy)")},
    "inverted_capsnet": {"official": INVERTED_OFFICIAL},
    "resnet18": {"official": dataclasses.replace(INVERTED_OFFICIAL, departures=())},
}
# Per-dataset changes the sources make to a schedule, keyed by (model, dataset family).
DATASET_ADJUSTMENTS: dict[tuple[str, str], dict[str, Any]] = {
    # 1710.09829 §6.2: "the learning-rate decay step" is 10× larger for MultiMNIST.
    ("capsnet", "multimnist"): {"decay_steps": 20000},
    ("capsnet_narrow", "multimnist"): {"decay_steps": 20000},
    # 2101.12491 code (models/model.py L166-175): 0.196·MSE for each of the two digits.
    ("efficient_capsnet", "multimnist"): {"recon_weight": 0.196},
}
SCHEDULE_NOTES = {
    ("efficient_capsnet", "paper"): "the paper's training section could not be read "
                                    "(fact sheet 2101.12491 §0); use 'official'",
}


def resolve_schedule(model: str, name: str, overrides: Mapping[str, Any] | None,
                     dataset: str = "") -> Schedule:
    """The named schedule for ``model`` on ``dataset``, with ``overrides`` applied and recorded
    as departures."""
    table = SCHEDULES.get(model)
    if table is None:
        raise ValueError(f"no training schedules for model {model!r}; "
                         f"known: {', '.join(sorted(SCHEDULES))}")
    if name not in table:
        note = SCHEDULE_NOTES.get((model, name), f"known: {', '.join(sorted(table))}")
        raise ValueError(f"model {model!r} has no {name!r} schedule: {note}")
    schedule = table[name]
    family = "multimnist" if dataset.startswith("multimnist") else dataset
    adjustment = DATASET_ADJUSTMENTS.get((model, family))
    if adjustment:
        schedule = dataclasses.replace(schedule, **adjustment)
    if not overrides:
        return schedule
    fields = {f.name for f in dataclasses.fields(Schedule)} - {"name", "source", "departures"}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ValueError(f"unknown schedule field(s) {unknown}; allowed: {sorted(fields)}")
    changed = {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items()}
    note = ", ".join(f"{k}={v!r}" for k, v in sorted(changed.items()))
    return dataclasses.replace(schedule, **changed,
                               departures=(*schedule.departures, f"overridden: {note}"))
