"""The results store ``.claimcheck/``: one JSON file per claim, written atomically, under a lock.

Layout (see ``README.md`` written into the folder)::

    .claimcheck/
      README.md, CACHEDIR.TAG, .gitignore
      results/<stem>.json         one Result per claim, stem = result_stem(global id)
      artifacts/<stem>/...        files a check produced (training curves)
      .lock                       held by a whole `claimcheck verify` run
      .write.lock                 held for each single write
      cache/                      parsed source facts for fingerprints (disposable, ignored)

A write goes to a temp file in the same folder, is fsynced, then renamed over the old file, so a
reader (or a ``kill -9``) only ever sees the old entry or the new one. A corrupt or foreign entry
is a :class:`StoreWarning` and reads as missing (the claim re-runs); it never crashes the tool.
A folder that cannot be written (read-only, disk full) raises :class:`StoreError` with one line.
Reading imports neither torch nor any check module.
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
from typing import Any

from filelock import FileLock, Timeout

from claimcheck.checks.api import Measured
from claimcheck.errors import StoreError
from claimcheck.provenance import now_iso
from claimcheck.verdict import Verdict

SCHEMA = 1
HISTORY_LIMIT = 10
ORPHAN_AGE_S = 600.0
CACHEDIR_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
_README = """\
# claimcheck results store

Written by `claimcheck verify`; read by `claimcheck status` and the site.

* `results/<paper>__<claim>.json`: the last verdict of one claim, with its reason, what was
  measured and expected, the environment, the git commit, and a short history of earlier verdicts.
* `artifacts/<paper>__<claim>/`: files a check produced, such as training curves.
* `fingerprint` in each result is a sha256 of the claim and the source code it depends on. When
  it no longer matches, the result is shown as stale and `claimcheck verify` runs it again.

`cache/` only saves time (parsed imports of source files); it is not committed.

