"""What a training result must say about its data, and the shared split helpers.

Every dataset loader returns a :class:`LabelledSplits`: uint8 images in NCHW layout, integer
labels, and a :class:`DataIdentity` naming the data (name, split, size, origin). The identity is
copied verbatim into every training result so that nobody mistakes a held-out accuracy on
MNIST *training* digits for the paper's test-set number.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

DATA_ENV = "CLAIMCHECK_DATA"


def unavailable(name: str, looked_in: list[Path]) -> Exception:
    """The tool's ``DataUnavailable`` with the wording the verdict shows.

    Imported lazily so that loading images does not import the tool's check machinery.
    """
    from claimcheck.checks.api import DataUnavailable

    places = ", ".join(shown_folder(p) for p in looked_in) or "no folder configured"
    return DataUnavailable(f"dataset not available: {name} (looked in {places})")


def shown_folder(path: Path) -> str:
    """``path`` for a message that may be stored and published: ``~/...`` under the home
    folder, so that a result does not carry the machine's user name."""
    home = Path.home()
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def data_folders(configured: str | os.PathLike[str] | None = None) -> list[Path]:
    """Folders searched for real dataset files, in order: the explicit argument, then
    ``$CLAIMCHECK_DATA``, then ``~/.cache/claimcheck/data``."""
    folders: list[Path] = []
    if configured:
        folders.append(Path(configured).expanduser())
    if os.environ.get(DATA_ENV):
        folders.append(Path(os.environ[DATA_ENV]).expanduser())
    folders.append(Path.home() / ".cache" / "claimcheck" / "data")
    return folders


@dataclass(frozen=True)
class DataIdentity:
    """Name, split, size and origin of the data a result was measured on."""

    name: str
    split: str
    size: int
    origin: str
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "name": self.name, "split": self.split, "size": self.size, "origin": self.origin,
        }
        if self.note:
            record["note"] = self.note
        record.update(self.extra)
        return record


@dataclass(frozen=True)
class LabelledSplits:
    """A train part and an evaluation part. Images are uint8, shape (N, C, H, W).

    ``eval_is_test`` is True only when the evaluation part is the dataset's official test split,
    which is what the papers report on.
    """

    train_images: np.ndarray
    train_labels: np.ndarray
    eval_images: np.ndarray
    eval_labels: np.ndarray
    identity: DataIdentity
    eval_is_test: bool
    num_classes: int

    def subsample(self, train_size: int | None, eval_size: int | None,
                  seed: int) -> LabelledSplits:
        """Stratified subsets of each part (fixed seed); the identity's split and size become
        the ones used, and ``extra["subsample"]`` says what was taken from what."""
        train_idx = _maybe_subset(self.train_labels, train_size, seed)
        eval_idx = _maybe_subset(self.eval_labels, eval_size, seed + 1)
        if train_idx is None and eval_idx is None:
            return self
        tr_x = self.train_images if train_idx is None else self.train_images[train_idx]
        tr_y = self.train_labels if train_idx is None else self.train_labels[train_idx]
        ev_x = self.eval_images if eval_idx is None else self.eval_images[eval_idx]
        ev_y = self.eval_labels if eval_idx is None else self.eval_labels[eval_idx]
        extra = dict(self.identity.extra)
        extra["subsample"] = (f"stratified subset (seed {seed}): train {len(tr_y)} of "
                              f"{len(self.train_labels)}, eval {len(ev_y)} of "
                              f"{len(self.eval_labels)}")
        identity = replace(self.identity, extra=extra, size=len(tr_y) + len(ev_y),
                           split=f"train {len(tr_y)} / eval {len(ev_y)}, stratified subset of "
                                 f"[{self.identity.split}]")
        return replace(self, train_images=tr_x, train_labels=tr_y, eval_images=ev_x,
                       eval_labels=ev_y, identity=identity)


def _maybe_subset(labels: np.ndarray, size: int | None, seed: int) -> np.ndarray | None:
    if size is None or size >= len(labels):
        return None
    if size <= 0:
        raise ValueError(f"subset size must be positive, got {size}")
    kept, _ = stratified_split(labels, len(labels) - size, seed)
    return kept


def stratified_split(labels: np.ndarray, held_out: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (kept, held_out) with the held-out part drawn evenly from every class.

    Each class gives ``round(held_out * class_count / total)`` items (largest remainders fix the
    total), chosen by a ``numpy.random.default_rng(seed)`` permutation. Both index arrays are
    sorted, so the result does not depend on the input order of equal labels beyond the seed.
    """
    labels = np.asarray(labels)
    if not 0 <= held_out <= len(labels):
        raise ValueError(f"held_out={held_out} outside [0, {len(labels)}]")
    rng = np.random.default_rng(seed)
    classes, counts = np.unique(labels, return_counts=True)
    exact = held_out * counts / counts.sum()
    quota = np.floor(exact).astype(int)
    remainder_order = np.argsort(-(exact - quota), kind="stable")
    quota[remainder_order[: held_out - quota.sum()]] += 1
    chosen: list[np.ndarray] = []
    for cls, take in zip(classes, quota, strict=True):
        members = np.flatnonzero(labels == cls)
        chosen.append(rng.permutation(members)[:take])
    held = np.sort(np.concatenate(chosen)) if chosen else np.empty(0, dtype=int)
    mask = np.ones(len(labels), dtype=bool)
    mask[held] = False
    return np.flatnonzero(mask), held
