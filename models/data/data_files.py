"""Dataset files are read only as regular files of their data folder (issue 33 item 4).

A data folder is the operator's (``data_folders``), but what lies inside it may come from a
pull request or a shared disk. Every loader of ``models/data`` therefore finds and opens its
files through :mod:`claimcheck.core.safe_fs` from the data folder it searched: a symbolic link
(to a file or a folder on the way), a FIFO, a device, a folder or a hard link where a file
belongs is refused with one line naming the entry, never read through (docs/reliability.md,
"One path rule").
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterable
from pathlib import Path

from claimcheck.core import safe_fs
from claimcheck.core.safe_fs import UnsafeEntry
from models.data.identity import shown_folder

MAX_DATA_BYTES = 1 << 30
"""The largest dataset file read, compressed or not (smallNORB's training images: 448 MB)."""


def _refused(base: Path, error: UnsafeEntry) -> ValueError:
    where = f"{shown_folder(base)}/{error.path}" if error.path else shown_folder(base)
    return ValueError(f"{where}: {error.message}; a dataset file is read only as a regular "
                      "file of its data folder")


def present(base: Path, candidate: Path) -> bool:
    """Whether ``candidate`` is a regular file reached from the data folder ``base`` without a
    link (``False``: missing); ``ValueError`` naming the entry when anything else is there."""
    try:
        return safe_fs.is_file(base, candidate)
    except UnsafeEntry as error:
        raise _refused(base, error) from None
    except OSError:
        return False


def find(folders: Iterable[Path], relatives: Iterable[str]) -> tuple[Path, Path] | None:
    """The first ``(data folder, file)`` whose file, one of ``relatives`` inside the folder, is
    :func:`present`; every folder is searched in order, each relative path in order."""
    names = tuple(relatives)
    for base in folders:
        for relative in names:
            if present(base, base / relative):
                return base, base / relative
    return None


def read(base: Path, candidate: Path, limit: int = MAX_DATA_BYTES, gunzip: bool = True) -> bytes:
    """The bytes of ``candidate``, a regular file of the data folder ``base`` (at most
    ``limit``); with ``gunzip``, a ``.gz`` file is decompressed, to at most ``limit`` bytes
    too."""
    try:
        raw = safe_fs.read_bytes(base, candidate, limit)
    except UnsafeEntry as error:
        raise _refused(base, error) from None
    if not gunzip or candidate.suffix != ".gz":
        return raw
    with gzip.GzipFile(fileobj=io.BytesIO(raw)) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{shown_folder(candidate)}: decompresses to over {limit:,} bytes")
    return data
