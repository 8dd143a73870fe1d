"""CIFAR-10 and CIFAR-100 from the standard "python version" pickle batches.

Looks in each data folder (:func:`models.data.identity.data_folders`) for the extracted folder
(``cifar-10-batches-py/`` with ``data_batch_1..5`` and ``test_batch``; ``cifar-100-python/`` with
``train`` and ``test``) or the original archive (``cifar-10-python.tar.gz``,
``cifar-100-python.tar.gz``, MD5-checked). Nothing is downloaded and nothing is synthesised:
an absent dataset raises the tool's ``DataUnavailable``.
"""

from __future__ import annotations

import hashlib
import pickle
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.data.identity import DataIdentity, LabelledSplits, data_folders, unavailable


@dataclass(frozen=True)
class CifarLayout:
    name: str
    folder: str
    archive: str
    archive_md5: str
    train_members: tuple[str, ...]
    test_members: tuple[str, ...]
    label_key: bytes
    num_classes: int


CIFAR10 = CifarLayout("cifar10", "cifar-10-batches-py", "cifar-10-python.tar.gz",
                      "c58f30108f718f92721af3b95e74349a",
                      tuple(f"data_batch_{i}" for i in range(1, 6)), ("test_batch",),
                      b"labels", 10)
CIFAR100 = CifarLayout("cifar100", "cifar-100-python", "cifar-100-python.tar.gz",
                       "eb9058c3a382ffc7106e4002c42a8d85", ("train",), ("test",),
                       b"fine_labels", 100)


def _unpickle(payload: bytes) -> dict[bytes, Any]:
    record = pickle.loads(payload, encoding="bytes")
    if not isinstance(record, dict):
        raise ValueError("CIFAR batch is not a dict")
    return record


def _member_reader(layout: CifarLayout, folders: list[Path]) -> tuple[Callable[[str], bytes], Path]:
    """A function reading one batch by name, from the extracted folder or the archive."""
    for folder in folders:
        extracted = folder / layout.folder
        if all((extracted / m).is_file() for m in layout.train_members + layout.test_members):
            def from_folder(member: str, extracted: Path = extracted) -> bytes:
                return (extracted / member).read_bytes()

            return from_folder, extracted
        archive = folder / layout.archive
        if archive.is_file():
            digest = hashlib.md5(archive.read_bytes(), usedforsecurity=False).hexdigest()
            if digest != layout.archive_md5:
                raise ValueError(f"{archive}: MD5 {digest}, expected {layout.archive_md5}")

            def from_archive(member: str, archive: Path = archive) -> bytes:
                with tarfile.open(archive, "r:gz") as tar:
                    handle = tar.extractfile(f"{layout.folder}/{member}")
                    if handle is None:
                        raise ValueError(f"{archive}: {member} missing")
                    return handle.read()

            return from_archive, archive
    raise unavailable(layout.name, folders)


def _read_batches(read: Callable[[str], bytes], members: tuple[str, ...],
                  label_key: bytes) -> tuple[np.ndarray, np.ndarray]:
    images, labels = [], []
    for member in members:
        record = _unpickle(read(member))
        images.append(np.asarray(record[b"data"], dtype=np.uint8).reshape(-1, 3, 32, 32))
        labels.append(np.asarray(record[label_key], dtype=np.int64))
    return np.concatenate(images), np.concatenate(labels)


def load_cifar(name: str, folder: str | Path | None = None) -> LabelledSplits:
    """CIFAR-10 (``name="cifar10"``) or CIFAR-100 (``"cifar100"``, fine labels): 50k/10k."""
    layouts = {"cifar10": CIFAR10, "cifar100": CIFAR100}
    if name not in layouts:
        raise ValueError(f"unknown CIFAR variant {name!r}; use one of {sorted(layouts)}")
    layout = layouts[name]
    read, source = _member_reader(layout, data_folders(folder))
    train_x, train_y = _read_batches(read, layout.train_members, layout.label_key)
    test_x, test_y = _read_batches(read, layout.test_members, layout.label_key)
    identity = DataIdentity(
        name=name, split=f"train {len(train_y)} / test {len(test_y)} (official split)",
        size=len(train_y) + len(test_y), origin=f"CIFAR python batches from {source}")
    return LabelledSplits(train_x, train_y, test_x, test_y, identity, eval_is_test=True,
                          num_classes=layout.num_classes)
