"""The public face: ``claimcheck.__all__`` is complete and every name in it exists."""

from __future__ import annotations

import importlib
import inspect

import claimcheck

PUBLIC_MODULES = [
    "claimcheck.cards.frontmatter",
    "claimcheck.cards.citations",
    "claimcheck.cards.locators",
    "claimcheck.checks.api",
    "claimcheck.core.errors",
    "claimcheck.verdicts.verdict",
    "claimcheck.verdicts.judge",
    "claimcheck.cards.wiki",
]


def test_all_names_exist_and_are_unique() -> None:
    assert len(claimcheck.__all__) == len(set(claimcheck.__all__))
    for name in claimcheck.__all__:
        assert hasattr(claimcheck, name), name


def test_every_public_class_and_function_is_exported() -> None:
    missing = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if name.startswith("_") or getattr(value, "__module__", None) != module_name:
                continue
            if (inspect.isclass(value) or inspect.isfunction(value)) and \
                    name not in claimcheck.__all__:
                missing.append(f"{module_name}.{name}")
    assert missing == []
