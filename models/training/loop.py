"""One seed of one training run: batches, augmentation, losses, the epoch loop, evaluation.

Losses: capsule models (``score_kind == "lengths"``) use the margin loss of arxiv:1710.09829
eq. 4 (``models.capsules.margin_loss``) plus, when the model has a decoder and the schedule a
reconstruction weight, the decoder loss of §4.1 with the decoder fed the true label's capsule
(one reconstruction per digit on MultiMNIST, §6.2). Logit models use cross-entropy (sigmoid
cross-entropy on MultiMNIST, as the paper's baseline). Accuracy on MultiMNIST counts an image as
right when its two longest capsules are exactly its two labels (``both``, §6.2), or gives half a
point for each label among the two longest (``per_digit``, the Efficient-CapsNet code).

Determinism: the model is built under ``torch.manual_seed(seed)`` in a forked RNG, and shuffling
and augmentation draw from ``numpy.random.default_rng([seed, epoch])``. Those are random stream 0
of each kind; ``LoopSettings.data_stream`` and ``init_stream`` select another valid stream of the
same seed (:func:`data_rng`, :func:`init_seed`), which the trainer uses for its controls (a
verdict must not depend on the draw: ``models.training.run``). On CPU two runs with the
same seed give identical losses and metrics, whatever the machine's speed: nothing in the loop
reads the clock except to report throughput and to enforce an optional safety-net deadline.
Across machines, identical figures also need the same torch build and thread count (float
reductions are summed in a thread-dependent order; CPU kernels may differ between instruction
sets), and on CUDA cuDNN's autotuned kernels are not deterministic.
``KeyboardInterrupt`` is never caught.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from models.capsules import label_mask, margin_loss
from models.training.schedules import Schedule

Progress = Callable[[str, "float | None"], None]


@dataclass(frozen=True)
class Arrays:
    """uint8 images (N, C, H, W); labels (N,) or (N, 2); optional per-digit targets."""

    images: np.ndarray
    labels: np.ndarray
    components: np.ndarray | None = None

    @property
    def multi(self) -> bool:
        return self.labels.ndim == 2


@dataclass
class SeedRun:
    seed: int
    epochs: list[dict[str, Any]] = field(default_factory=list)
    accuracy: float = float("nan")
    images_trained: int = 0
    train_seconds: float = 0.0
    model: torch.nn.Module | None = None  # kept only when asked (for the reconstruction grid)


class BudgetExceeded(RuntimeError):
    """The run passed the claim's safety-net time limit before finishing its work.

    Raised rather than reported as a shorter run: crossing the limit is an error of that run,
    so a slow or busy machine never gets a claim judged on fewer epochs than it states.
    """


@dataclass(frozen=True)
class LoopSettings:
    """``deadline`` is a ``time.perf_counter()`` value shared by all seeds (the claim's optional
    safety-net time limit); ``multi_accuracy`` is ``both`` or ``per_digit`` (MultiMNIST)."""

    epochs: int
    device: str
    amp: bool
    deadline: float | None
    time_limit_s: float | None
    multi_accuracy: str = "both"
    eval_batch: int = 256
    compile: bool = False  # torch.compile each seed's model (models.training.run, ``compile``)
    data_stream: int = 0  # which random stream orders and augments the data (0: the seed's own)
    init_stream: int = 0  # which random stream initialises the model (0: the seed's own)


def data_rng(seed: int, epoch: int, stream: int = 0) -> np.random.Generator:
    """The generator that orders and augments epoch ``epoch`` of seed ``seed``: stream 0 is
    ``default_rng([seed, epoch])``, stream k > 0 ``default_rng([seed, epoch, k])``, an
    independent stream of the same seed."""
    return np.random.default_rng([seed, epoch] + ([stream] if stream else []))


def init_seed(seed: int, stream: int = 0) -> int:
    """The torch seed that initialises seed ``seed``'s model: ``seed`` itself for stream 0,
    else a number drawn from ``SeedSequence([seed, stream])`` (never another seed's own)."""
    if not stream:
        return seed
    return int(np.random.SeedSequence([seed, stream]).generate_state(1, np.uint64)[0] >> 1)


def check_deadline(settings: LoopSettings, run: SeedRun, where: str) -> None:
    if settings.deadline is None or time.perf_counter() <= settings.deadline:
        return
    so_far = f"; held-out accuracy so far {run.accuracy:.2f}%" if run.epochs else ""
    raise BudgetExceeded(
        f"time limit of {settings.time_limit_s:g} s passed {where} (seed {run.seed}, "
        f"{len(run.epochs)} of {settings.epochs} epoch(s) done{so_far}); use a larger budget "
        "or time_limit_s, or a quieter machine")


def shift_augment(images: np.ndarray, reach: int, rng: np.random.Generator) -> np.ndarray:
    """Random integer shifts of up to ``reach`` px per axis with zero padding (1710.09829 §5)."""
    count, channels, height, width = images.shape
    padded = np.pad(images, ((0, 0), (0, 0), (reach, reach), (reach, reach)))
    dy, dx = rng.integers(0, 2 * reach + 1, size=(2, count))
    rows = dy[:, None] + np.arange(height)
    cols = dx[:, None] + np.arange(width)
    return padded[np.arange(count)[:, None, None, None], np.arange(channels)[None, :, None, None],
                  rows[:, None, :, None], cols[:, None, None, :]]


def crop_flip_augment(images: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random crop after 4-px zero padding plus a horizontal flip with probability ½."""
    shifted = shift_augment(images, 4, rng)
    flip = rng.random(len(images)) < 0.5
    shifted[flip] = shifted[flip, :, :, ::-1]
    return shifted


def augment(batch: Arrays, schedule: Schedule, rng: np.random.Generator) -> Arrays:
    if batch.multi or schedule.augment == "none":  # MultiMNIST pairs are shifted when generated
        return batch
    if schedule.augment == "shift2":
        return Arrays(shift_augment(batch.images, 2, rng), batch.labels)
    return Arrays(crop_flip_augment(batch.images, rng), batch.labels)


class Batches:
    """Turns uint8 arrays into float tensors on the device, with optional normalisation."""

    def __init__(self, device: str, mean: np.ndarray | None, std: np.ndarray | None) -> None:
        self.device = device
        self.mean = None if mean is None else torch.tensor(mean, dtype=torch.float32,
                                                           device=device).view(1, -1, 1, 1)
        self.std = None if std is None else torch.tensor(std, dtype=torch.float32,
                                                         device=device).view(1, -1, 1, 1)

    def images(self, array: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """(model input, pixel values in [0, 1] for reconstruction targets)."""
        pixels = torch.from_numpy(np.ascontiguousarray(array)).to(self.device).float() / 255.0
        if self.mean is None or self.std is None:
            return pixels, pixels
        return (pixels - self.mean) / self.std, pixels

    def tensor(self, array: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array)).to(self.device)


def multi_hot(labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    if labels.dim() == 1:
        return F.one_hot(labels, num_classes).float()
    return F.one_hot(labels, num_classes).amax(dim=1).float()


def training_loss(model: torch.nn.Module, output: Any, labels: torch.Tensor,
                  pixels: torch.Tensor, components: torch.Tensor | None,
                  schedule: Schedule) -> torch.Tensor:
    """Classification loss plus the weighted reconstruction loss (see the module docstring)."""
    scores = output.scores.float()
    num_classes = scores.shape[1]
    if model.score_kind == "logits":
        if labels.dim() == 2:
            return F.binary_cross_entropy_with_logits(scores, multi_hot(labels, num_classes))
        return F.cross_entropy(scores, labels)
    targets = multi_hot(labels, num_classes) if labels.dim() == 2 else labels
    loss = margin_loss(scores, targets, reduction=schedule.margin_reduction)
    if schedule.recon_weight <= 0 or getattr(model, "decoder", None) is None:
        return loss
    columns = labels.unsqueeze(1) if labels.dim() == 1 else labels
    for column in range(columns.shape[1]):
        target = pixels if components is None else components[:, column]
        image = model.reconstruct(output.poses, label_mask(columns[:, column], num_classes))
        squared = (image.float() - target).pow(2).flatten(1)
        per_image = squared.sum(1) if schedule.recon_reduction == "sse" else squared.mean(1)
        loss = loss + schedule.recon_weight * per_image.mean()
    return loss


def correct_count(scores: torch.Tensor, labels: torch.Tensor, rule: str = "both") -> float:
    """Right answers in a batch; on MultiMNIST (labels (B, 2)) by ``rule``: ``both`` counts an
    image when its two longest capsules are its two labels, ``per_digit`` counts half for each
    label among them."""
    if labels.dim() == 1:
        return float((scores.argmax(dim=1) == labels).sum())
    top2 = scores.topk(2, dim=1).indices
    hits = (top2[:, :, None] == labels[:, None, :]).any(dim=1)  # (B, 2): each label found
    if rule == "per_digit":
        return float(hits.float().sum()) / 2.0
    return float(hits.all(dim=1).sum())


def evaluate(model: torch.nn.Module, data: Arrays, batches: Batches,
             settings: LoopSettings) -> float:
    """Accuracy in percent on ``data``."""
    model.eval()
    correct = 0.0
    with torch.no_grad(), _autocast(settings):
        for start in range(0, len(data.labels), settings.eval_batch):
            stop = start + settings.eval_batch
            inputs, _ = batches.images(data.images[start:stop])
            scores = model(inputs).scores.float()
            correct += correct_count(scores, batches.tensor(data.labels[start:stop]),
                                     settings.multi_accuracy)
    return 100.0 * correct / len(data.labels)


def _autocast(settings: LoopSettings) -> Any:
    if settings.amp and settings.device.startswith("cuda"):
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return torch.autocast("cpu", enabled=False)


def run_seed(build: Callable[[], torch.nn.Module], train_epoch: Callable[[int], Arrays],
             held_out: Arrays, schedule: Schedule, batches: Batches, settings: LoopSettings,
             seed: int, progress: Progress, label: str, keep_model: bool = False,
             checkpoint: Path | None = None) -> SeedRun:
    """Train a fresh model for ``settings.epochs`` epochs and evaluate after each one.

    With a ``checkpoint`` path (:mod:`models.training.resume`) the run resumes from it, saves after
    every epoch, and may pause between epochs at the piece's deadline.
    """
    from models.training import resume

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(init_seed(seed, settings.init_stream))
        model = build().to(settings.device)
        if settings.compile:
            model.compile()  # in place: parameter names and checkpoints are unchanged
        optimizer = schedule.make_optimizer(model.parameters())
        run, step = SeedRun(seed), 0
        saved = resume.load(checkpoint)
        if saved is not None:
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            run.epochs, step = list(saved["epochs"]), int(saved["step"])
            run.images_trained, run.train_seconds = int(saved["images"]), float(saved["seconds"])
            run.accuracy = float(run.epochs[-1]["accuracy"]) if run.epochs else float("nan")
        for epoch in range(len(run.epochs), settings.epochs):
            if checkpoint is not None and resume.must_pause():
                raise resume.TrainingPaused(
                    f"{label}: paused before epoch {epoch + 1} of {settings.epochs}; run "
                    "again to resume")
            seconds = run.train_seconds
            step = train_one_epoch(model, optimizer, train_epoch(epoch), schedule, batches,
                                   settings, run, epoch, step)
            resume.epoch_done(run.train_seconds - seconds)
            accuracy = evaluate(model, held_out, batches, settings)
            run.epochs[-1]["accuracy"] = run.accuracy = accuracy
            progress(f"{label} epoch {epoch + 1}/{settings.epochs}: loss "
                     f"{run.epochs[-1]['loss']:.4f}, held-out accuracy {accuracy:.2f}%",
                     (epoch + 1) / settings.epochs)
            if checkpoint is not None:
                resume.save(checkpoint, {
                    "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epochs": run.epochs, "step": step, "images": run.images_trained,
                    "seconds": run.train_seconds})
            if epoch + 1 < settings.epochs:
                check_deadline(settings, run, f"after epoch {epoch + 1}")
        if keep_model:
            run.model = model
    return run


def train_one_epoch(model: torch.nn.Module, optimizer: torch.optim.Optimizer, data: Arrays,
                    schedule: Schedule, batches: Batches, settings: LoopSettings, run: SeedRun,
                    epoch: int, step: int) -> int:
    """One pass over ``data`` in the order :func:`data_rng` draws; appends the epoch's curve row
    to ``run`` (accuracy filled in by the caller) and returns the step."""
    rng = data_rng(run.seed, epoch, settings.data_stream)
    for group in optimizer.param_groups:
        group["lr"] = schedule.lr_at(epoch, step)
    model.train()
    order = rng.permutation(len(data.labels))
    epoch_start, loss_sum, seen = time.perf_counter(), 0.0, 0
    for start in range(0, len(order), schedule.batch_size):
        index = np.sort(order[start: start + schedule.batch_size])
        batch = augment(Arrays(data.images[index], data.labels[index],
                               None if data.components is None
                               else data.components[index]), schedule, rng)
        inputs, pixels = batches.images(batch.images)
        labels = batches.tensor(batch.labels)
        parts = None if batch.components is None else batches.images(batch.components)[1]
        with _autocast(settings):
            output = model(inputs)
        loss = training_loss(model, output, labels, pixels, parts, schedule)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        step += 1
        if schedule.decay == "per_step":
            for group in optimizer.param_groups:
                group["lr"] = schedule.lr_at(epoch, step)
        loss_sum += float(loss.detach()) * len(index)
        seen += len(index)
        check_deadline(settings, run, f"in epoch {epoch + 1}")
    run.train_seconds += time.perf_counter() - epoch_start
    run.images_trained += seen
    run.epochs.append({
        "epoch": epoch + 1, "loss": loss_sum / max(seen, 1), "accuracy": float("nan"),
        "seconds": run.train_seconds, "lr": optimizer.param_groups[0]["lr"],
        "images": run.images_trained,
    })
    return step
