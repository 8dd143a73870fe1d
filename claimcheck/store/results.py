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

Every entry is committed content, so untrusted (:mod:`claimcheck.core.safe_fs`): the store's folder,
``results/``, ``artifacts/`` and ``cache/`` must be real folders inside the project, and the lock
files regular files, or every command refuses the store (:class:`StoreError`, exit 2). Files are
read, written and deleted only through :mod:`claimcheck.core.safe_fs`, so that nothing is followed
through a symbolic link, and a result entry that is a link, FIFO, device, folder or hard link is
a :class:`StoreWarning` and reads as missing. Deleting an older artifact generation removes only
the regular files in it, never a link's target. A corrupt, foreign or oversized
(:data:`MAX_RESULT_BYTES`) entry is a :class:`StoreWarning` and reads as missing; it never
crashes the tool. A folder that cannot be written (read-only, disk
full) raises :class:`StoreError` with one line. Reading imports neither torch nor any check
module.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import stat
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from filelock import FileLock, Timeout

from claimcheck.core import safe_fs
from claimcheck.core.errors import StoreError
from claimcheck.core.safe_fs import UnsafeEntry
from claimcheck.store.result import (
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
_FOLDERS = ("results", "artifacts", "cache", "power")
_LOCKS = (".lock", ".write.lock")
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
    not_stored: str = ""
    """Why nothing was written: the claim's result entry is no regular file (``""``: written)."""


class ResultStore:
    """The ``.claimcheck/`` folder of one project.

    ``project`` is the folder the store must lie in as a real folder, every name on the way
    included (default: the folder that holds it).
    """

    def __init__(self, folder: Path, project: Path | None = None) -> None:
        self.folder = Path(os.path.abspath(folder))
        self.project = Path(os.path.abspath(project)) if project else self.folder.parent
        self.results_dir = self.folder / "results"
        self.artifacts_dir = self.folder / "artifacts"
        self._write_lock = FileLock(str(self.folder / ".write.lock"))
        self._laid_out = False
        self._checked = False
        self._unsynced: set[Path] | None = None  # files renamed in this run, not yet fsynced

    def show(self, path: Path) -> str:
        """``path`` as messages print it: relative to the folder that holds the store."""
        try:
            return str(path.relative_to(self.folder.parent))
        except ValueError:
            return str(path)

    def check_folders(self) -> None:
        """Refuse (:class:`StoreError`) a store whose folder, sub-folders or lock files are not
        what they claim to be: every command reads or writes through them."""
        if self._checked:
            return
        where = self.project
        try:
            safe_fs.require_folder(self.project, self.folder)
            where = self.folder
            for name in _FOLDERS:
                safe_fs.require_folder(self.folder, name)
            for name in _LOCKS:
                with suppress(FileNotFoundError):
                    found = os.lstat(self.folder / name)
                    kind = safe_fs.entry_kind(found.st_mode)
                    if kind is not None:
                        raise UnsafeEntry(f"{kind} where the lock file belongs", name)
        except UnsafeEntry as error:
            shown = self.show(where / error.path) if error.path else str(self.folder)
            raise StoreError(
                f"{error.message}: the results store and its folders must be real folders inside "
                "the project; refusing to read or write through it", shown) from None
        except OSError as error:
            raise StoreError(f"cannot read the results store: {error.strerror or error}",
                             self.show(self.folder)) from None
        self._checked = True

    def path_of(self, global_id: str) -> Path:
        """The result file of ``global_id`` (which may not exist)."""
        return self.results_dir / f"{result_stem(global_id)}.json"

    def read(self, global_id: str) -> Result | None:
        """The stored result of ``global_id``; ``None`` when missing or corrupt (with a warning)."""
        return self._load(self.path_of(global_id), expected_claim=global_id)

    def read_all(self) -> dict[str, Result]:
        """Every readable result, by global claim id."""
        self.check_folders()
        results: dict[str, Result] = {}
        for name, _ in safe_fs.list_folder(self.folder, "results"):
            if not name.endswith(".json") or name.startswith("."):
                continue
            result = self._load(self.results_dir / name, expected_claim=None)
            if result is not None:
                results[result.claim] = result
        return results

    def write(self, result: Result, artifacts_dir: Path | None = None) -> Result:
        """:meth:`record` ``result`` and return what is stored now."""
        return self.record(result, artifacts_dir).stored

    def record(
        self, result: Result, artifacts_dir: Path | None = None, previous: object = _MISSING,
        keep_better: bool = True,
    ) -> Recorded:
        """Store ``result`` atomically, unless the stored one is better (:func:`kept_reason`).

        ``artifacts_dir`` is the check's scratch folder: the files named in ``result.artifacts``
        are moved into a new generation folder ``artifacts/<stem>/<gen>/``. ``previous`` is the
        stored result as the caller read it under the run lock (default: read it now).
        ``keep_better=False`` stores ``result`` whatever was stored (the earlier result goes to
        the history): a claim refused as its card now stands (the trust boundary, an unknown
        kind) has no verdict, whatever an earlier check measured.
        """
        path = self.path_of(result.claim)
        self._ensure_layout()
        problem = self.entry_problem(path)
        if problem:
            warnings.warn(f"{problem}; the result of {result.claim} is not stored",
                          StoreWarning, stacklevel=2)
            return Recorded(result, not_stored=problem)
        with self._io_errors("lock", self.folder / ".write.lock"), self._write_lock:
            before = (self._load(path, expected_claim=result.claim) if previous is _MISSING
                      else previous)
            assert before is None or isinstance(before, Result)
            why = kept_reason(before, result) if keep_better else ""
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
                    with suppress(OSError, UnsafeEntry):
                        safe_fs.remove_tree(self.folder, generation)
                raise
            if artifacts_dir is not None:
                self._drop_other_generations(result.claim, keep=generation)
        return Recorded(stored)

    def entry_problem(self, path: Path) -> str:
        """Why the entry ``path`` of the store must not be replaced (``""``: it may)."""
        try:
            safe_fs.is_file(self.folder, path)
        except UnsafeEntry as error:
            return f"{self.show(self.folder / (error.path or '.'))} is {error.message}"
        return ""

    def note_attempt(self, global_id: str, attempt: dict[str, object]) -> None:
        """Add an attempt that produced no result (an interrupted run) to the stored result's
        history and ``last_attempt``; nothing happens when no result is stored."""
        path = self.path_of(global_id)
        self.check_folders()
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
        safe_fs.write_atomic(self.folder, path, text.encode("utf-8"),
                             durable=self._unsynced is None)
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
        self.check_folders()
        with self._io_errors("lock", lock_path):
            safe_fs.make_folders(self.project, self.folder)
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
        """Delete temp files and staging folders a killed writer left (old enough: nobody's),
        inside real folders only."""
        cutoff = time.time() - ORPHAN_AGE_S
        leftovers = [f"results/{name}" for name, kind in safe_fs.list_folder(self.folder, "results")
                     if kind is None and name.startswith(".") and name.endswith(".tmp")]
        for stem, kind in safe_fs.list_folder(self.folder, "artifacts"):
            if kind == "a folder":
                leftovers += [f"artifacts/{stem}/{name}" for name, inner in
                              safe_fs.list_folder(self.folder, f"artifacts/{stem}")
                              if inner == "a folder" and name.startswith(".")
                              and name.endswith(".new")]
        for temp in leftovers:
            with suppress(OSError, UnsafeEntry):
                found = os.lstat(self.folder / temp)
                if found.st_mtime < cutoff:
                    if stat.S_ISDIR(found.st_mode):
                        safe_fs.remove_tree(self.folder, temp)
                    else:
                        safe_fs.remove_file(self.folder, temp)

    def artifact_path(self, result: Result, name: str) -> Path | None:
        """The file of artifact ``name`` of ``result``, if it exists inside the store."""
        relative = result.artifacts.get(name)
        if not isinstance(relative, str):
            return None
        try:
            parts = safe_fs.relative_parts(self.folder, relative)
            if not safe_fs.is_file(self.folder, relative):
                return None
        except UnsafeEntry as error:
            self._ignore(self.folder / relative, error.message, "unsafe artifact",
                         "it is not published")
            return None
        except OSError:
            return None
        return self.folder.joinpath(*parts)

    def _load(self, path: Path, expected_claim: str | None) -> Result | None:
        self.check_folders()
        try:
            text = safe_fs.read_bytes(self.folder, path, MAX_RESULT_BYTES).decode("utf-8")
        except FileNotFoundError:
            return None
        except UnsafeEntry as exc:
            self._ignore(path, exc.message, "unsafe result entry")
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

    def _ignore(self, path: Path, why: str, what: str = "corrupt result file",
                then: str = "the claim counts as never run") -> None:
        why = " ".join(why.split())
        warnings.warn(
            f"ignoring {what} {self.show(path)} ({why}); {then}",
            StoreWarning,
            stacklevel=3,
        )

    def _ensure_layout(self) -> None:
        if self._laid_out:
            return
        self.check_folders()
        with self._io_errors("write", self.folder):
            safe_fs.make_folders(self.project, self.results_dir)
            tag = f"{CACHEDIR_SIGNATURE}\n# This folder holds claimcheck results.\n"
            for name, text in (("README.md", _README), ("CACHEDIR.TAG", tag),
                               (".gitignore", _GITIGNORE)):
                if not os.path.lexists(self.folder / name):
                    safe_fs.write_atomic(self.folder, name, text.encode("utf-8"))
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
        try:
            safe_fs.make_folders(self.folder, generation.parent)
            safe_fs.require_folder(self.folder, generation)
            if not os.path.isdir(generation):
                staging = generation.with_name(f".{generation.name}.new")
                safe_fs.remove_tree(self.folder, staging)
                safe_fs.make_folders(self.folder, staging)
                for source in files.values():
                    shutil.move(str(source), staging / source.name)
                os.replace(staging, generation)
        except UnsafeEntry as error:
            warnings.warn(
                f"{result.claim}: {self.show(self.folder / (error.path or '.'))}: "
                f"{error.message}; its "
                "artifacts are not stored (nothing is written through it)",
                StoreWarning, stacklevel=4,
            )
            return {}, None
        relative = generation.relative_to(self.folder).as_posix()
        return {name: f"{relative}/{source.name}" for name, source in files.items()}, generation

    def _drop_other_generations(self, global_id: str, keep: Path | None) -> None:
        """Delete a claim's artifacts of earlier generations (its new JSON is in place): the
        regular files in each real generation folder, then the folder once it is empty. A link,
        or anything else the store never writes, is left alone with a warning."""
        stem = f"artifacts/{result_stem(global_id)}"
        try:
            entries = safe_fs.list_folder(self.folder, stem)
        except UnsafeEntry as error:
            self._left_alone(error)
            return
        for name, kind in entries:
            if keep is not None and name == keep.name:
                continue
            if kind != "a folder":
                if kind is None and name.startswith("."):
                    continue  # another writer's temp file
                self._left_alone(UnsafeEntry(kind or "a file outside any generation",
                                             f"{stem}/{name}"))
                continue
            for inner, inner_kind in safe_fs.list_folder(self.folder, f"{stem}/{name}"):
                if inner_kind is None:
                    safe_fs.remove_file(self.folder, f"{stem}/{name}/{inner}")
                else:
                    self._left_alone(UnsafeEntry(inner_kind, f"{stem}/{name}/{inner}"))
            with suppress(OSError):
                os.rmdir(self.folder / stem / name)
        if keep is None:
            with suppress(OSError):
                os.rmdir(self.folder / stem)

    def _left_alone(self, error: UnsafeEntry) -> None:
        warnings.warn(f"{self.show(self.folder / (error.path or '.'))}: {error.message} in the "
                      "artifacts; left alone (the store deletes only the regular files it wrote)",
                      StoreWarning, stacklevel=4)

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
