"""One stored verdict of one claim (:class:`Result`), and the JSON it is stored as.

The JSON contract is in docs/architecture.md. Every file the tool writes is strict JSON, so that
any parser reads it: a non-finite number (a measured NaN, an infinite timing) is written as
``null`` with ``<field>_non_finite`` beside it (:mod:`claimcheck.core.strict_json`) and reads back
as the float; files written before that, with the strings ``"NaN"``, ``"Infinity"`` or
``"-Infinity"`` as ``measured``, read back as the float too. Reading validates every field's
type; a file that does not fit raises ``ValueError`` naming the first wrong field, and the store
skips it with a warning.

A result is *successful* (:func:`succeeded`) when its check produced a measurement without
error; an errored or timed-out attempt never replaces a successful result
(:mod:`claimcheck.store.results`): it is kept as ``last_attempt`` and in ``history``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from claimcheck.checks.api import Evidence, Fidelity, Measured
from claimcheck.core import strict_json
from claimcheck.core.provenance import now_iso
from claimcheck.verdicts.verdict import Verdict

SCHEMA = 1
HISTORY_LIMIT = 10
BUDGETS = ("smoke", "short", "full")
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


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
    interval: dict[str, Any] | None = None
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    last_attempt: dict[str, Any] | None = None
    schema: int = SCHEMA

    def to_json(self) -> dict[str, Any]:
        """The result as plain JSON data."""
        data = dataclasses.asdict(self)
        data["verdict"] = self.verdict.value
        if data["last_attempt"] is None:
            del data["last_attempt"]
        return data

    def to_text(self) -> str:
        """The file content: strict JSON (see the module docstring), indented, one final newline."""
        return dumps(self.to_json()) + "\n"

    @classmethod
    def from_json(cls, data: Any) -> Result:
        """Rebuild a result; raises ``ValueError`` naming the first field that is wrong."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        data = strict_json.restore(data)
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
        values["measured"] = decode_measured(values.get("measured"))
        return cls(**{**values, "verdict": verdict})

    def as_evidence(self) -> Evidence:
        """The stored measurement as evidence to judge again: ``judge(claim,
        result.as_evidence(), config.confidence)``. The interval travels with it, so a figure
        measured over seeds is re-judged by the interval rule, at the current confidence level.
        An unknown stored fidelity stays as written, for ``judge`` to refuse."""
        fidelity: Any = self.fidelity or Fidelity.EXACT.value
        return Evidence(measured=self.measured, details=self.details, fidelity=fidelity,
                        data=self.data if isinstance(self.data, dict) else None,
                        interval=self.interval)

    def history_entry(self) -> dict[str, Any]:
        """What the history keeps of this result once a newer one replaces it."""
        return {
            "verdict": self.verdict.value,
            "reason": self.reason,
            "measured": self.measured,
            "timestamp": self.timestamp,
            "fingerprint": self.fingerprint,
            "budget": self.budget,
            "errored": self.error is not None,
        }

    def attempt_entry(self, kept_because: str) -> dict[str, Any]:
        """This result as an attempt that did not replace the stored one, and why."""
        return {**self.history_entry(), "kept_earlier_result": kept_because}


def succeeded(result: Result) -> bool:
    """Whether ``result`` holds a measurement made without error (the kind never replaced by a
    failed attempt)."""
    return result.error is None and result.measured is not None


def budget_rank(budget: str) -> int:
    """``smoke`` < ``short`` < ``full``; an unknown budget ranks below all three."""
    return BUDGETS.index(budget) if budget in BUDGETS else -1


def dumps(data: Any) -> str:
    """Strict JSON of ``data`` (:mod:`claimcheck.core.strict_json`), anything else JSON cannot hold
    as its ``str``."""
    return strict_json.dumps(data, indent=2, ensure_ascii=False)


def decode_measured(value: Any) -> Any:
    """A stored ``measured`` value with the non-finite spellings read back as floats."""
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if isinstance(value, list):
        return [decode_measured(item) for item in value]
    return value


_OPTIONAL_STR = (str, type(None))
_MEASURED = (int, float, bool, str, list, type(None))
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "claim": (str,), "card": (str,), "line": (int,), "statement": (str,), "cite": (list,),
    "check": _OPTIONAL_STR, "tier": _OPTIONAL_STR, "budget": (str,), "verdict": (str,),
    "reason": (str,), "measured": _MEASURED, "expected": (dict, type(None)),
    "fidelity": _OPTIONAL_STR, "fingerprint": (str,), "details": (str,), "device": (str,),
    "seed": (int,), "duration_s": (int, float), "environment": (dict,), "git": (dict,),
    "timestamp": (str,), "artifacts": (dict,), "error": _OPTIONAL_STR,
    "data": (dict, type(None)), "timings": (dict,), "interval": (dict, type(None)),
    "history": (list,),
    "last_attempt": (dict, type(None)),
}
