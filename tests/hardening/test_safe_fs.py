"""The one rule for committed paths (issue 22 §1): every kind of entry a pull request (or a
checkout tool) can leave where a file belongs is refused, never followed, read, written or
deleted through (``claimcheck/core/safe_fs.py``)."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from claimcheck.core import safe_fs
from claimcheck.core.safe_fs import UnsafeEntry

SECRET = b"the operator's file\n"


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    """A root holding a regular file, and a folder outside it holding a secret."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "inside.txt").write_bytes(b"inside\n")
    (outside / "secret.txt").write_bytes(SECRET)
    (outside / "sub").mkdir()
    (outside / "sub" / "deep.txt").write_bytes(SECRET)
    return root, outside


def _device(entry: Path, outside: Path) -> None:
    try:
        os.mknod(entry, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")


@pytest.fixture
def bound_socket() -> Iterator[list[socket.socket]]:
    sockets: list[socket.socket] = []
    yield sockets
    for held in sockets:
        held.close()


MAKERS: dict[str, tuple[Callable[[Path, Path], None], str]] = {
    "link into the root": (lambda e, o: e.symlink_to(e.parent / "inside.txt"), "symbolic link"),
    "link out of the root": (lambda e, o: e.symlink_to(o / "secret.txt"), "symbolic link"),
    "link to a folder outside": (lambda e, o: e.symlink_to(o), "symbolic link"),
    "dangling link": (lambda e, o: e.symlink_to(e.parent / "nowhere"), "symbolic link"),
    "link to /dev/zero": (lambda e, o: e.symlink_to("/dev/zero"), "symbolic link"),
    "link to /dev/stdin": (lambda e, o: e.symlink_to("/dev/stdin"), "symbolic link"),
    "FIFO": (lambda e, o: os.mkfifo(e), "FIFO"),
    "device": (_device, "device"),
    "folder": (lambda e, o: e.mkdir(), "folder"),
    "hard link to a file outside": (lambda e, o: os.link(o / "secret.txt", e), "hard link"),
}


def _make(place: tuple[Path, Path], kind: str, sockets: list[socket.socket]) -> tuple[Path, str]:
    """``root/entry.json`` made as ``kind``, and the word a refusal of it names."""
    root, outside = place
    entry = root / "entry.json"
    if kind == "socket":
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        held.bind(str(entry))
        sockets.append(held)
        return entry, "socket"
    make, word = MAKERS[kind]
    make(entry, outside)
    return entry, word


KINDS = [*MAKERS, "socket"]


def _outside_untouched(outside: Path) -> None:
    assert (outside / "secret.txt").read_bytes() == SECRET
    assert (outside / "sub" / "deep.txt").read_bytes() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt", "sub"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_entry_that_is_no_plain_file_is_never_read(
    place: tuple[Path, Path], kind: str, bound_socket: list[socket.socket]
) -> None:
    root, outside = place
    _, word = _make(place, kind, bound_socket)
    with pytest.raises(UnsafeEntry, match=word) as refused:
        safe_fs.read_bytes(root, "entry.json", 1 << 20)
    assert refused.value.path == "entry.json"
    with pytest.raises(UnsafeEntry, match=word):
        safe_fs.is_file(root, root / "entry.json")
    _outside_untouched(outside)


@pytest.mark.parametrize("kind", KINDS)
def test_writing_replaces_the_entry_and_never_writes_through_it(
    place: tuple[Path, Path], kind: str, bound_socket: list[socket.socket]
) -> None:
    root, outside = place
    entry, _ = _make(place, kind, bound_socket)
    if kind == "folder":
        with pytest.raises(UnsafeEntry, match="folder"):
            safe_fs.write_atomic(root, "entry.json", b"new")
        assert entry.is_dir()
    else:
        safe_fs.write_atomic(root, "entry.json", b"new")
        assert not entry.is_symlink() and entry.read_bytes() == b"new"
        assert os.lstat(entry).st_nlink == 1
    assert (root / "inside.txt").read_bytes() == b"inside\n"
    _outside_untouched(outside)
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("kind", KINDS)
def test_deleting_removes_only_a_regular_file_never_a_target(
    place: tuple[Path, Path], kind: str, bound_socket: list[socket.socket]
) -> None:
    root, outside = place
    entry, _ = _make(place, kind, bound_socket)
    removed = safe_fs.remove_file(root, "entry.json")
    assert removed == (kind == "hard link to a file outside")  # its own name only
    assert os.path.lexists(entry) != removed
    assert (root / "inside.txt").read_bytes() == b"inside\n"
    _outside_untouched(outside)


