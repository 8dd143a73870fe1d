"""Power results: ``<results>/power/<stem>.json``, one file per claim, beside its result.

The file holds, for each wrong variant the claim lists (by card name), what one power run of the
claim's check under that variant gave::

    {"schema": 1, "claim": "2101.12491/x",
     "variants": {"uniform-coupling": {
         "reference": "models.variants.dynamic:uniform_coupling", "fingerprint": "sha256 hex",
         "verdict": "contradicted", "reason": "...", "measured": 0.1, "fidelity": "exact",
         "interval": null, "details": "...", "error": null, "budget": "smoke",
         "duration_s": 0.4, "timestamp": "2026-12-02T06:00:00+00:00"}}}

Like a result, a power entry is evidence, not an authority: every view judges its measurement
again against the card's current ``expect`` (:mod:`claimcheck.store.power`), and its fingerprint
(the claim's fingerprint with the variant's sources) decides whether it is stale. A file that is not
a regular file, is too large or does not parse reads as no power results, with a warning; it
never crashes the tool. Writes are atomic (a temp file, then a rename) and happen only inside a
verify run, which holds the store's run lock. Like every store entry, the file and its folder are
read and written only through :mod:`claimcheck.core.safe_fs`: never through a link.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from claimcheck.core import safe_fs, strict_json
from claimcheck.core.errors import StoreError
from claimcheck.core.safe_fs import UnsafeEntry
from claimcheck.store.results import StoreWarning, result_stem

__all__ = ["MAX_POWER_BYTES", "PowerStore", "VariantRun"]

POWER_SCHEMA = 1
MAX_POWER_BYTES = 4_000_000
_TEXT_KEEP = 4_000


@dataclass(frozen=True)
class VariantRun:
    """What one power run of a claim's check under one wrong variant gave, as stored."""

    reference: str
    fingerprint: str
    verdict: str
    reason: str
    measured: Any
    fidelity: str | None
    details: str
    error: str | None
    budget: str
    duration_s: float
    timestamp: str
    interval: dict[str, Any] | None = None
    raised: bool = False
    """The claim's check itself raised under the variant (not decided, like any run without a
    measurement)."""
    base_measured: Any = None
    """What the same power run measured without the variant (its own unvaried run)."""
    base_interval: dict[str, Any] | None = None
    called: str = ""
    """The replaced attribute the variant itself called while the check ran (not
    self-contained), or ``""``."""
    reach: str = ""
    """Why the variant ran against this claim: ``listed``, or what of it the check reached."""

    @property
    def errored(self) -> bool:
        """No measurement, and not because the check raised: the variant could not be applied,
        the process died or passed its safety net, data was missing."""
        return self.measured is None and not self.raised

    @property
    def current(self) -> bool:
        """Whether the run may stand until its fingerprint changes: a run without a measurement
        (an error, exhaustion, a refusal) never does; the next power run retries it."""
        return self.measured is not None or bool(self.called)

    def to_json(self) -> dict[str, Any]:
        """The stored form (details and error bounded)."""
        data = asdict(self)
        for key in ("details", "error", "reason"):
            if isinstance(data[key], str):
                data[key] = data[key][:_TEXT_KEEP]
        return data

    @classmethod
    def from_json(cls, data: Any) -> VariantRun:
        """Parse one entry; raises :class:`ValueError` on anything malformed."""
        if not isinstance(data, dict):
            raise ValueError("a variant entry is not an object")
        text = {key: data.get(key) for key in ("reference", "fingerprint", "verdict", "budget",
                                               "timestamp")}
        if not all(isinstance(value, str) for value in text.values()):
            raise ValueError("a variant entry lacks reference, fingerprint, verdict, budget or "
                             "timestamp")
        if text["verdict"] not in ("verified", "contradicted", "unverified"):
            raise ValueError(f"unknown verdict {text['verdict']!r}")
        duration = data.get("duration_s", 0.0)
        raised = data.get("raised", False)
        if not isinstance(raised, bool):
            raise ValueError("a variant entry's raised is not a boolean")
        interval = data.get("interval")
        base_interval = data.get("base_interval")
        optional = {key: data.get(key) for key in ("fidelity", "error")}
        words = {key: data.get(key, "") for key in ("called", "reach")}
        if (not all(v is None or isinstance(v, str) for v in optional.values())
                or not all(isinstance(v, str) for v in words.values())
                or not isinstance(duration, (int, float)) or isinstance(duration, bool)
                or not (interval is None or isinstance(interval, dict))
                or not (base_interval is None or isinstance(base_interval, dict))):
            raise ValueError("a variant entry has a field of the wrong type")
        return cls(
            reference=str(text["reference"]), fingerprint=str(text["fingerprint"]),
            verdict=str(text["verdict"]), reason=str(data.get("reason") or ""),
            measured=data.get("measured"), fidelity=optional["fidelity"],
            details=str(data.get("details") or ""), error=optional["error"],
            budget=str(text["budget"]), duration_s=float(duration),
            timestamp=str(text["timestamp"]), interval=interval, raised=raised,
            base_measured=data.get("base_measured"), base_interval=base_interval,
            called=str(words["called"]), reach=str(words["reach"]),
        )


