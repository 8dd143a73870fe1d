"""The download helpers of ``models/data`` never write through a committed link (rt33 D1/D2).

``python -m models.data.weight_files`` wrote ``<folder>/efficient-capsnet/<file>.part`` with
``Path.write_bytes``, so a ``.part`` file committed as a link to the operator's ``~/.bashrc`` had
the download written into it; ``download_mnist`` wrote into a ``mnist/`` folder committed as a
link out of the project. Both now write through :func:`models.data.data_files.write`
(:func:`claimcheck.core.safe_fs.write_atomic`) and read an existing file without following a
link. The network is faked: ``urlopen`` returns fixed bytes that pass verification.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

import models.data.mnist as mnist
import models.data.weight_files as weight_files

PAYLOAD = b"WEIGHTS-PAYLOAD"


class _Response(io.BytesIO):
    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@pytest.fixture
def network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A fake network: every URL answers ``PAYLOAD``, which verifies as every file."""
    asked: list[str] = []

    def urlopen(url: str, timeout: float = 0) -> _Response:
        asked.append(url)
        return _Response(PAYLOAD)

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    monkeypatch.setattr(weight_files, "verify", lambda file, payload: "")
    monkeypatch.setattr(mnist, "_md5", lambda payload: "fake")
    monkeypatch.setattr(mnist, "IDX_GZ_MD5", {"t10k-labels-idx1-ubyte.gz": "fake"})
    return asked


def _outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "bashrc").write_text("the operator's file\n")
    return folder


def test_a_linked_part_file_is_never_written_through(tmp_path: Path, network: list[str]) -> None:
    outside = _outside(tmp_path)
    preset, file = sorted(weight_files.FILES.items())[0]
    folder = tmp_path / "data" / weight_files.SUBFOLDER
    folder.mkdir(parents=True)
    os.symlink(outside / "bashrc", (folder / file.name).with_suffix(".part"))
    assert weight_files.main(["--into", str(tmp_path / "data"), preset]) == 0
    assert (outside / "bashrc").read_text() == "the operator's file\n"
    assert (folder / file.name).read_bytes() == PAYLOAD


@pytest.mark.parametrize("where", ["subfolder", "file"])
def test_a_linked_weight_destination_is_refused_in_one_line(
        tmp_path: Path, network: list[str], capsys: pytest.CaptureFixture[str],
        where: str) -> None:
    outside = _outside(tmp_path)
    preset, file = sorted(weight_files.FILES.items())[0]
    data = tmp_path / "data"
    data.mkdir()
    if where == "subfolder":
        os.symlink(outside, data / weight_files.SUBFOLDER)
    else:
        (data / weight_files.SUBFOLDER).mkdir()
        os.symlink(outside / "bashrc", data / weight_files.SUBFOLDER / file.name)
    assert weight_files.main(["--into", str(data), preset]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert "a symbolic link" in line and "never" in line, line
    assert sorted(os.listdir(outside)) == ["bashrc"]
    assert (outside / "bashrc").read_text() == "the operator's file\n"


def test_a_linked_mnist_folder_is_refused(tmp_path: Path, network: list[str]) -> None:
    outside = _outside(tmp_path)
    (tmp_path / "data").mkdir()
    os.symlink(outside, tmp_path / "data" / "mnist")
    with pytest.raises(ValueError, match=r"mnist: a symbolic link") as refused:
        mnist.download_mnist(tmp_path / "data" / "mnist")
    assert "\n" not in str(refused.value)
    assert sorted(os.listdir(outside)) == ["bashrc"]


def test_a_linked_mnist_file_is_refused_and_a_linked_part_left_alone(
        tmp_path: Path, network: list[str]) -> None:
    outside = _outside(tmp_path)
    target = tmp_path / "data" / "mnist"
    target.mkdir(parents=True)
    os.symlink(outside / "bashrc", target / "t10k-labels-idx1-ubyte.part")
    assert mnist.download_mnist(target) == target
    assert (target / "t10k-labels-idx1-ubyte.gz").read_bytes() == PAYLOAD
    assert (outside / "bashrc").read_text() == "the operator's file\n"
    (target / "t10k-labels-idx1-ubyte.gz").unlink()
    os.symlink(outside / "bashrc", target / "t10k-labels-idx1-ubyte.gz")
    with pytest.raises(ValueError, match="a symbolic link"):
        mnist.download_mnist(target)
    assert (outside / "bashrc").read_text() == "the operator's file\n"


def test_a_present_verified_file_is_kept(tmp_path: Path, network: list[str]) -> None:
    target = tmp_path / "mnist"
    target.mkdir()
    (target / "t10k-labels-idx1-ubyte.gz").write_bytes(b"already here")
    assert mnist.download_mnist(target) == target and not network
