"""CIFAR-10 and CIFAR-100 from the standard "python version" pickle batches.

Looks in each data folder (:func:`models.data.identity.data_folders`) for the extracted folder
(``cifar-10-batches-py/`` with ``data_batch_1..5`` and ``test_batch``; ``cifar-100-python/`` with
``train`` and ``test``) or the original archive (``cifar-10-python.tar.gz``,
``cifar-100-python.tar.gz``). Nothing is downloaded and nothing is synthesised: an absent dataset
raises the tool's ``DataUnavailable``.

The batches are pickles, and unpickling runs code, so a data folder is untrusted input: every
batch is checked against the MD5 of the file the dataset's authors publish (the archive too)
before it is unpickled, a file that differs is refused, and the unpickler itself builds only
plain containers and NumPy arrays (:class:`_BatchUnpickler`), never any other callable.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import tarfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.data import data_files
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
    member_md5: Mapping[str, str]


CIFAR10 = CifarLayout("cifar10", "cifar-10-batches-py", "cifar-10-python.tar.gz",
                      "c58f30108f718f92721af3b95e74349a",
                      tuple(f"data_batch_{i}" for i in range(1, 6)), ("test_batch",),
                      b"labels", 10,
                      {"data_batch_1": "c99cafc152244af753f735de768cd75f",
                       "data_batch_2": "d4bba439e000b95fd0a9bffe97cbabec",
                       "data_batch_3": "54ebc095f3ab1f0389bbae665268c751",
                       "data_batch_4": "634d18415352ddfa80567beed471001a",
                       "data_batch_5": "482c414d41f54cd18b22e5b47cb7c3cb",
                       "test_batch": "40351d587109b95175f43aff81a1287e"})
CIFAR100 = CifarLayout("cifar100", "cifar-100-python", "cifar-100-python.tar.gz",
                       "eb9058c3a382ffc7106e4002c42a8d85", ("train",), ("test",),
                       b"fine_labels", 100,
                       {"train": "16019d7e3df5f24257cddd939b257f8d",
                        "test": "f0ef6b0ae62326f3e7ffdfab6717acfc"})
MAX_BATCH_BYTES = 400 * 1024 * 1024
"""Larger than any CIFAR batch (CIFAR-100's ``train`` is about 155 MB); a bigger file is refused."""


_ARRAY_GLOBALS = frozenset({
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
})


class _BatchUnpickler(pickle.Unpickler):
    """Builds plain containers and NumPy arrays only: any other global a pickle names (``os``,
    ``subprocess``, ``builtins.eval``...) is refused, so even a file that passed its checksum
    cannot run code."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ARRAY_GLOBALS:
            raise pickle.UnpicklingError(f"refusing {module}.{name} in a CIFAR batch")
        return super().find_class(module, name)


def _unpickle(payload: bytes) -> dict[bytes, Any]:
    record = _BatchUnpickler(io.BytesIO(payload), encoding="bytes").load()
    if not isinstance(record, dict):
        raise ValueError("CIFAR batch is not a dict")
    return record


def _md5(payload: bytes) -> str:
    return hashlib.md5(payload, usedforsecurity=False).hexdigest()


def _verified(layout: CifarLayout, member: str, payload: bytes, where: Path) -> bytes:
    """``payload`` once its MD5 is the published one of ``member``; never unpickled otherwise."""
    digest = _md5(payload)
    if digest != layout.member_md5[member]:
        raise ValueError(f"{where}: MD5 {digest}, expected {layout.member_md5[member]}: not the "
                         f"published {layout.name} file, so it is never unpickled")
    return payload


def _member_reader(layout: CifarLayout, folders: list[Path]) -> tuple[Callable[[str], bytes], Path]:
    """A function reading one batch by name, from the extracted folder or the archive."""
    for folder in folders:
        extracted = folder / layout.folder
        members = layout.train_members + layout.test_members
        if all(data_files.present(folder, extracted / m) for m in members):
            def from_folder(member: str, folder: Path = folder,
                            extracted: Path = extracted) -> bytes:
                path = extracted / member
                return _verified(layout, member,
                                 data_files.read(folder, path, MAX_BATCH_BYTES), path)

            return from_folder, extracted
        archive = folder / layout.archive
        if data_files.present(folder, archive):
            payload = data_files.read(folder, archive, MAX_BATCH_BYTES, gunzip=False)
            digest = _md5(payload)
            if digest != layout.archive_md5:
                raise ValueError(f"{archive}: MD5 {digest}, expected {layout.archive_md5}")

            def from_archive(member: str, archive: Path = archive,
                             payload: bytes = payload) -> bytes:
                with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
                    handle = tar.extractfile(f"{layout.folder}/{member}")
                    if handle is None:
                        raise ValueError(f"{archive}: {member} missing")
                    return _verified(layout, member, handle.read(), archive)

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
    return _load_layout(layouts[name], folder)


def _load_layout(layout: CifarLayout, folder: str | Path | None) -> LabelledSplits:
    name = layout.name
    read, source = _member_reader(layout, data_folders(folder))
    train_x, train_y = _read_batches(read, layout.train_members, layout.label_key)
    test_x, test_y = _read_batches(read, layout.test_members, layout.label_key)
    identity = DataIdentity(
        name=name, split=f"train {len(train_y)} / test {len(test_y)} (official split)",
        size=len(train_y) + len(test_y), origin=f"CIFAR python batches from {source}")
    return LabelledSplits(train_x, train_y, test_x, test_y, identity, eval_is_test=True,
                          num_classes=layout.num_classes)
