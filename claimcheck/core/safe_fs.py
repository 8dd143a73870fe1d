"""Open committed content inside its root, never through a link: one rule for every such path.

A pull request can commit anything a folder can hold: symbolic links (in and out of the project,
dangling), and, through a checkout tool, FIFOs, sockets and devices. Everything the tool opens
because of committed content (the results store, its artifacts and cache, data folders) goes
through this module, which

* walks from a trusted ``root`` folder (the project, the store) one name at a time, opening each
  folder with ``O_NOFOLLOW | O_DIRECTORY`` relative to the one before (``dir_fd``), so no
  symbolic link anywhere on the way is followed, and a name that is empty, ``.`` or ``..`` or
  holds a separator is refused;
* opens a file with ``O_NOFOLLOW | O_NONBLOCK`` and accepts it only when ``fstat`` says it is a
  regular file with a single name (a FIFO never blocks the open, a device is never read, a hard
  link cannot tell whether its content belongs to the project), and reads at most ``limit``
  bytes (a file linked to ``/dev/zero`` cannot exhaust memory);
* writes by creating a new temp file beside the target (``O_EXCL | O_NOFOLLOW``) and renaming it
  over the target, so an existing file, link or hard link is replaced, never written through;
* deletes only regular files, by name inside a folder opened this way, never a link's target.

Anything refused raises :class:`UnsafeEntry`, whose message names the entry relative to the root
and says what it is; callers turn it into one located warning (an entry that reads as missing) or
into an error that stops the command (a folder the whole command depends on).
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path, PurePosixPath

from claimcheck.core.errors import ClaimcheckError

__all__ = [
    "UnsafeEntry", "entry_kind", "is_file", "list_folder", "make_folders", "read_bytes",
    "relative_parts", "remove_file", "remove_tree", "require_folder", "write_atomic",
]

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CHUNK = 1 << 20


class UnsafeEntry(ClaimcheckError):
    """An entry that must not be followed, read, written or deleted through (see the module
    docstring); ``path`` names it, relative to the root it was opened from."""


def entry_kind(mode: int, links: int = 1) -> str | None:
    """What an entry of ``mode`` (from ``lstat``/``fstat``) is when it is not a regular file
    with one name, or ``None`` when it is one."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    if links > 1:
        return f"a hard link ({links} names for one file)"
    return None


def relative_parts(root: Path, path: Path | str) -> tuple[str, ...]:
    """The names leading from ``root`` to ``path`` (relative to ``root``, or absolute under it),
    each a plain name: ``..``, ``.``, empty names and paths outside ``root`` are refused."""
    written = Path(path)
    if written.is_absolute():
        try:
            written = written.relative_to(root)
        except ValueError:
            raise UnsafeEntry(f"{path} lies outside {root}") from None
    parts = PurePosixPath(written.as_posix()).parts
    if not parts or any(part in ("", ".", "..") or "/" in part or "\0" in part for part in parts):
        raise UnsafeEntry(f"{written.as_posix()!r} is not a plain path inside {root}")
    return tuple(parts)


def _shown(parts: Sequence[str]) -> str:
    return "/".join(parts) or "."


