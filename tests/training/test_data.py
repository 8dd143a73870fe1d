"""Data loaders: the vendored MNIST sample, splits, MultiMNIST, and absent datasets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.data import load_dataset, make_multimnist, stratified_split
from models.data.mnist import load_mnist_5k, load_mnist_5k_arrays, read_idx
from models.data.multimnist import shift_onto_canvas


def test_sample_is_real_mnist_training_digits() -> None:
    images, labels = load_mnist_5k_arrays()
    assert images.shape == (5000, 28, 28) and images.dtype == np.uint8
    assert np.bincount(labels).tolist() == [500] * 10
    # Index 2500 is the first "5", i.e. MNIST train[0]; its first non-zero pixels are known.
    first_five = images[2500].ravel()
    assert first_five[first_five > 0][:6].tolist() == [3, 18, 18, 18, 126, 136]


def test_sample_split_sizes_stratification_and_identity() -> None:
    data = load_mnist_5k()
    assert data.train_images.shape == (4000, 1, 28, 28)
    assert data.eval_images.shape == (1000, 1, 28, 28)
    assert np.bincount(data.eval_labels).tolist() == [100] * 10
    assert np.bincount(data.train_labels).tolist() == [400] * 10
    assert not data.eval_is_test
    identity = data.identity.as_dict()
    assert {"name", "split", "size", "origin"} <= identity.keys()
    assert identity["name"] == "mnist-5k" and identity["size"] == 5000
    assert "training split" in identity["origin"]
    assert "not comparable" in identity["note"]
    again = load_mnist_5k()
    assert np.array_equal(again.eval_images, data.eval_images)


def test_train_and_held_out_images_do_not_overlap() -> None:
    data = load_mnist_5k()
    train_rows = {row.tobytes() for row in data.train_images}
    assert not any(row.tobytes() in train_rows for row in data.eval_images)


def test_stratified_split_handles_uneven_classes() -> None:
    labels = np.array([0] * 7 + [1] * 3)
    kept, held = stratified_split(labels, 5, seed=3)
    assert len(kept) == 5 and len(held) == 5
    assert sorted(labels[held].tolist()) in ([0, 0, 0, 0, 1], [0, 0, 0, 1, 1])
    assert set(kept) | set(held) == set(range(10))


def test_subsample_keeps_classes_balanced_and_records_it() -> None:
    data = load_mnist_5k().subsample(train_size=1000, eval_size=500, seed=0)
    assert np.bincount(data.train_labels).tolist() == [100] * 10
    assert np.bincount(data.eval_labels).tolist() == [50] * 10
    assert "train 1000 of 4000" in data.identity.as_dict()["subsample"]


@pytest.mark.parametrize("shift", [4, 6])
def test_multimnist_labels_differ_shifts_bounded_and_clipped(shift: int) -> None:
    data = load_mnist_5k()
    rng = np.random.default_rng(0)
    pairs = make_multimnist(data.eval_images, data.eval_labels, 2, shift, rng)
    assert pairs.images.shape == (2000, 1, 36, 36)
    assert (pairs.labels[:, 0] != pairs.labels[:, 1]).all()
    summed = pairs.components[:, 0].astype(int) + pairs.components[:, 1]
    assert np.array_equal(pairs.images, np.minimum(summed, 255))
    assert (summed > 255).any(), "overlapping strokes should need clipping"
    # Every component is its source digit moved by at most `shift` px from the centre.
    centred = shift_onto_canvas(data.eval_images[:, 0], np.zeros(1000, int), np.zeros(1000, int))
    ys, xs = np.nonzero(pairs.components[:1000, 0, 0].sum(axis=0))
    reference_ys, reference_xs = np.nonzero(centred.sum(axis=0))
    assert ys.min() >= max(0, reference_ys.min() - shift)
    assert xs.max() <= min(35, reference_xs.max() + shift)


def test_shift_moves_a_single_pixel_exactly() -> None:
    digit = np.zeros((1, 28, 28), dtype=np.uint8)
    digit[0, 10, 12] = 200
    moved = shift_onto_canvas(digit, np.array([-3]), np.array([2]))
    assert moved.shape == (1, 36, 36)
    assert np.argwhere(moved[0]).tolist() == [[4 + 10 - 3, 4 + 12 + 2]]


def test_multimnist_pairs_stay_within_split() -> None:
    from models.data import DataIdentity, LabelledSplits, MultiMnistSource

    def blocks(value: int, count: int) -> np.ndarray:
        images = np.zeros((count, 1, 28, 28), dtype=np.uint8)
        images[:, :, 10:18, 10:18] = value
        return images

    labels = np.arange(20) % 10
    base = LabelledSplits(blocks(1, 20), labels, blocks(100, 20), labels,
                          DataIdentity("marked", "20 / 20", 40, "test fixture"),
                          eval_is_test=False, num_classes=10)
    source = MultiMnistSource(base, shift=4)
    assert set(np.unique(source.train_epoch(seed=0, epoch=0).components)) == {0, 1}
    assert set(np.unique(source.eval_set(seed=0).components)) == {0, 100}
    assert not np.array_equal(source.train_epoch(0, 0).labels, source.train_epoch(0, 1).labels)


@pytest.mark.parametrize("name", ["cifar10", "cifar100", "smallnorb", "mnist", "multimnist"])
def test_absent_dataset_raises_data_unavailable(name: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from claimcheck.checks.api import DataUnavailable

    monkeypatch.setenv("CLAIMCHECK_DATA", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(DataUnavailable, match=r"dataset not available: .*looked in"):
        load_dataset(name, folder=tmp_path / "nothing-here")


def test_idx_reader_round_trip(tmp_path: Path) -> None:
    payload = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    path = tmp_path / "x-idx3-ubyte"
    path.write_bytes(bytes([0, 0, 8, 3]) + b"".join(d.to_bytes(4, "big") for d in payload.shape)
                     + payload.tobytes())
    assert np.array_equal(read_idx(path), payload)


def test_cifar_batches_are_read_from_a_folder(tmp_path: Path) -> None:
    """The reading code on small batches of our own: the published checksums are swapped for
    these files' (the real ones refuse them: ``tests/hardening/test_untrusted_data.py``)."""
    import dataclasses
    import hashlib
    import pickle

    from models.data import cifar

    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    rng = np.random.default_rng(0)
    sums = {}
    for member in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        record = {b"data": rng.integers(0, 256, (4, 3072), dtype=np.uint8),
                  b"labels": [0, 1, 2, 3]}
        payload = pickle.dumps(record)
        (folder / member).write_bytes(payload)
        sums[member] = hashlib.md5(payload, usedforsecurity=False).hexdigest()
    layout = dataclasses.replace(cifar.CIFAR10, member_md5=sums)
    data = cifar._load_layout(layout, tmp_path)
    assert data.train_images.shape == (20, 3, 32, 32)
    assert data.eval_images.shape == (4, 3, 32, 32)
    assert data.eval_is_test and data.identity.name == "cifar10"


