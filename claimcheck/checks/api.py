"""The check API: what a check receives (:class:`CheckContext`) and returns (:class:`Evidence`).

A check measures; it never decides. The verdict comes from comparing ``Evidence.measured`` with
the claim's ``expect`` (see :mod:`claimcheck.verdict`).

Built-in kinds register with :func:`register_check`; custom checks are plain functions named in a
card as ``module.path:function`` under the project's import roots. Both have the signature
``fn(ctx: CheckContext) -> Evidence``.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from claimcheck.cards import Tier
from claimcheck.config import ProjectConfig
from claimcheck.errors import CheckReferenceError

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
    moves the files into the results store.
    """

    measured: Measured
    details: str = ""
    fidelity: Fidelity = Fidelity.EXACT
    artifacts: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    data: dict[str, Any] | None = None


CheckFunction = Callable[[CheckContext], Evidence]


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
