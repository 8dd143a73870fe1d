"""The results store ``.claimcheck/``: one JSON file per claim, written atomically, under a lock.

Layout (see ``README.md`` written into the folder)::

    .claimcheck/
      README.md, CACHEDIR.TAG, .gitignore
      results/<stem>.json         one Result per claim, stem = result_stem(global id)
      artifacts/<stem>/<gen>/...  files a check produced (training curves), one folder per
                                  generation, named by a hash of its files
      .lock                       held by a whole `claimcheck verify` run
      .write.lock                 held for each single write
      cache/                      parsed source facts for fingerprints (disposable, ignored)

A write goes to a temp file in the same folder, then is renamed over the old file, so a reader
(or a ``kill -9`` of the writer) only ever sees the old entry or the new one. Durability against
a power loss is paid once per run, not once per result: inside :meth:`ResultStore.run_lock`
each rename is recorded and, when the run ends (Ctrl-C included), every file written is
fsynced, then the folders (:meth:`ResultStore.sync`); a write outside a run fsyncs its temp file
before the rename. A power loss in the middle of a run can therefore lose, or leave unreadable
(read as missing, with a warning, and re-run), results written in that run. A new result's
artifacts go to a new generation folder first, and the old generation is deleted only once the
new JSON is in place, so a failed write leaves the kept result and its artifacts untouched.

A failed run never destroys a better result (:meth:`ResultStore.record`): an errored or timed-out
attempt does not replace a successful result, nor does a ``train`` result made at a smaller
budget replace one made at a larger budget. The attempt goes into the kept result's ``history``
(and, if it failed, its ``last_attempt``).

A corrupt, foreign or oversized (:data:`MAX_RESULT_BYTES`) entry is a :class:`StoreWarning` and
reads as missing; it never crashes the tool. A folder that cannot be written (read-only, disk
full) raises :class:`StoreError` with one line. Reading imports neither torch nor any check
module.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from filelock import FileLock, Timeout

from claimcheck.errors import StoreError
from claimcheck.result import (
    HISTORY_LIMIT,
    SCHEMA,
    Result,
    budget_rank,
    succeeded,
)

__all__ = [
    "CACHEDIR_SIGNATURE", "HISTORY_LIMIT", "MAX_RESULT_BYTES", "ORPHAN_AGE_S", "SCHEMA",
    "Recorded", "Result", "ResultStore", "StoreWarning", "kept_reason", "result_stem",
]

ORPHAN_AGE_S = 600.0
MAX_RESULT_BYTES = 10 * 1024 * 1024
"""A result file larger than this is skipped with a warning, as an oversized card is."""
CACHEDIR_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
_README = """\
# claimcheck results store

Written by `claimcheck verify`; read by `claimcheck status` and the site.

* `results/<paper>__<claim>.json`: the last verdict of one claim, with its reason, what was
  measured and expected, the environment, the git commit, and a short history of earlier verdicts.
* `artifacts/<paper>__<claim>/<generation>/`: files a check produced, such as training curves.
* `fingerprint` in each result is a sha256 of the claim and the source code it depends on. When
  it no longer matches, the result is shown as stale and `claimcheck verify` runs it again.
* Every read judges the stored measurement against the card's current `expect` again: a stored
  verdict that disagrees with its own measurement is shown as unverified.

`cache/` only saves time (parsed imports of source files); it is not committed.

