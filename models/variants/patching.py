"""The one place a wrong variant changes the model: rebinding an attribute of a content module
or class. :data:`APPLY` does the rebinding; tests set it to pytest's ``monkeypatch.setattr`` so
that every change is undone after the test, while a power run's child process is discarded."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import torch

APPLY: Callable[[Any, str, Any], None] = setattr


def replace(target: Any, name: str, value: Any) -> None:
    """Rebind ``target.name`` (a module or a class of ``models.*``) to ``value``."""
    owner = getattr(target, "__module__", None) or getattr(target, "__name__", "")
    if not str(owner).startswith("models.") or str(owner).startswith("models.checks"):
        raise ValueError(f"a wrong variant may change only content modules, not {owner!r}")
    if not hasattr(target, name):
        raise AttributeError(f"{owner} has no attribute {name!r} to replace")
    APPLY(target, name, value)


def after_init(cls: Any, then: Callable[[Any], None]) -> None:
    """Rebind ``cls.__init__`` so that ``then(instance)`` runs after the original one."""
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        then(self)

    replace(cls, "__init__", init)


def module(name: str) -> Any:
    """The content module ``name``, imported (a variant may run before the check imports it)."""
    return importlib.import_module(name)


class Replaced:
    """A library module (``torch``, ``torch.nn.functional``) with some functions replaced, to
    rebind as a content module's name for it.

    Routing code calls ``torch.softmax(logits, dim=1)``; a variant that moves or removes that
    softmax gives the module ``Replaced(torch, softmax=...)`` instead of copying the routing code.
    """

    def __init__(self, base: Any, **functions: Any) -> None:
        self._base = base
        self._functions = functions

    def __getattr__(self, name: str) -> Any:
        if name in self._functions:
            return self._functions[name]
        return getattr(self._base, name)


def other_axis_softmax(logits: torch.Tensor, dim: int) -> torch.Tensor:
    """The softmax over the children (axis 2 of (B, j, i)) where the rule says parents (axis 1)."""
    return torch.softmax(logits, dim=2 if dim == 1 else dim)


def uniform_softmax(logits: torch.Tensor, dim: int) -> torch.Tensor:
    """Every coefficient 1/n over ``dim``: routing replaced by plain averaging."""
    return torch.full_like(logits, 1.0 / logits.shape[dim])


def detached_softmax(logits: torch.Tensor, dim: int) -> torch.Tensor:
    """The softmax of the logits with no gradient through them (a stop-gradient in routing)."""
    return torch.softmax(logits.detach(), dim=dim)


def batch_shared_softmax(logits: torch.Tensor, dim: int) -> torch.Tensor:
    """The softmax of the logits averaged over the batch (axis 0): one set of routing logits for
    every image, so an image's parents depend on the rest of its batch."""
    return torch.softmax(logits.mean(dim=0, keepdim=True).expand_as(logits), dim=dim)


def identity(s: torch.Tensor, *_args: Any, **_kwargs: Any) -> torch.Tensor:
    """Returns its input: a squash or a norm left out."""
    return s


def squared_length(v: torch.Tensor, dim: int = -1, eps: float = 0.0) -> torch.Tensor:
    """‖v‖² where the model means ‖v‖: the sum of squares with its square root left out."""
    return (v * v).sum(dim=dim) + eps