@contextmanager
def _folder(root: Path, parts: Sequence[str], create: bool = False) -> Iterator[int]:
    """A descriptor of the folder ``root/parts`` reached without following any link; with
    ``create``, missing folders are made. Raises :class:`UnsafeEntry` or ``FileNotFoundError``."""
    fd = os.open(root, _FOLDER_FLAGS & ~os.O_NOFOLLOW)
    try:
        for index, name in enumerate(parts):
            try:
                child = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with suppress(FileExistsError):  # made meanwhile, or a dangling link:
                    os.mkdir(name, dir_fd=fd)      # the open below tells which
                child = os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            except OSError as error:
                if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                kind = _kind_at(fd, name) or "not a folder"
                raise UnsafeEntry(f"{kind} where a folder belongs; it is never followed",
                                  _shown(parts[: index + 1])) from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _lstat_at(fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _kind_at(fd: int, name: str) -> str | None:
    """:func:`entry_kind` of the entry ``name`` in the folder ``fd`` (``None``: a regular file,
    or nothing there)."""
    found = _lstat_at(fd, name)
    return None if found is None else entry_kind(found.st_mode)


def require_folder(root: Path, path: Path | str) -> None:
    """Raise :class:`UnsafeEntry` unless every existing name from ``root`` to ``path`` is a real
    folder (a missing tail is fine: it will be made as a folder)."""
    parts = relative_parts(root, path)
    try:
        with _folder(root, parts):
            return
    except FileNotFoundError:
        return


def make_folders(root: Path, path: Path | str) -> None:
    """Make ``root/path`` as real folders, refusing any existing name that is not one."""
    with _folder(root, relative_parts(root, path), create=True):
        return


def read_bytes(root: Path, path: Path | str, limit: int) -> bytes:
    """The content of the regular file ``root/path``, at most ``limit`` bytes.

    Raises ``FileNotFoundError`` when it is missing, :class:`UnsafeEntry` when it (or a folder on
    the way) is anything but a regular file with one name reached without links, or when it
    holds more than ``limit`` bytes.
    """
    parts = relative_parts(root, path)
    with _folder(root, parts[:-1]) as folder:
        kind = _kind_at(folder, parts[-1])  # not even opened when it is no regular file
        if kind is not None:
            raise UnsafeEntry(f"{kind}, not a regular file; it is never read", _shown(parts))
        try:
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=folder)
        except OSError as error:
            if error.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENODEV):
                raise
            kind = _kind_at(folder, parts[-1]) or "not a regular file"
            raise UnsafeEntry(f"{kind}, not a regular file; it is never read",
                              _shown(parts)) from None
    try:
        found = os.fstat(fd)
        kind = entry_kind(found.st_mode, found.st_nlink)
        if kind is not None:
            raise UnsafeEntry(f"{kind}, not a regular file; it is never read", _shown(parts))
        if found.st_size > limit:
            raise UnsafeEntry(f"{found.st_size:,} bytes, over the limit of {limit:,}",
                              _shown(parts))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew since fstat
            raise UnsafeEntry(f"over the limit of {limit:,} bytes", _shown(parts))
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_file(root: Path, path: Path | str) -> bool:
    """Whether ``root/path`` is a regular file with one name, reached without links (``False``:
    missing); :class:`UnsafeEntry` when it, or a folder on the way, is anything else."""
    parts = relative_parts(root, path)
    try:
        with _folder(root, parts[:-1]) as folder:
            found = _lstat_at(folder, parts[-1])
    except FileNotFoundError:
        return False
    if found is None:
        return False
    kind = entry_kind(found.st_mode, found.st_nlink)
    if kind is not None:
        raise UnsafeEntry(f"{kind}, not a regular file; it is never read", _shown(parts))
    return True


def write_atomic(root: Path, path: Path | str, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``root/path`` through a new temp file renamed over it (fsynced first
    unless ``durable`` is off), making missing folders; an existing link or hard link at
    ``path`` is replaced, never written through; a folder there is refused."""
    parts = relative_parts(root, path)
    name = parts[-1]
    with _folder(root, parts[:-1], create=True) as folder:
        kind = _kind_at(folder, name)
        if kind == "a folder":
            raise UnsafeEntry("a folder where a file belongs; it is left alone", _shown(parts))
        temp = f".{name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o666, dir_fd=folder)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise


def list_folder(root: Path, path: Path | str) -> list[tuple[str, str | None]]:
    """The names in the folder ``root/path`` (reached without links), sorted, each with
    :func:`entry_kind` of its own entry (``None``: a regular file); empty when it is missing."""
    parts = relative_parts(root, path)
    try:
        with _folder(root, parts) as folder:
            names = sorted(os.listdir(folder))
            entries: list[tuple[str, str | None]] = []
            for name in names:
                try:
                    found = os.stat(name, dir_fd=folder, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                entries.append((name, entry_kind(found.st_mode, found.st_nlink)))
            return entries
    except FileNotFoundError:
        return []


def remove_file(root: Path, path: Path | str) -> bool:
    """Delete ``root/path`` if it is a regular file reached without links (a hard link's own
    name included: the other names keep the content); anything else is left alone. Whether it
    was deleted."""
    parts = relative_parts(root, path)
    try:
        with _folder(root, parts[:-1]) as folder:
            found = _lstat_at(folder, parts[-1])
            if found is None or not stat.S_ISREG(found.st_mode):
                return False
            os.unlink(parts[-1], dir_fd=folder)
            return True
    except FileNotFoundError:
        return False


def remove_tree(root: Path, path: Path | str) -> None:
    """Delete the folder ``root/path`` and everything in it, reached without links: a link on
    the way is refused (:class:`UnsafeEntry`), a link inside is removed itself, never its
    target (``shutil.rmtree`` with a folder descriptor never follows one)."""
    parts = relative_parts(root, path)
    try:
        with _folder(root, parts[:-1]) as folder:
            found = _lstat_at(folder, parts[-1])
            if found is None:
                return
            if not stat.S_ISDIR(found.st_mode):
                kind = entry_kind(found.st_mode) or "a file"
                raise UnsafeEntry(f"{kind} where a folder belongs; it is left alone",
                                  _shown(parts))
            shutil.rmtree(parts[-1], dir_fd=folder)
    except FileNotFoundError:
        return
