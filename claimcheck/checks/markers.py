"""Markers: how repository code opts in to being named from a card.

Cards are data written by anyone who can open a pull request; a card may still choose *which*
function runs (``check: models.checks.x:f``, ``factory:``, ``a:``/``b:``, ``trainer:``). Only
functions that carry the marker of that role can be chosen:

* ``@claim_check`` on a custom check ``fn(ctx: CheckContext) -> Evidence`` (``check:``), or
  ``@claim_check(args=SomeArgs)`` for a check that takes args, declared as a dataclass
  (:mod:`claimcheck.checks.declared`);
* ``@model_factory`` on a function that builds a ``torch.nn.Module`` from keyword arguments
  (``params``/``shapes`` ``args.factory``);
* ``@timing_factory`` on a function that returns a zero-argument callable to time
  (``timing`` ``args.a``/``args.b``);
* ``@trainer`` on a trainer ``fn(spec, ctx) -> dict`` (``train`` ``args.trainer``);
* ``@wrong_variant`` on a zero-argument function ``fn() -> None`` of a configured catalogue
  (``[tool.claimcheck] variants``) that breaks the model in place, for one power run
  (``catches:``, :mod:`claimcheck.trust.variants`).

``claimcheck lint`` finds the markers with :mod:`ast`, without importing anything: the decorator
must be written exactly as ``@claim_check`` or ``@claimcheck.claim_check``, called or not
(likewise for the others). ``claimcheck verify`` checks the same thing from the files before it
imports, and checks the attribute the decorator sets after it imports, so a name rebound later
in the module is not trusted either. A marker only marks: the function is returned unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from claimcheck.trust.roles import Role

MARKER_ATTRIBUTE = "__claimcheck_marker__"
"""The attribute a marker sets on the function it marks; its value is the :class:`Role`'s name."""

F = TypeVar("F", bound=Callable[..., Any])


def _mark(function: F, role: Role) -> F:
    if isinstance(function, type) or not callable(function):
        raise TypeError(f"{role.decorator} marks a function, not {type(function).__name__}")
    setattr(function, MARKER_ATTRIBUTE, role.value)
    return function


@overload
def claim_check(function: F) -> F: ...


@overload
def claim_check(*, args: type | None = None) -> Callable[[F], F]: ...


def claim_check(function: F | None = None, *, args: type | None = None) -> F | Callable[[F], F]:
    """Let a card name ``function`` as its ``check: module.path:function``.

    ``@claim_check(args=SomeArgs)`` declares the args the check takes (a ``@dataclass``
    subclass of :class:`claimcheck.CheckArgs`); plain ``@claim_check`` declares none.
    """
    if function is not None:
        return _mark(function, Role.CLAIM_CHECK)

    def mark(target: F) -> F:
        from claimcheck.checks.declared import ARGS_ATTRIBUTE, declared_fields

        declared_fields(args)  # refuses at import what is not a CheckArgs dataclass
        setattr(_mark(target, Role.CLAIM_CHECK), ARGS_ATTRIBUTE, args)
        return target

    return mark


def model_factory(function: F) -> F:
    """Let a ``params``/``shapes`` claim name ``function`` as ``args.factory``."""
    return _mark(function, Role.MODEL_FACTORY)


def timing_factory(function: F) -> F:
    """Let a ``timing`` claim name ``function`` as ``args.a`` or ``args.b``."""
    return _mark(function, Role.TIMING_FACTORY)


def trainer(function: F) -> F:
    """Let a ``train`` claim name ``function`` as ``args.trainer``."""
    return _mark(function, Role.TRAINER)


def wrong_variant(function: F) -> F:
    """Let a claim list ``function`` in ``catches:``: called with no arguments in a check's own
    process, right before the check runs, it breaks the model in place (a power run,
    :mod:`claimcheck.store.power`). Its first docstring line describes the bug."""
    return _mark(function, Role.WRONG_VARIANT)


def marker_of(function: object) -> str | None:
    """The role ``function`` was marked for at run time, or ``None``."""
    value = getattr(function, MARKER_ATTRIBUTE, None)
    return value if isinstance(value, str) else None