def test_multimnist_refuses_sets_that_do_not_fit_in_memory() -> None:
    labels = np.arange(60000) % 10
    with pytest.raises(ValueError, match="fewer pairs per image"):
        make_multimnist(np.zeros((60000, 28, 28), np.uint8), labels, 1000, 4,
                        np.random.default_rng(0))


def test_smallnorb_matrix_files_are_read_and_resized(tmp_path: Path) -> None:
    import struct

    from models.data.smallnorb import FILES

    def write(name: str, magic: int, array: np.ndarray) -> None:
        dims = list(array.shape) + [1] * max(0, 3 - array.ndim)
        header = struct.pack("<ii", magic, array.ndim) + struct.pack(f"<{len(dims)}i", *dims)
        (tmp_path / name).write_bytes(header + array.tobytes())

    images = np.full((3, 2, 96, 96), 7, dtype=np.uint8)
    labels = np.array([0, 4, 2], dtype=np.int32)
    for split in ("train", "test"):
        write(FILES[f"{split}_images"], 0x1E3D4C55, images)
        write(FILES[f"{split}_labels"], 0x1E3D4C54, labels)
    data = load_dataset("smallnorb", folder=tmp_path, image_size=48)
    assert data.train_images.shape == (3, 2, 48, 48) and (data.train_images == 7).all()
    assert data.eval_labels.tolist() == [0, 4, 2] and data.num_classes == 5