Commit `results/` and `artifacts/` so that an expensive result survives and the site can be built
anywhere. Deleting this folder is safe: every claim just counts as never run.
"""
_GITIGNORE = ".lock\n.write.lock\n*.tmp\ncache/\n"
_MISSING = object()


class StoreWarning(UserWarning):
    """A store entry was ignored (corrupt, foreign schema, oversized or misplaced)."""


def result_stem(global_id: str) -> str:
    """File stem of a claim: ``2101.12491/mnist-params`` -> ``2101.12491__mnist-params``.

    Old-style arXiv ids keep their slash as ``_`` (``cs/0112017/x`` -> ``cs_0112017__x``).
    Other paper keys (``doi:10.1038/X``, ``openreview:ID``, ``url:slug``) become
    ``<scheme>-<id>`` with every character outside ``A-Za-z0-9.-`` written ``_XX`` (its hex
    code, ``_`` included), so that distinct keys give distinct names, none with a separator or
    ``..``; a stem longer than 150 characters is cut and suffixed with a hash of the whole key.
    """
    paper, _, claim = global_id.rpartition("/")
    scheme, colon, identifier = paper.partition(":")
    if colon and scheme in ("doi", "openreview", "url") and identifier:
        encoded = "".join(
            ch if (ch.isascii() and ch.isalnum()) or ch in ".-" else
            "".join(f"_{byte:02x}" for byte in ch.encode("utf-8"))
            for ch in identifier
        ).replace("..", "._2e")
        paper_stem = f"{scheme}-{encoded}"
        if len(paper_stem) > 150:
            digest = hashlib.sha256(paper.encode("utf-8")).hexdigest()[:16]
            paper_stem = f"{paper_stem[:120]}-{digest}"
    else:
        paper_stem = paper.replace("/", "_")
    stem = f"{paper_stem}__{claim}"
    if not paper or not claim or ".." in stem or not all(
        ch.isalnum() or ch in "._-" for ch in stem
    ):
        raise ValueError(f"not a global claim id: {global_id!r}")
    return stem


def kept_reason(previous: Result | None, new: Result) -> str:
    """Why ``previous`` stays in place of ``new`` (``""``: ``new`` replaces it).

    A successful result is never replaced by a failed attempt, and a successful ``train``
    result never by one made at a smaller budget.
    """
    if previous is None or not succeeded(previous):
        return ""
    if not succeeded(new):
        return "failed"
    if "train" == new.tier == previous.tier and budget_rank(new.budget) < budget_rank(
        previous.budget
    ):
        return f"was made at the smaller budget {new.budget!r}"
    return ""


@dataclasses.dataclass(frozen=True)
class Recorded:
    """What :meth:`ResultStore.record` did: the result now stored, and why the new one was not
    stored in its place (``""`` when it was)."""

    stored: Result
    kept_because: str = ""


class ResultStore:
    """The ``.claimcheck/`` folder of one project."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.results_dir = folder / "results"
        self.artifacts_dir = folder / "artifacts"
        self._write_lock = FileLock(str(folder / ".write.lock"))
        self._laid_out = False
        self._unsynced: set[Path] | None = None  # files renamed in this run, not yet fsynced

    def show(self, path: Path) -> str:
        """``path`` as messages print it: relative to the folder that holds the store."""
        try:
            return str(path.relative_to(self.folder.parent))
        except ValueError:
            return str(path)

    def path_of(self, global_id: str) -> Path:
        """The result file of ``global_id`` (which may not exist)."""
        return self.results_dir / f"{result_stem(global_id)}.json"

    def read(self, global_id: str) -> Result | None:
        """The stored result of ``global_id``; ``None`` when missing or corrupt (with a warning)."""
        return self._load(self.path_of(global_id), expected_claim=global_id)

    def read_all(self) -> dict[str, Result]:
        """Every readable result, by global claim id."""
        if not self.results_dir.is_dir():
            return {}
        results: dict[str, Result] = {}
        for path in sorted(self.results_dir.glob("*.json")):
            result = self._load(path, expected_claim=None)
            if result is not None:
                results[result.claim] = result
        return results

    def write(self, result: Result, artifacts_dir: Path | None = None) -> Result:
        """:meth:`record` ``result`` and return what is stored now."""
        return self.record(result, artifacts_dir).stored

    def record(
        self, result: Result, artifacts_dir: Path | None = None, previous: object = _MISSING
    ) -> Recorded:
        """Store ``result`` atomically, unless the stored one is better (:func:`kept_reason`).

        ``artifacts_dir`` is the check's scratch folder: the files named in ``result.artifacts``
        are moved into a new generation folder ``artifacts/<stem>/<gen>/``. ``previous`` is the
        stored result as the caller read it under the run lock (default: read it now).
        """
        path = self.path_of(result.claim)
        self._ensure_layout()
        with self._io_errors("lock", self.folder / ".write.lock"), self._write_lock:
            before = (self._load(path, expected_claim=result.claim) if previous is _MISSING
                      else previous)
            assert before is None or isinstance(before, Result)
            why = kept_reason(before, result)
            if before is not None and why:
                attempt = result.attempt_entry(why)
                kept = dataclasses.replace(
                    before, history=[*before.history, attempt][-HISTORY_LIMIT:],
                    last_attempt=attempt if not succeeded(result) else before.last_attempt,
                )
                with self._io_errors("write", path):
                    self._replace(path, kept.to_text())
                return Recorded(kept, why)
            history = [*before.history, before.history_entry()] if before else result.history
            stored = dataclasses.replace(result, history=history[-HISTORY_LIMIT:],
                                         last_attempt=None)
            generation = None
            if artifacts_dir is not None:
                with self._io_errors("write", self.artifacts_dir):
                    stored.artifacts, generation = self._stage_artifacts(result, artifacts_dir)
            try:
                with self._io_errors("write", path):
                    self._replace(path, stored.to_text())
            except BaseException:
                if generation is not None and (
                    generation.relative_to(self.folder) not in _generations(before)
                ):
                    shutil.rmtree(generation, ignore_errors=True)
                raise
            if artifacts_dir is not None:
                self._drop_other_generations(result.claim, keep=generation)
        return Recorded(stored)

    def note_attempt(self, global_id: str, attempt: dict[str, object]) -> None:
        """Add an attempt that produced no result (an interrupted run) to the stored result's
        history and ``last_attempt``; nothing happens when no result is stored."""
        path = self.path_of(global_id)
        with self._io_errors("lock", self.folder / ".write.lock"), self._write_lock:
            before = self._load(path, expected_claim=global_id)
            if before is None:
                return
            kept = dataclasses.replace(
                before, history=[*before.history, attempt][-HISTORY_LIMIT:], last_attempt=attempt
            )
            with self._io_errors("write", path):
                self._replace(path, kept.to_text())

    def _replace(self, path: Path, text: str) -> None:
        """Write ``path`` atomically; inside a run, leave its fsync to :meth:`sync`."""
        _atomic_write(path, text, durable=self._unsynced is None)
        if self._unsynced is not None:
            self._unsynced.add(path)

    def sync(self) -> None:
        """fsync the files this run wrote, then the folders, so that the whole run is durable."""
        unsynced, self._unsynced = self._unsynced or set(), None
        for path in (*sorted(unsynced), self.results_dir, self.artifacts_dir):
            with suppress(OSError):
                descriptor = os.open(path, os.O_RDONLY)
                try:
                    os.fsync(descriptor)
                finally:
                    os.close(descriptor)

    @contextmanager
    def run_lock(self, wait: bool = True) -> Iterator[None]:
        """Hold ``.lock`` for a whole verify run; with ``wait=False`` a held lock is an error."""
        lock_path = self.folder / ".lock"
        with self._io_errors("lock", lock_path):
            self.folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_path))
        try:
            lock.acquire(blocking=wait)
        except Timeout:  # a subclass of OSError: test it first
            raise StoreError(
                f"another claimcheck verify is running on this store (lock {self.show(lock_path)})"
            ) from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise StoreError(
                f"cannot lock the results store: {reason}", self.show(lock_path)
            ) from None
        try:
            self._remove_orphans()
            self._unsynced = set()
            yield
        finally:
            self.sync()
            lock.release()

    def _remove_orphans(self) -> None:
        """Delete temp files and staging folders a killed writer left (old enough: nobody's)."""
        cutoff = time.time() - ORPHAN_AGE_S
        leftovers = [*self.results_dir.glob(".*.tmp"), *self.artifacts_dir.glob("*/.*.new")]
        for temp in leftovers:
            with suppress(OSError):
                if temp.stat().st_mtime < cutoff:
                    if temp.is_dir():
                        shutil.rmtree(temp, ignore_errors=True)
                    else:
                        temp.unlink()

    def artifact_path(self, result: Result, name: str) -> Path | None:
        """The file of artifact ``name`` of ``result``, if it exists inside the store."""
        relative = result.artifacts.get(name)
        if not isinstance(relative, str):
            return None
        path = (self.folder / relative).resolve()
        if self.folder.resolve() not in path.parents or not path.is_file():
            return None
        return path

    def _load(self, path: Path, expected_claim: str | None) -> Result | None:
        try:
            size = path.stat().st_size
            if size > MAX_RESULT_BYTES:
                self._ignore(path, f"{size:,} bytes, over the limit of {MAX_RESULT_BYTES:,}")
                return None
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError as exc:
            self._ignore(path, f"not UTF-8: {exc.reason}")
            return None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise StoreError(f"cannot read result: {reason}", self.show(path)) from None
        try:
            result = Result.from_json(json.loads(text))
            stem = result_stem(result.claim)
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            self._ignore(path, str(exc))
            return None
        except RecursionError:  # a hostile file nested deeper than the parser's stack
            self._ignore(path, "nested too deeply to be a result")
            return None
        if path.stem != stem or expected_claim not in (None, result.claim):
            self._ignore(path, f"it holds claim {result.claim!r}")
            return None
        return result

    def _ignore(self, path: Path, why: str) -> None:
        why = " ".join(why.split())
        warnings.warn(
            f"ignoring corrupt result file {self.show(path)} ({why}); "
            "the claim counts as never run",
            StoreWarning,
            stacklevel=3,
        )

    def _ensure_layout(self) -> None:
        if self._laid_out:
            return
        with self._io_errors("write", self.folder):
            self.results_dir.mkdir(parents=True, exist_ok=True)
            tag = f"{CACHEDIR_SIGNATURE}\n# This folder holds claimcheck results.\n"
            for name, text in (("README.md", _README), ("CACHEDIR.TAG", tag),
                               (".gitignore", _GITIGNORE)):
                if not (self.folder / name).exists():
                    _atomic_write(self.folder / name, text)
        self._laid_out = True

    def _stage_artifacts(self, result: Result, scratch: Path) -> tuple[dict[str, str], Path | None]:
        """Move the result's artifact files into their generation folder (named by a hash of the
        files, so an identical set reuses its folder); their paths inside the store."""
        files: dict[str, Path] = {}
        for name, file_name in result.artifacts.items():
            source = (scratch / file_name).resolve()
            if scratch.resolve() not in source.parents or not source.is_file():
                warnings.warn(
                    f"{result.claim}: artifact {name!r} ({file_name}) is not a file in the "
                    "check's scratch folder; dropped",
                    StoreWarning,
                    stacklevel=4,
                )
                continue
            files[name] = source
        if not files:
            return {}, None
        digest = hashlib.sha256()
        for name, source in sorted(files.items()):
            digest.update(f"{name}\0{source.name}\0".encode())
            digest.update(source.read_bytes())
        stem = result_stem(result.claim)
        generation = self.artifacts_dir / stem / digest.hexdigest()[:12]
        if not generation.is_dir():
            staging = generation.with_name(f".{generation.name}.new")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            for source in files.values():
                shutil.move(str(source), staging / source.name)
            os.replace(staging, generation)
        relative = generation.relative_to(self.folder).as_posix()
        return {name: f"{relative}/{source.name}" for name, source in files.items()}, generation

    def _drop_other_generations(self, global_id: str, keep: Path | None) -> None:
        """Delete a claim's artifacts of earlier generations (its new JSON is in place)."""
        folder = self.artifacts_dir / result_stem(global_id)
        if not folder.is_dir():
            return
        for entry in folder.iterdir():
            if keep is not None and entry == keep:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with suppress(OSError):
                    entry.unlink()
        if keep is None:
            with suppress(OSError):
                folder.rmdir()

    @contextmanager
    def _io_errors(self, action: str, path: Path) -> Iterator[None]:
        try:
            yield
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise StoreError(
                f"cannot {action} the results store: {reason}", self.show(path)
            ) from None


def _generations(result: Result | None) -> set[Path]:
    """The generation folders ``result``'s artifacts live in, relative to the store folder."""
    if result is None:
        return set()
    return {Path(relative).parent for relative in result.artifacts.values()
            if isinstance(relative, str)}


def _atomic_write(path: Path, text: str, durable: bool = True) -> None:
    """Write ``text`` to ``path`` via a temp file in the same folder and a rename; the temp file
    is fsynced first unless the caller defers that (``durable=False``, a run's writes)."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