Commit `results/` and `artifacts/` so that an expensive result survives and the site can be built
anywhere. Deleting this folder is safe: every claim just counts as never run.
"""
_GITIGNORE = ".lock\n.write.lock\n*.tmp\ncache/\n"


class StoreWarning(UserWarning):
    """A store entry was ignored (corrupt, foreign schema, or misplaced)."""


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


@dataclasses.dataclass
class Result:
    """One stored verdict of one claim (the JSON contract in docs/architecture.md)."""

    claim: str
    card: str
    line: int
    statement: str
    cite: list[str]
    check: str | None
    tier: str | None
    budget: str
    verdict: Verdict
    reason: str
    measured: Measured
    expected: dict[str, Any] | None
    fidelity: str | None
    fingerprint: str
    details: str = ""
    device: str = "cpu"
    seed: int = 0
    duration_s: float = 0.0
    environment: dict[str, Any] = dataclasses.field(default_factory=dict)
    git: dict[str, Any] = dataclasses.field(default_factory=dict)
    timestamp: str = dataclasses.field(default_factory=now_iso)
    artifacts: dict[str, str] = dataclasses.field(default_factory=dict)
    error: str | None = None
    data: dict[str, Any] | None = None
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    schema: int = SCHEMA

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON data."""
        data = dataclasses.asdict(self)
        data["verdict"] = self.verdict.value
        return data

    @classmethod
    def from_json(cls, data: Any) -> Result:
        """Rebuild a result; raises ``ValueError`` naming the first field that is wrong."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        if data.get("schema") != SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}, expected {SCHEMA}")
        known = {f.name: f for f in dataclasses.fields(cls)}
        for name, types in _FIELD_TYPES.items():
            if name not in data:
                if known[name].default is dataclasses.MISSING and (
                    known[name].default_factory is dataclasses.MISSING
                ):
                    raise ValueError(f"missing field {name!r}")
            elif not isinstance(data[name], types) or (
                isinstance(data[name], bool) and bool not in types
            ):
                raise ValueError(f"field {name!r} has type {type(data[name]).__name__}")
        if not all(isinstance(item, str) for item in data["cite"]):
            raise ValueError("field 'cite' must be a list of strings")
        history = data.get("history", [])
        if not all(isinstance(item, dict) for item in history):
            raise ValueError("field 'history' must be a list of objects")
        try:
            verdict = Verdict(data["verdict"])
        except ValueError:
            raise ValueError(f"unknown verdict {data['verdict']!r}") from None
        values = {name: data[name] for name in known if name in data}
        return cls(**{**values, "verdict": verdict})

    def history_entry(self) -> dict[str, Any]:
        """What the history keeps of this result once a newer one replaces it."""
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "measured": self.measured,
            "timestamp": self.timestamp,
            "fingerprint": self.fingerprint,
        }


_OPTIONAL_STR = (str, type(None))
_MEASURED = (int, float, bool, str, list, type(None))
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "claim": (str,), "card": (str,), "line": (int,), "statement": (str,), "cite": (list,),
    "check": _OPTIONAL_STR, "tier": _OPTIONAL_STR, "budget": (str,), "verdict": (str,),
    "reason": (str,), "measured": _MEASURED, "expected": (dict, type(None)),
    "fidelity": _OPTIONAL_STR, "fingerprint": (str,), "details": (str,), "device": (str,),
    "seed": (int,), "duration_s": (int, float), "environment": (dict,), "git": (dict,),
    "timestamp": (str,), "artifacts": (dict,), "error": _OPTIONAL_STR,
    "data": (dict, type(None)), "timings": (dict,), "history": (list,),
}


class ResultStore:
    """The ``.claimcheck/`` folder of one project."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.results_dir = folder / "results"
        self.artifacts_dir = folder / "artifacts"
        self._write_lock = FileLock(str(folder / ".write.lock"))

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
        """Store ``result`` atomically and return it as stored (history and artifact paths set).

        ``artifacts_dir`` is the check's scratch folder: the files named in ``result.artifacts``
        are moved into ``artifacts/<stem>/``, replacing that claim's earlier artifacts.
        """
        path = self.path_of(result.claim)
        with self._io_errors("write", self.folder):
            self._ensure_layout()
        with self._io_errors("lock", self.folder / ".write.lock"), self._write_lock:
            previous = self._load(path, expected_claim=result.claim)
            history = [*previous.history, previous.history_entry()] if previous else result.history
            stored = dataclasses.replace(result, history=history[-HISTORY_LIMIT:])
            if artifacts_dir is not None:
                with self._io_errors("write", self.artifacts_dir):
                    stored.artifacts = self._move_artifacts(result, artifacts_dir)
            text = json.dumps(stored.to_json(), indent=2, ensure_ascii=False, default=str)
            with self._io_errors("write", path):
                _atomic_write(path, text + "\n")
        return stored

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
            self._remove_orphaned_temp_files()
            yield
        finally:
            lock.release()

    def _remove_orphaned_temp_files(self) -> None:
        """Delete temp files that a killed writer left behind (old enough to be nobody's)."""
        cutoff = time.time() - ORPHAN_AGE_S
        for temp in self.results_dir.glob(".*.tmp"):
            with suppress(OSError):
                if temp.stat().st_mtime < cutoff:
                    temp.unlink()

    def artifact_path(self, result: Result, name: str) -> Path | None:
        """The file of artifact ``name`` of ``result``, if it exists inside the store."""
        relative = result.artifacts.get(name)
        if relative is None:
            return None
        path = (self.folder / relative).resolve()
        if self.folder.resolve() not in path.parents or not path.is_file():
            return None
        return path

    def _load(self, path: Path, expected_claim: str | None) -> Result | None:
        try:
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
        return None

    def _ensure_layout(self) -> None:
        self.results_dir.mkdir(parents=True, exist_ok=True)
        for name, text in (
            ("README.md", _README),
            ("CACHEDIR.TAG", f"{CACHEDIR_SIGNATURE}\n# This folder holds claimcheck results.\n"),
            (".gitignore", _GITIGNORE),
        ):
            if not (self.folder / name).exists():
                _atomic_write(self.folder / name, text)

    def _move_artifacts(self, result: Result, scratch: Path) -> dict[str, str]:
        stem = result_stem(result.claim)
        target = self.artifacts_dir / stem
        staging = self.artifacts_dir / f".{stem}.new"
        shutil.rmtree(staging, ignore_errors=True)
        moved: dict[str, str] = {}
        for name, file_name in result.artifacts.items():
            source = (scratch / file_name).resolve()
            if scratch.resolve() not in source.parents or not source.is_file():
                warnings.warn(
                    f"{result.claim}: artifact {name!r} ({file_name}) is not a file in the "
                    "check's scratch folder; dropped",
                    StoreWarning,
                    stacklevel=3,
                )
                continue
            staging.mkdir(parents=True, exist_ok=True)
            shutil.move(str(source), staging / source.name)
            moved[name] = f"artifacts/{stem}/{source.name}"
        shutil.rmtree(target, ignore_errors=True)
        if moved:
            os.replace(staging, target)
        return moved

    @contextmanager
    def _io_errors(self, action: str, path: Path) -> Iterator[None]:
        try:
            yield
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise StoreError(
                f"cannot {action} the results store: {reason}", self.show(path)
            ) from None


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a fsynced temp file in the same folder and a rename."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    with suppress(OSError):
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
