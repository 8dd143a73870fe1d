"""Turn a claim's ``check`` into a callable, at run time (inside a worker process).

A built-in kind (``params``) comes from the registry of :mod:`claimcheck.checks.api`. A custom
check (``module.path:function``) is first located statically by
:func:`claimcheck.references.resolve_reference`, which refuses anything outside the project's
import roots, and only then imported with the import roots first on ``sys.path``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from claimcheck.cards import Claim, Tier
from claimcheck.checks.api import CheckFunction, get_builtin
from claimcheck.config import ProjectConfig
from claimcheck.errors import CheckReferenceError
from claimcheck.references import is_reference, resolve_reference


@dataclass(frozen=True)
class ResolvedCheck:
    """A check ready to call: its name as written in the card, the function and its tier."""

    name: str
    function: CheckFunction
    tier: Tier


def load_callable(text: str, config: ProjectConfig) -> Callable[..., Any]:
    """Import the object named by ``module.path:attribute`` from the project's import roots."""
    reference = resolve_reference(text, config)
    config.activate_import_roots()
    module = importlib.import_module(reference.module)
    target = getattr(module, reference.function, None)
    if not callable(target):
        raise CheckReferenceError(
            f"{text!r}: {reference.function!r} is not a callable of module {reference.module!r}",
            str(reference.file),
            reference.line,
        )
    return cast(Callable[..., Any], target)


def claim_tier(claim: Claim) -> Tier:
    """The claim's own tier, else its built-in kind's tier, else ``unit`` for custom checks."""
    if claim.tier is not None:
        return claim.tier
    if claim.check is None or is_reference(claim.check):
        return Tier.UNIT
    return get_builtin(claim.check).tier


def resolve_check(check: str, config: ProjectConfig) -> ResolvedCheck:
    """The callable behind ``check``: a built-in kind or a ``module.path:function`` reference."""
    if is_reference(check):
        function = cast(CheckFunction, load_callable(check, config))
        return ResolvedCheck(check, function, Tier.UNIT)
    builtin = get_builtin(check)
    return ResolvedCheck(check, builtin.function, builtin.tier)
