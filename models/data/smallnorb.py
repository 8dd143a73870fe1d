"""smallNORB from the standard NYU binary matrix files.

Files (optionally ``.gz``) in a data folder or its ``smallnorb/`` subfolder::

    smallnorb-5x46789x9x18x6x2x96x96-training-dat.mat   (24300, 2, 96, 96) uint8 stereo pairs
    smallnorb-5x46789x9x18x6x2x96x96-training-cat.mat   (24300,) int32 category 0..4
    smallnorb-5x01235x9x18x6x2x96x96-testing-dat.mat
    smallnorb-5x01235x9x18x6x2x96x96-testing-cat.mat

Binary matrix format: little-endian int32 magic (``0x1E3D4C55`` bytes, ``0x1E3D4C54`` int32),
int32 ndim, then max(3, ndim) int32 dimensions, then the data. ``size`` optionally resizes the
96×96 images (area interpolation), e.g. 48 as in arxiv:1710.09829 §7 or 64 as in the official
Efficient-CapsNet code; random or centre crops belong to the training transform.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from models.data import data_files
from models.data.identity import DataIdentity, LabelledSplits, data_folders, unavailable

FILES = {
    "train_images": "smallnorb-5x46789x9x18x6x2x96x96-training-dat.mat",
    "train_labels": "smallnorb-5x46789x9x18x6x2x96x96-training-cat.mat",
    "test_images": "smallnorb-5x01235x9x18x6x2x96x96-testing-dat.mat",
    "test_labels": "smallnorb-5x01235x9x18x6x2x96x96-testing-cat.mat",
}
MAGIC_DTYPES = {0x1E3D4C55: np.uint8, 0x1E3D4C54: np.int32}


def read_norb_matrix(path: Path, base: Path | None = None) -> np.ndarray:
    """Parse a NORB binary matrix file, read as a regular file of the data folder ``base``
    (default: its own folder), never through a link (:mod:`models.data.data_files`)."""
    raw = data_files.read(path.parent if base is None else base, path)
    magic, ndim = struct.unpack("<ii", raw[:8])
    if magic not in MAGIC_DTYPES:
        raise ValueError(f"{path}: unknown NORB magic {magic:#x}")
    slots = max(3, ndim)
    dims = struct.unpack(f"<{slots}i", raw[8: 8 + 4 * slots])[:ndim]
    data = np.frombuffer(raw, dtype=MAGIC_DTYPES[magic], offset=8 + 4 * slots)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"{path}: expected {dims} values, found {data.size}")
    return data.reshape(dims)


def _find(stem: str, folders: list[Path]) -> tuple[Path, Path] | None:
    return data_files.find(folders, (stem, f"{stem}.gz", f"smallnorb/{stem}",
                                     f"smallnorb/{stem}.gz"))


def _resize(images: np.ndarray, size: int) -> np.ndarray:
    import torch
    import torch.nn.functional as F

    out = np.empty((len(images), images.shape[1], size, size), dtype=np.uint8)
    for start in range(0, len(images), 2048):
        chunk = torch.from_numpy(images[start: start + 2048].astype(np.float32))
        small = F.interpolate(chunk, size=(size, size), mode="area")
        out[start: start + 2048] = small.round().clamp(0, 255).to(torch.uint8).numpy()
    return out


def load_smallnorb(folder: str | Path | None = None, size: int | None = None) -> LabelledSplits:
    """The 24,300 / 24,300 official split; images (N, 2, S, S) uint8, labels 0..4."""
    folders = data_folders(folder)
    paths = {key: _find(stem, folders) for key, stem in FILES.items()}
    found = {key: path for key, path in paths.items() if path is not None}
    if len(found) != len(paths):
        raise unavailable("smallnorb", folders)
    arrays = {key: read_norb_matrix(path, base) for key, (base, path) in found.items()}
    train_x, test_x = arrays["train_images"], arrays["test_images"]
    if size is not None and size != train_x.shape[-1]:
        train_x, test_x = _resize(train_x, size), _resize(test_x, size)
    identity = DataIdentity(
        name="smallnorb",
        split=f"train {len(train_x)} / test {len(test_x)} (official split)",
        size=len(train_x) + len(test_x),
        origin=f"NYU smallNORB matrix files from {found['train_images'][1].parent}",
        extra={"image_size": int(train_x.shape[-1])})
    return LabelledSplits(train_x, arrays["train_labels"].astype(np.int64), test_x,
                          arrays["test_labels"].astype(np.int64), identity, eval_is_test=True,
                          num_classes=5)
