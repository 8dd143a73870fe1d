"""Training in resumable pieces: per-seed checkpoints at epoch boundaries, and a deadline.

The ``full`` budget runs each paper's protocol (hundreds of epochs), far longer than a single
command may run on a borrowed GPU. Two environment variables, set by
``benchmarks/train_full.py`` and never by a card, turn any training run into resumable pieces:

* ``CLAIMCHECK_TRAIN_CACHE``: a folder. Each seed of each run checkpoints there after every
  epoch (model, optimiser, curve so far), under a key that hashes everything that decides the
  run: the effective spec, the schedule, the seed, the device kind and the source of the
  ``models`` package. A later run with the same key resumes from the checkpoint, or, when the
  seed has finished, reuses it without training.
* ``CLAIMCHECK_TRAIN_DEADLINE``: a Unix time. Before starting an epoch that would (judging by the
  last epoch of this piece, whichever seed trained it) end after it, the run raises
  :class:`TrainingPaused`; every piece trains at least one epoch, so it always progresses.

Resuming at an epoch boundary repeats exactly what one uninterrupted run does: shuffling and
augmentation draw from ``numpy.random.default_rng([seed, epoch])``, the learning rate is a
function of the epoch and step, and the model, BatchNorm statistics and Adam moments are all in
the checkpoint. On CPU a resumed run reproduces the uninterrupted run's figures bit for bit.
Without the variables nothing is written and nothing stops.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CACHE_ENV = "CLAIMCHECK_TRAIN_CACHE"
DEADLINE_ENV = "CLAIMCHECK_TRAIN_DEADLINE"
MODELS_ROOT = Path(__file__).resolve().parents[1]  # the models package


class TrainingPaused(RuntimeError):
    """A piece of a resumable run reached its deadline; running again resumes it."""


def models_digest() -> str:
    """sha256 over the ``models`` package's Python sources (a code change starts afresh)."""
    digest = hashlib.sha256()
    for path in sorted(MODELS_ROOT.rglob("*.py")):
        digest.update(path.relative_to(MODELS_ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def checkpoint_path(settings: Mapping[str, Any], schedule: Mapping[str, Any], seed: int,
                    device: str) -> Path | None:
    """Where this seed's checkpoint lives, or ``None`` when no cache folder is set."""
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        return None
    identity = {"settings": dict(settings), "schedule": dict(schedule), "seed": seed,
                "device": device.split(":")[0], "models": models_digest()}
    key = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()
    return Path(folder) / f"{key[:32]}-seed{seed}.pt"


_PIECE: dict[str, float] = {"epochs": 0.0, "last_seconds": 0.0}


def start_piece() -> None:
    """Forget the epochs trained so far: a new piece begins (one per script invocation)."""
    _PIECE.update(epochs=0.0, last_seconds=0.0)


def epoch_done(seconds: float) -> None:
    """Note an epoch trained in this piece and how long it took."""
    _PIECE.update(epochs=_PIECE["epochs"] + 1, last_seconds=seconds)


def deadline() -> float | None:
    """The Unix time a piece must end by, or ``None``."""
    value = os.environ.get(DEADLINE_ENV)
    return float(value) if value else None


def must_pause() -> bool:
    """Whether this piece has trained an epoch and another one as long would overrun."""
    end = deadline()
    return (end is not None and _PIECE["epochs"] > 0
            and time.time() + _PIECE["last_seconds"] > end)


def save(path: Path, state: dict[str, Any]) -> None:
    """Atomically write ``state`` (tensors and plain data) to ``path``."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    torch.save(state, partial)
    partial.replace(path)


def load(path: Path | None) -> dict[str, Any] | None:
    """A checkpoint written by :func:`save`, or ``None``."""
    if path is None or not path.is_file():
        return None
    import torch

    state: dict[str, Any] = torch.load(path, map_location="cpu", weights_only=True)
    return state
