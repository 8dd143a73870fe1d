"""The source cache: papers' downloaded sources, kept outside git and addressed by content.

Where: ``$CLAIMCHECK_SOURCES`` if set, else ``[tool.claimcheck] sources`` (relative to the
project root), else ``$XDG_CACHE_HOME/claimcheck/sources`` (``~/.cache/claimcheck/sources``).
The default lies outside the repository on purpose: a paper's full text is not ours to
commit, unless its licence allows it, and the wiki holds short quotes only.

Layout::

    README.md, CACHEDIR.TAG      what this folder is; backup tools skip it
    blobs/<sha256>               each downloaded file, named by its own hash
    papers/<key stem>.json       {"key", "versions": {"3": {"sha256", "kind", "url",
                                  "fetched"}}, "latest": "3"}: what was fetched for a paper

A card that pins its source finds the file by the pin's sha256 alone; an unpinned card uses the
latest version fetched, but only from a cache outside the project: a cache inside the project
can be committed by a pull request, so there it decides nothing unless the card pins the source's
sha256 and the blob's bytes hash to it (an unpinned card reads it as missing). Every write is
atomic (a temp file, then a rename); a blob whose bytes no
longer match its name, or a corrupt ``papers/`` entry, reads as missing. Deleting the folder is
always safe: ``claimcheck papers fetch`` brings it back.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcheck.cards.frontmatter import PaperCard, SourceKind
from claimcheck.core import safe_fs, strict_json
from claimcheck.core.config import ProjectConfig, user_cache_folder
from claimcheck.core.provenance import now_iso
from claimcheck.core.safe_fs import UnsafeEntry

if TYPE_CHECKING:
    from claimcheck.sources.quotes import SourceIndex

__all__ = ["CachedSource", "SourceCache", "cache_folder"]

ENVIRONMENT = "CLAIMCHECK_SOURCES"
README = """# claimcheck source cache

