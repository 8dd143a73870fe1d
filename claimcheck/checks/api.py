"""The check API: what a check receives (:class:`CheckContext`) and returns (:class:`Evidence`).

A check measures; it never decides. The verdict comes from comparing ``Evidence.measured`` with
the claim's ``expect`` (see :mod:`claimcheck.verdicts.verdict`).

Built-in kinds register with :func:`register_check`; custom checks are plain functions named in a
card as ``module.path:function`` under the project's import roots. Both have the signature
``fn(ctx: CheckContext) -> Evidence``.
"""

from __future__ import annotations

import difflib
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from claimcheck.cards.frontmatter import Tier
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import CheckReferenceError

Measured = float | int | bool | str | list[Any] | None
ProgressHook = Callable[[str, "float | None"], None]


class Fidelity(str, Enum):
    """How directly a check measures the claimed thing."""

    EXACT = "exact"
    PROXY = "proxy"


class DataUnavailable(Exception):
    """Raised by a check when its dataset (or device) is not present: an honest "unverified"."""


@dataclass(frozen=True)
class CheckContext:
    """Everything a check may use. ``scratch`` is an empty folder for its artifacts."""

    args: Mapping[str, Any]
    device: str
    budget: str
    seed: int
    scratch: Path
    root: Path
    config: ProjectConfig
    progress: ProgressHook = field(default=lambda message, fraction: None)


@dataclass
class Evidence:
    """What a check measured, and how.

    ``artifacts`` maps a name (``curve_svg``) to a file name inside ``ctx.scratch``; the engine
    moves the files into the results store. ``interval`` is the record of
    :meth:`claimcheck.checks.stats.Interval.as_record` when the figure was measured over seeds; the
    verdict then follows the interval (:mod:`claimcheck.verdicts.interval`).
    """

    measured: Measured
    details: str = ""
    fidelity: Fidelity = Fidelity.EXACT
    artifacts: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    data: dict[str, Any] | None = None
    interval: dict[str, Any] | None = None


CheckFunction = Callable[[CheckContext], Evidence]

MAX_DETAILS_CHARS = 20_000
"""Longer ``details`` are cut (with a note): a result file stays readable and small."""
MAX_MEASURED_CHARS = 100_000
"""A ``measured`` value whose JSON is longer is not stored: the claim is errored instead."""
MAX_DATA_CHARS = 1_000_000
"""The same limit for ``data`` (a dataset's identity is a few fields, not the dataset)."""
_MAX_DEPTH = 8


class EvidenceError(TypeError):
    """A check returned something the results store cannot hold; the message says what."""


def normalise_evidence(evidence: object) -> Evidence:
    """The plain-data copy of what a check returned, or :class:`EvidenceError` saying why not.

    numpy and torch scalars become Python numbers, tuples (and ``torch.Size``) become lists,
    ``fidelity`` may be given as a string, ``details`` is cut to :data:`MAX_DETAILS_CHARS`;
    ``data`` and a seed ``interval`` record are kept as plain mappings.
    Anything else the store cannot hold (an array, an object, a value too large) is refused, so
    that the claim is errored with the reason instead of crashing the run that reads it.
    """
    if not isinstance(evidence, Evidence):
        raise EvidenceError(f"check returned {type(evidence).__name__}, not Evidence")
    measured = plain_value(evidence.measured, "measured", allow_mapping=False)
    _limit(measured, "measured", MAX_MEASURED_CHARS)
    try:
        fidelity = Fidelity(str(getattr(evidence.fidelity, "value", evidence.fidelity)).lower())
    except ValueError:
        raise EvidenceError(
            f"fidelity must be 'exact' or 'proxy', got {evidence.fidelity!r}") from None
    details = "" if evidence.details is None else str(evidence.details)
    if len(details) > MAX_DETAILS_CHARS:
        cut = len(details) - MAX_DETAILS_CHARS
        details = details[:MAX_DETAILS_CHARS] + f"... ({cut:,} more characters cut)"
    artifacts = _string_map(evidence.artifacts, "artifacts")
    timings = {}
    for name, value in _mapping(evidence.timings, "timings").items():
        number = plain_value(value, f"timings[{name!r}]", allow_mapping=False)
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise EvidenceError(f"timings[{name!r}] is {type(value).__name__}, not a number")
        timings[str(name)] = float(number)
    data = None
    if evidence.data is not None:
        data = plain_value(_mapping(evidence.data, "data"), "data", allow_mapping=True)
        _limit(data, "data", MAX_DATA_CHARS)
    interval = None
    if evidence.interval is not None:
        interval = plain_value(_mapping(evidence.interval, "interval"), "interval",
                               allow_mapping=True)
        _limit(interval, "interval", MAX_DATA_CHARS)
    return Evidence(measured, details, fidelity, artifacts, timings, data, interval)


