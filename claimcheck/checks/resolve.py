"""Turn a claim's ``check`` into a callable, at run time (inside a worker process).

A built-in kind (``params``) comes from the registry of :mod:`claimcheck.checks.api`. A function
named in a card (a custom check, or a factory or trainer in a built-in kind's args) is first
located statically by :func:`claimcheck.trust.boundary.resolve_reference`, which refuses anything
that is not a public function of the content package carrying the role's marker, and only then
imported with the import roots first on ``sys.path``; the imported object must carry the marker too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from claimcheck.cards.frontmatter import Claim, Tier
from claimcheck.checks.api import CheckFunction, get_builtin
from claimcheck.checks.declared import checked_call
from claimcheck.checks.markers import marker_of
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import CheckReferenceError, ClaimcheckError
from claimcheck.trust.boundary import refusal_rule, resolve_reference, role_noun
from claimcheck.trust.references import is_reference
from claimcheck.trust.roles import Role


@dataclass(frozen=True)
class ResolvedCheck:
    """A check ready to call: its name as written in the card, the function and its tier."""

    name: str
    function: CheckFunction
    tier: Tier


def load_callable(
    text: str, config: ProjectConfig, role: Role | None = None
) -> Callable[..., Any]:
    """Import the function named by ``module.path:attribute`` for ``role``.

    The name must pass the trust boundary (:func:`claimcheck.trust.boundary.resolve_reference`) and
    the imported object must carry the role's marker. ``role=None`` is only for the project's own
    ``[tool.claimcheck]`` settings (``model_factory``, ``trainer``): no marker is asked for.
    """
    reference = resolve_reference(text, config, role=role)
    module_name, function = reference.module, reference.function
    config.activate_import_roots()
    module = importlib.import_module(module_name)
    target = getattr(module, function, None)
    if not callable(target):
        raise CheckReferenceError(
            f"{text!r}: {function!r} is not a callable of module {module_name!r}"
        )
    if role is not None and marker_of(target) != role.value:
        raise CheckReferenceError(
            f"{role_noun(role)} {text!r} is not marked {role.decorator} once imported; "
            f"{refusal_rule(config, role)}"
        )
    return cast(Callable[..., Any], target)


_CONFIGURED = {
    "trainer": ("No trainer", "give `trainer:` in args"),
    "model_factory": ("No model factory", "name a `factory:` marked @model_factory in args"),
}


def configured_problem(config: ProjectConfig, key: str) -> str | None:
    """Why the ``[tool.claimcheck]`` callable ``key`` (``trainer``, ``model_factory``) cannot be
    loaded, worded with its fix (lint and verify say the same); ``None`` when it resolves."""
    named = str(getattr(config, key))
    try:
        resolve_reference(named, config, role=None)
    except ClaimcheckError as error:
        what, alternative = _CONFIGURED[key]
        default = "" if key in config.raw else " (the default)"
        return (f"{what}: set `[tool.claimcheck] {key}` or {alternative}; `{named}`{default}: "
                f"{error.message}")
    return None


def load_configured(config: ProjectConfig, key: str) -> Callable[..., Any]:
    """The ``[tool.claimcheck]`` callable ``key``, or :class:`CheckReferenceError` naming the
    fix (:func:`configured_problem`)."""
    problem = configured_problem(config, key)
    if problem is not None:
        raise CheckReferenceError(problem)
    return load_callable(str(getattr(config, key)), config)


def claim_tier(claim: Claim) -> Tier:
    """The claim's own tier, else its built-in kind's tier, else ``unit`` for custom checks."""
    if claim.tier is not None:
        return claim.tier
    if claim.check is None or is_reference(claim.check):
        return Tier.UNIT
    return get_builtin(claim.check).tier


def resolve_check(check: str, config: ProjectConfig) -> ResolvedCheck:
    """The callable behind ``check``: a built-in kind or a marked ``module.path:function``."""
    if is_reference(check):
        loaded = load_callable(check, config, Role.CLAIM_CHECK)
        return ResolvedCheck(check, cast(CheckFunction, checked_call(loaded)), Tier.UNIT)
    builtin = get_builtin(check)
    return ResolvedCheck(check, builtin.function, builtin.tier)
