"""Model registry: cards name a network as (name, preset); the tool builds it with ``build_model``.

Contract (docs/architecture.md, "Model contract")::

    register_model(name, presets)            # decorator on a class or factory taking a config
    build_model(name, preset, **overrides)   # -> torch.nn.Module
    available_models()                       # -> [(name, preset), ...]

A preset is a zero-argument callable that returns the family's config dataclass; overrides are
applied with ``dataclasses.replace``, so ``build_model("capsnet", "mnist", iterations=1)`` is the
1-iteration row of arxiv:1710.09829 tab. 1. The family modules are imported on first use, which
keeps ``import models.registry`` free of torch.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from claimcheck import model_factory

FAMILY_MODULES = (
    "models.dynamic.capsnet",
    "models.self_attention.efficient_capsnet",
    "models.inverted.networks",
    "models.resnet",
    "models.ablation_models",
)

Builder = TypeVar("Builder", bound=Callable[..., Any])


class UnknownModelError(LookupError):
    """Raised for a model name or preset that is not registered; the message suggests one."""


@dataclasses.dataclass(frozen=True)
class _Entry:
    builder: Callable[[Any], Any]
    presets: Mapping[str, Callable[[], Any]]


_REGISTRY: dict[str, _Entry] = {}


def register_model(
    name: str, presets: Mapping[str, Callable[[], Any]]
) -> Callable[[Builder], Builder]:
    """Register ``builder(config)`` under ``name`` with its named presets.

    Raises ``ValueError`` on a duplicate name, an empty preset table, or a builder that does not
    take exactly one required positional argument (the config).
    """
    if name in _REGISTRY:
        raise ValueError(f"model {name!r} is already registered")
    if not presets:
        raise ValueError(f"model {name!r} needs at least one preset")

    def decorate(builder: Builder) -> Builder:
        required = [
            p
            for p in inspect.signature(builder).parameters.values()
            if p.default is inspect.Parameter.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(required) != 1:
            raise ValueError(f"builder for {name!r} must take exactly one config argument")
        _REGISTRY[name] = _Entry(builder, dict(presets))
        return builder

    return decorate


def _load_families() -> None:
    for module in FAMILY_MODULES:
        importlib.import_module(module)


def _suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(sorted(options))}"


def model_config(name: str, preset: str, **overrides: Any) -> Any:
    """The config dataclass that ``build_model`` would use, without building the network."""
    _load_families()
    if name not in _REGISTRY:
        raise UnknownModelError(f"unknown model {name!r}" + _suggest(name, list(_REGISTRY)))
    entry = _REGISTRY[name]
    if preset not in entry.presets:
        raise UnknownModelError(
            f"unknown preset {preset!r} for model {name!r}" + _suggest(preset, list(entry.presets))
        )
    config = entry.presets[preset]()
    if not overrides:
        return config
    fields = {f.name for f in dataclasses.fields(config)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise TypeError(f"{name}/{preset}: unknown override(s) {unknown}; fields: {sorted(fields)}")
    return dataclasses.replace(config, **overrides)


@model_factory
def build_model(name: str, preset: str, **overrides: Any) -> Any:
    """Build the registered network ``name`` from ``preset``, with config fields overridden."""
    config = model_config(name, preset, **overrides)
    return _REGISTRY[name].builder(config)


def available_models() -> list[tuple[str, str]]:
    """All registered (name, preset) pairs, sorted."""
    _load_families()
    return sorted((name, preset) for name, entry in _REGISTRY.items() for preset in entry.presets)