def plain_value(value: Any, where: str, *, allow_mapping: bool, depth: int = 0) -> Any:
    """``value`` as JSON-able Python data (see :func:`normalise_evidence`)."""
    if depth > _MAX_DEPTH:
        raise EvidenceError(f"{where} is nested deeper than {_MAX_DEPTH} levels")
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str.__str__(value)
    if _is_scalar(value):  # numpy scalars, 0-d arrays and 0-d tensors
        return plain_value(value.item(), where, allow_mapping=False, depth=depth + 1)
    if isinstance(value, (list, tuple)):
        return [plain_value(item, where, allow_mapping=allow_mapping, depth=depth + 1)
                for item in value]
    if allow_mapping and isinstance(value, Mapping):
        return {str(key): plain_value(item, f"{where}[{key!r}]", allow_mapping=True,
                                      depth=depth + 1)
                for key, item in value.items()}
    kind = type(value).__name__
    hint = " (call .tolist() on a small array)" if hasattr(value, "tolist") else ""
    raise EvidenceError(
        f"{where} is a {kind}, which the results store cannot hold: return a number, a bool, "
        f"a string or a list of them{hint}"
    )


def _is_scalar(value: Any) -> bool:
    shape = getattr(value, "shape", None)
    return callable(getattr(value, "item", None)) and shape is not None and tuple(shape) == ()


def _mapping(value: Any, where: str) -> Mapping[Any, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise EvidenceError(f"{where} must be a mapping, got {type(value).__name__}")
    return value


def _string_map(value: Any, where: str) -> dict[str, str]:
    items = _mapping(value, where)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in items.items()):
        raise EvidenceError(f"{where} must map names to file names (strings)")
    return {str.__str__(k): str.__str__(v) for k, v in items.items()}


def _limit(value: Any, where: str, limit: int) -> None:
    try:
        size = len(json.dumps(value, default=str))
    except ValueError:  # an integer with more digits than Python will print
        size = limit + 1
    if size > limit:
        raise EvidenceError(f"{where} takes {size:,} characters as JSON, more than the "
                            f"{limit:,} a result may hold")


@dataclass(frozen=True)
class BuiltinCheck:
    """A registered built-in check kind."""

    name: str
    tier: Tier
    function: CheckFunction


_REGISTRY: dict[str, BuiltinCheck] = {}


def _validate_signature(function: Callable[..., Any], name: str) -> None:
    parameters = list(inspect.signature(function).parameters.values())
    if len(parameters) != 1 or parameters[0].kind not in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        raise TypeError(f"check {name!r} must take exactly one argument, the CheckContext")


def register_check(name: str, tier: Tier | str) -> Callable[[CheckFunction], CheckFunction]:
    """Register a built-in check kind; a duplicate name raises ``ValueError``."""

    def decorate(function: CheckFunction) -> CheckFunction:
        if name in _REGISTRY:
            raise ValueError(f"check kind {name!r} is already registered")
        _validate_signature(function, name)
        _REGISTRY[name] = BuiltinCheck(name, Tier(tier), function)
        return function

    return decorate


def builtin_kinds() -> Mapping[str, BuiltinCheck]:
    """The registered built-in kinds, after loading the modules that define them."""
    _load_builtins()
    return dict(_REGISTRY)


def get_builtin(name: str) -> BuiltinCheck:
    """The built-in kind ``name``, or an error with a "did you mean" hint."""
    kinds = builtin_kinds()
    if name in kinds:
        return kinds[name]
    raise CheckReferenceError(unknown_kind_message(name, list(kinds)))


def unknown_kind_message(name: str, known: list[str]) -> str:
    """``unknown check kind 'parms' (did you mean 'params'?)``."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(known))})"
    return f"unknown check kind {name!r}{hint}"


def _load_builtins() -> None:
    # Imported lazily: the built-in modules import torch only inside their functions, but lint
    # should not even pay for importing them.
    import importlib

    for module in ("claimcheck.checks.builtin", "claimcheck.checks.train",
                   "claimcheck.checks.flops"):
        importlib.import_module(module)
