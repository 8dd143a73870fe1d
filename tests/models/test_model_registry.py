"""The model registry (models/registry.py)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from models import registry
from models.registry import (
    UnknownModelError,
    available_models,
    build_model,
    model_config,
    register_model,
)

ROOT = Path(__file__).resolve().parents[2]


def test_every_family_registers_its_presets():
    pairs = set(available_models())
    assert {
        ("capsnet", "mnist"),
        ("capsnet", "multimnist"),
        ("capsnet_baseline", "mnist"),
        ("capsnet_baseline", "multimnist"),
        ("efficient_capsnet", "mnist"),
        ("efficient_capsnet", "smallnorb"),
        ("efficient_capsnet", "multimnist"),
        ("efficient_capsnet", "paper_literal"),
        ("inverted_capsnet", "cifar10_resnet"),
        ("inverted_capsnet", "cifar10_simple"),
        ("inverted_capsnet", "cifar100_resnet"),
        ("inverted_capsnet", "cifar100_simple"),
        ("resnet18", "cifar10"),
        ("resnet18", "cifar100"),
    } <= pairs


def test_overrides_replace_config_fields():
    model = build_model("capsnet", "mnist", iterations=1, decoder=False)
    assert model.config.iterations == 1 and model.decoder is None
    assert model.digit_caps.iterations == 1


def test_unknown_names_presets_and_fields_are_reported_with_a_suggestion():
    with pytest.raises(UnknownModelError, match="did you mean 'capsnet'"):
        model_config("capsnett", "mnist")
    with pytest.raises(UnknownModelError, match="did you mean 'mnist'"):
        model_config("capsnet", "mnsit")
    with pytest.raises(TypeError, match="iteratons"):
        model_config("capsnet", "mnist", iteratons=2)


@dataclass(frozen=True)
class _ToyConfig:
    width: int = 1


def test_registration_rejects_duplicates_and_bad_builders(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    with pytest.raises(ValueError, match="already registered"):
        register_model("capsnet", {"mnist": _ToyConfig})
    with pytest.raises(ValueError, match="preset"):
        register_model("toy", {})
    with pytest.raises(ValueError, match="one config argument"):
        register_model("toy", {"small": _ToyConfig})(lambda config, extra: None)
    register_model("toy", {"small": _ToyConfig})(lambda config: ("built", config.width))
    assert build_model("toy", "small", width=3) == ("built", 3)


def test_importing_models_and_registry_does_not_import_torch():
    code = "import sys, models, models.registry; sys.exit('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False)
    assert result.returncode == 0