@pytest.mark.parametrize("kind", ["link out of the root", "link to a folder outside",
                                  "link into the root", "dangling link"])
def test_a_link_on_the_way_is_never_followed(place: tuple[Path, Path], kind: str) -> None:
    root, outside = place
    (root / "real").mkdir()
    target = {"link out of the root": outside / "sub", "link to a folder outside": outside,
              "link into the root": root / "real", "dangling link": root / "gone"}[kind]
    (root / "folder").symlink_to(target)
    for act in (lambda: safe_fs.read_bytes(root, "folder/deep.txt", 100),
                lambda: safe_fs.write_atomic(root, "folder/new.txt", b"x"),
                lambda: safe_fs.remove_file(root, "folder/deep.txt"),
                lambda: safe_fs.remove_tree(root, "folder/sub"),
                lambda: safe_fs.make_folders(root, "folder/made"),
                lambda: safe_fs.list_folder(root, "folder"),
                lambda: safe_fs.require_folder(root, "folder/x")):
        with pytest.raises(UnsafeEntry, match="symbolic link where a folder belongs"):
            act()
    _outside_untouched(outside)
    assert list((root / "real").iterdir()) == []


@pytest.mark.parametrize("name", ["..", "../outside/secret.txt", "a/../../outside/secret.txt",
                                  "", "/"])
def test_a_name_that_climbs_or_is_not_plain_is_refused(
    place: tuple[Path, Path], name: str
) -> None:
    root, outside = place
    with pytest.raises(UnsafeEntry):
        safe_fs.read_bytes(root, name, 100)
    with pytest.raises(UnsafeEntry):
        safe_fs.write_atomic(root, name, b"x")
    with pytest.raises(UnsafeEntry):
        safe_fs.remove_file(root, name)
    _outside_untouched(outside)


def test_an_absolute_path_outside_the_root_is_refused(place: tuple[Path, Path]) -> None:
    root, outside = place
    with pytest.raises(UnsafeEntry, match="lies outside"):
        safe_fs.read_bytes(root, outside / "secret.txt", 100)
    assert safe_fs.read_bytes(root, root / "inside.txt", 100) == b"inside\n"


def test_reads_are_bounded(place: tuple[Path, Path]) -> None:
    root, _ = place
    (root / "big.json").write_bytes(b"x" * 1001)
    with pytest.raises(UnsafeEntry, match="over the limit of 1,000"):
        safe_fs.read_bytes(root, "big.json", 1000)
    assert safe_fs.read_bytes(root, "big.json", 1001) == b"x" * 1001


def test_remove_tree_removes_links_inside_never_their_targets(place: tuple[Path, Path]) -> None:
    root, outside = place
    (root / "gen" / "nested").mkdir(parents=True)
    (root / "gen" / "to-folder").symlink_to(outside)
    (root / "gen" / "nested" / "to-file").symlink_to(outside / "secret.txt")
    safe_fs.remove_tree(root, "gen")
    assert not (root / "gen").exists()
    _outside_untouched(outside)
    (root / "linked").symlink_to(outside)
    with pytest.raises(UnsafeEntry, match="symbolic link"):
        safe_fs.remove_tree(root, "linked")
    _outside_untouched(outside)


def test_listing_names_each_entry_kind(place: tuple[Path, Path]) -> None:
    root, outside = place
    (root / "link").symlink_to(outside)
    (root / "folder").mkdir()
    os.mkfifo(root / "fifo")
    listed = dict(safe_fs.list_folder(root.parent, root.name))
    assert listed == {"inside.txt": None, "link": "a symbolic link", "folder": "a folder",
                      "fifo": "a FIFO"}