Papers' sources downloaded by `claimcheck papers fetch`, used by `claimcheck lint` to check
claims' quotes and locators. Files are named by their sha256. Safe to delete; never commit it:
a paper's full text is not the wiki's to publish unless its licence says so.
"""
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by claimcheck.\n"
)


def cache_folder(config: ProjectConfig | None) -> Path:
    """The cache folder for ``config`` (see the module docstring), absolute: a relative
    ``$CLAIMCHECK_SOURCES`` or ``$XDG_CACHE_HOME`` is taken from the working folder, which may
    be the project, so whether the cache lies inside the project is decided on this path."""
    if os.environ.get(ENVIRONMENT):
        return Path(os.path.abspath(Path(os.environ[ENVIRONMENT]).expanduser()))
    configured = config.raw.get("sources") if config is not None else None
    if isinstance(configured, str) and config is not None:  # as written: links are refused
        return Path(os.path.normpath(config.root / configured))
    return user_cache_folder() / "claimcheck" / "sources"


def _inside(folder: Path, root: Path) -> bool:
    """Whether ``folder`` is ``root`` or lies below it, as written or with links resolved."""
    return any(top == path or top in path.parents for top, path in (
        (Path(os.path.abspath(root)), folder),
        (Path(os.path.realpath(root)), Path(os.path.realpath(folder)))))


def sha256_of(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def paper_stem(key: str) -> str:
    """A file name for a paper key (``doi:10.1/x`` -> ``doi-10.1_2fx``)."""
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch in ".-") else f"_{ord(ch):02x}"
                   for ch in key.replace(":", "-", 1))


@dataclass(frozen=True)
class CachedSource:
    """A source found in the cache: its hash, kind, version and (for LaTeX) its index."""

    sha256: str
    kind: SourceKind
    version: int | None
    index: SourceIndex | None
    problem: str = ""


MAX_SOURCE_BYTES = 100_000_000
"""The largest cached file read back (``papers fetch`` downloads at most as much)."""


class SourceCache:
    """Read and write the cache at ``folder``.

    A cache configured inside the project may be committed, so it is untrusted like the results
    store: every file is read and written through :mod:`claimcheck.core.safe_fs` from ``boundary``
    (the project for a configured cache, else the folder that holds the cache), never through a
    link, and a read is bounded by the download limit.
    """

    def __init__(self, folder: Path, boundary: Path | None = None,
                 committable: bool = False) -> None:
        self.folder = Path(os.path.abspath(folder))
        self.boundary = Path(os.path.abspath(boundary)) if boundary else self.folder.parent
        self.committable = committable
        """The cache lies inside the project: only a source pinned in a card is used."""

    @classmethod
    def for_config(cls, config: ProjectConfig | None) -> SourceCache:
        """The cache that ``config`` points at."""
        folder = cache_folder(config)
        inside = config is not None and _inside(folder, config.root)
        return cls(folder, config.root if inside and config is not None else None,
                   committable=inside)

    def _read(self, relative: str) -> bytes | None:
        try:
            return safe_fs.read_bytes(self.boundary, self.folder / relative, MAX_SOURCE_BYTES)
        except (OSError, UnsafeEntry):
            return None

    def _write(self, relative: str, data: bytes) -> None:
        safe_fs.write_atomic(self.boundary, self.folder / relative, data)

    def _prepare(self) -> None:
        self.boundary.mkdir(parents=True, exist_ok=True)  # the operator's folder, or the project
        for name in ("blobs", "papers"):
            safe_fs.make_folders(self.boundary, self.folder / name)
        for name, text in (("README.md", README), ("CACHEDIR.TAG", CACHEDIR_TAG)):
            if not os.path.lexists(self.folder / name):
                self._write(name, text.encode("utf-8"))

    def blob(self, sha256: str) -> bytes | None:
        """The bytes stored under ``sha256``, or ``None`` (missing, corrupt or unsafe)."""
        data = self._read(f"blobs/{sha256}")
        return data if data is not None and sha256_of(data) == sha256 else None

    def record(self, key: str) -> dict[str, Any]:
        """What was fetched for a paper (empty when nothing, corrupt or unsafe)."""
        raw = self._read(f"papers/{paper_stem(key)}.json")
        try:
            data = json.loads(raw) if raw is not None else {}
        except (ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) and data.get("key") == key else {}

    def store(self, key: str, version: int | None, kind: SourceKind, url: str,
              data: bytes) -> str:
        """Store a downloaded file for a paper; return its sha256."""
        self._prepare()
        digest = sha256_of(data)
        if self.blob(digest) is None:
            self._write(f"blobs/{digest}", data)
        record = self.record(key) or {"key": key, "versions": {}}
        label = str(version) if version is not None else "unversioned"
        record["versions"][label] = {"sha256": digest, "kind": kind.value, "url": url,
                                     "fetched": now_iso()}
        if version is not None or "latest" not in record:
            record["latest"] = label
        self._write(f"papers/{paper_stem(key)}.json",
                    strict_json.dumps(record, indent=2, sort_keys=True).encode("utf-8"))
        return digest

    def lookup(self, card: PaperCard) -> CachedSource | None:
        """The source to check ``card`` against: its pin, else (in a cache outside the
        project only) the latest fetched version."""
        if card.source is not None:
            digest, kind, version = card.source.sha256, card.source.kind, card.source.version
        elif self.committable:
            return None
        else:
            record = self.record(card.paper_key)
            entry = record.get("versions", {}).get(record.get("latest", ""), {})
            if not isinstance(entry, dict) or "sha256" not in entry:
                return None
            digest = str(entry["sha256"])
            kind = SourceKind(entry.get("kind", "latex"))
            latest = record.get("latest")
            version = int(latest) if isinstance(latest, str) and latest.isdigit() else None
        data = self.blob(digest)
        if data is None:
            return None
        index, problem = _index(digest, data)
        return CachedSource(digest, kind, version, index, problem)


_INDEXES: dict[str, tuple[SourceIndex | None, str]] = {}


def _index(digest: str, data: bytes) -> tuple[SourceIndex | None, str]:
    """The locator index of a source, built once per process and hash."""
    from claimcheck.sources.latex import SourceFormatError, read_source
    from claimcheck.sources.quotes import SourceIndex

    if digest not in _INDEXES:
        if len(_INDEXES) >= 32:
            _INDEXES.pop(next(iter(_INDEXES)))
        try:
            project = read_source(data)
            if project.is_pdf:
                _INDEXES[digest] = (None, "the cached source is a PDF, which has no locator "
                                          "index")
            else:
                _INDEXES[digest] = (SourceIndex.from_project(project), "")
        except SourceFormatError as error:
            _INDEXES[digest] = (None, f"the cached source cannot be read: {error}")
    return _INDEXES[digest]
