"""Every dataset loader of ``models/data`` reads its files through one path rule (issue 33 item 4).

The weight loader refused a link inside a data folder; the MNIST, smallNORB and CIFAR loaders
still opened their files by path, so a committed ``data/mnist/t10k-images-idx3-ubyte ->
~/anything`` (or a linked ``smallnorb/`` folder, a FIFO, a device) was read through. They now go
through :mod:`models.data.data_files`: a link, FIFO, device or folder where a file belongs is
refused with one line naming the entry. A static test lists every read of a file in
``models/data`` so that a new loader cannot open one by path unnoticed.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import io
import os
import pickle
import tarfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from models.data import cifar, data_files
from models.data.mnist import IDX_FILES, load_mnist, read_idx
from models.data.smallnorb import FILES as NORB_FILES
from models.data.smallnorb import load_smallnorb

DATA = Path(__file__).resolve().parents[2] / "models" / "data"


def _idx(array: np.ndarray) -> bytes:
    dims = b"".join(d.to_bytes(4, "big") for d in array.shape)
    return bytes([0, 0, 8, array.ndim]) + dims + array.tobytes()


def _mnist(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for key, stem in IDX_FILES.items():
        shape = (2, 28, 28) if "images" in key else (2,)
        (folder / stem).write_bytes(_idx(np.zeros(shape, np.uint8)))
        files[key] = folder / stem
    return files


def _plant(kind: str, where: Path, outside: Path) -> None:
    """Put ``kind`` at ``where`` in place of the regular file there."""
    where.unlink()
    if kind == "file link":
        where.symlink_to(outside)
    elif kind == "dangling link":
        where.symlink_to(outside.parent / "nowhere")
    elif kind == "FIFO":
        os.mkfifo(where)
    elif kind == "device":
        where.symlink_to("/dev/zero")
    elif kind == "folder":
        where.mkdir()
    elif kind == "hard link":
        os.link(outside, where)


KINDS = {"file link": "symbolic link", "dangling link": "symbolic link", "FIFO": "FIFO",
         "device": "symbolic link", "folder": "folder", "hard link": "hard link"}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_mnist_refuses_anything_but_a_regular_file(tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "operator-secret"
    outside.write_bytes(_idx(np.ones((2, 28, 28), np.uint8)))
    files = _mnist(tmp_path / "data" / "mnist")
    _plant(kind, files["test_images"], outside)
    with pytest.raises(ValueError, match=KINDS[kind]) as raised:
        load_mnist(tmp_path / "data")
    assert "mnist/t10k-images-idx3-ubyte" in str(raised.value)


def test_mnist_refuses_a_linked_subfolder(tmp_path: Path) -> None:
    _mnist(tmp_path / "elsewhere")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mnist").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(ValueError, match=r"data/mnist: a symbolic link where a folder belongs"):
        load_mnist(tmp_path / "data")


def test_mnist_regular_files_still_load_and_read_idx_refuses_a_link(tmp_path: Path) -> None:
    files = _mnist(tmp_path / "data" / "MNIST" / "raw")
    assert load_mnist(tmp_path / "data").train_images.shape == (2, 1, 28, 28)
    (tmp_path / "link").symlink_to(files["train_images"])
    with pytest.raises(ValueError, match="symbolic link"):
        read_idx(tmp_path / "link")


def test_a_gzip_bomb_is_refused(tmp_path: Path) -> None:
    import gzip

    (tmp_path / "x.gz").write_bytes(gzip.compress(bytes(5000)))
    with pytest.raises(ValueError, match="decompresses to over 4,096 bytes"):
        data_files.read(tmp_path, tmp_path / "x.gz", limit=4096)


def _norb(folder: Path) -> None:
    import struct

    folder.mkdir(parents=True, exist_ok=True)
    for key, name in NORB_FILES.items():
        array = np.zeros((1, 2, 96, 96), np.uint8) if "images" in key else np.zeros(1, np.int32)
        magic = 0x1E3D4C55 if "images" in key else 0x1E3D4C54
        dims = list(array.shape) + [1] * max(0, 3 - array.ndim)
        header = struct.pack("<ii", magic, array.ndim) + struct.pack(f"<{len(dims)}i", *dims)
        (folder / name).write_bytes(header + array.tobytes())


@pytest.mark.parametrize("kind", ["file link", "FIFO", "folder", "subfolder link"])
def test_smallnorb_refuses_anything_but_a_regular_file(tmp_path: Path, kind: str) -> None:
    outside = tmp_path / "outside"
    _norb(outside)
    data = tmp_path / "data"
    if kind == "subfolder link":
        data.mkdir()
        (data / "smallnorb").symlink_to(outside, target_is_directory=True)
    else:
        _norb(data / "smallnorb")
        _plant(kind, data / "smallnorb" / NORB_FILES["train_labels"],
               outside / NORB_FILES["train_labels"])
    with pytest.raises(ValueError, match=r"symbolic link|FIFO|folder"):
        load_smallnorb(data)
    assert load_smallnorb(outside).train_images.shape == (1, 2, 96, 96)


def _cifar(folder: Path) -> cifar.CifarLayout:
    extracted = folder / cifar.CIFAR10.folder
    extracted.mkdir(parents=True)
    sums = {}
    for member in cifar.CIFAR10.train_members + cifar.CIFAR10.test_members:
        payload = pickle.dumps({b"data": np.zeros((1, 3072), np.uint8), b"labels": [0]})
        (extracted / member).write_bytes(payload)
        sums[member] = hashlib.md5(payload, usedforsecurity=False).hexdigest()
    return dataclasses.replace(cifar.CIFAR10, member_md5=sums)


@pytest.mark.parametrize("kind", ["file link", "FIFO", "folder", "hard link"])
def test_cifar_batches_refuse_anything_but_a_regular_file(tmp_path: Path, kind: str) -> None:
    layout = _cifar(tmp_path / "outside")
    data = tmp_path / "data"
    _cifar(data)
    member = data / cifar.CIFAR10.folder / "test_batch"
    _plant(kind, member, tmp_path / "outside" / cifar.CIFAR10.folder / "test_batch")
    with pytest.raises(ValueError, match=KINDS[kind]):
        cifar._load_layout(layout, data)


def test_cifar_refuses_a_linked_batch_folder_and_a_linked_archive(tmp_path: Path) -> None:
    layout = _cifar(tmp_path / "outside")
    data = tmp_path / "data"
    data.mkdir()
    (data / cifar.CIFAR10.folder).symlink_to(tmp_path / "outside" / cifar.CIFAR10.folder)
    with pytest.raises(ValueError, match="symbolic link where a folder belongs"):
        cifar._load_layout(layout, data)
    (data / cifar.CIFAR10.folder).unlink()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(tmp_path / "outside" / cifar.CIFAR10.folder, arcname=cifar.CIFAR10.folder)
    (tmp_path / "archive.tar.gz").write_bytes(buffer.getvalue())
    (data / cifar.CIFAR10.archive).symlink_to(tmp_path / "archive.tar.gz")
    with pytest.raises(ValueError, match=r"cifar-10-python.tar.gz: a symbolic link"):
        cifar._load_layout(dataclasses.replace(layout, archive_md5=hashlib.md5(
            buffer.getvalue(), usedforsecurity=False).hexdigest()), data)


def test_a_regular_cifar_archive_is_still_read(tmp_path: Path) -> None:
    layout = _cifar(tmp_path / "outside")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(tmp_path / "outside" / cifar.CIFAR10.folder, arcname=cifar.CIFAR10.folder)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / cifar.CIFAR10.archive).write_bytes(buffer.getvalue())
    layout = dataclasses.replace(layout, archive_md5=hashlib.md5(
        buffer.getvalue(), usedforsecurity=False).hexdigest())
    assert cifar._load_layout(layout, tmp_path / "data").train_images.shape == (5, 3, 32, 32)


_READS = {"open", "read_bytes", "read_text", "is_file", "exists", "stat", "load", "fromfile",
          "urlopen"}
READERS: dict[tuple[str, str], str] = {
    ("mnist.py", "load_mnist_5k_arrays"): "the sample vendored in the package, not a data folder",
    ("mnist.py", "download_mnist"): "urlopen only: reads through data_files, writes via safe_fs",
    ("weight_files.py", "download"): "urlopen only: reads and writes through safe_fs",
}
"""Every function of models/data that reads a file by path, with why it may."""


def _readers() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(DATA.glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and _reads(node):
                    found.add((path.name, function.name))
    return found


def _reads(call: ast.Call) -> bool:
    """A call that opens or inspects a file by path: a ``Path`` method, or ``open``/``load``
    given a path (``tarfile.open(fileobj=...)``, ``Unpickler.load()`` read bytes already read);
    ``safe_fs`` is the rule."""
    func = call.func
    owner = getattr(func.value, "id", "") if isinstance(func, ast.Attribute) else ""
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if owner == "safe_fs" or name not in _READS:
        return False
    return name not in {"open", "load", "fromfile", "urlopen"} or bool(call.args)


def test_every_dataset_reader_keeps_to_the_one_path_rule() -> None:
    readers = _readers()
    assert sorted(readers - set(READERS)) == [], "read a data file through models.data.data_files"
    assert sorted(set(READERS) - readers) == []


def test_the_loaders_refuse_rather_than_fall_through(tmp_path: Path) -> None:
    """A refused entry in the first data folder is an error, not a reason to try the next one
    (which would let a planted link decide which data is measured)."""
    files = _mnist(tmp_path / "first")
    files["train_labels"].unlink()
    files["train_labels"].symlink_to(tmp_path / "x")
    _mnist(tmp_path / "second")
    search: Callable[[], object] = lambda: data_files.find(  # noqa: E731
        [tmp_path / "first", tmp_path / "second"], [IDX_FILES["train_labels"]])
    with pytest.raises(ValueError, match="symbolic link"):
        search()