class PowerStore:
    """The ``power/`` folder of a results store."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self.folder = results / "power"

    def path_of(self, global_id: str) -> Path:
        """The power file of ``global_id`` (which may not exist)."""
        return self.folder / f"{result_stem(global_id)}.json"

    def read(self, global_id: str) -> dict[str, VariantRun]:
        """The stored runs of ``global_id`` by variant name; empty when missing or unusable."""
        return self.read_file(global_id)[0]

    def read_file(self, global_id: str) -> tuple[dict[str, VariantRun], dict[str, str]]:
        """The stored runs of ``global_id``, and the variants its check did not reach (name ->
        the fingerprint they were found unreached under); empty when missing or unusable."""
        path = self.path_of(global_id)
        try:
            data = strict_json.restore(json.loads(
                safe_fs.read_bytes(self.results.parent, path, MAX_POWER_BYTES)))
            if not isinstance(data, dict) or data.get("claim") != global_id:
                raise ValueError(f"it does not hold the power results of {global_id!r}")
            variants = data.get("variants")
            if not isinstance(variants, dict):
                raise ValueError("no variants object")
            unreached = data.get("unreached", {})
            if not isinstance(unreached, dict) or not all(
                    isinstance(v, str) for v in unreached.values()):
                raise ValueError("unreached is not an object of fingerprints")
            return ({str(name): VariantRun.from_json(entry) for name, entry in variants.items()},
                    {str(name): str(fingerprint) for name, fingerprint in unreached.items()})
        except FileNotFoundError:
            return {}, {}
        except UnsafeEntry as exc:
            return self._ignore(path, exc.message)
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            return self._ignore(path, str(exc))

    def write(self, global_id: str, runs: dict[str, VariantRun],
              unreached: dict[str, str] | None = None) -> None:
        """Replace the power file of ``global_id`` with ``runs`` (and the variants found
        unreached, by fingerprint), atomically."""
        path = self.path_of(global_id)
        text = strict_json.dumps(
            {"schema": POWER_SCHEMA, "claim": global_id,
             "variants": {name: run.to_json() for name, run in sorted(runs.items())},
             "unreached": dict(sorted((unreached or {}).items()))},
            indent=2, sort_keys=True) + "\n"
        try:
            safe_fs.write_atomic(self.results.parent, path, text.encode("utf-8"))
        except UnsafeEntry as exc:
            raise StoreError(f"cannot write power results: {exc.message}", str(path)) from None
        except OSError as exc:
            raise StoreError(f"cannot write power results: {exc.strerror or exc}",
                             str(path)) from None

    def _ignore(self, path: Path, why: str) -> tuple[dict[str, VariantRun], dict[str, str]]:
        warnings.warn(f"ignoring power results {path.name} ({' '.join(why.split())}); its "
                      "variants count as not run", StoreWarning, stacklevel=4)
        return {}, {}
