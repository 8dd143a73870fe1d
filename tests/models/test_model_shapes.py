"""Shapes at every stage, traced by the dotted submodule names the docstrings promise."""

from __future__ import annotations

import pytest
import torch

from models.registry import build_model

B = 1

STAGES = {
    ("capsnet", "mnist"): {
        "conv1": (B, 256, 20, 20),
        "primary_caps.conv": (B, 256, 6, 6),
        "primary_caps": (B, 1152, 8),
        "digit_caps": (B, 10, 16),
    },
    ("capsnet", "multimnist"): {
        "conv1": (B, 256, 28, 28),
        "primary_caps": (B, 3200, 8),
        "digit_caps": (B, 10, 16),
    },
    ("capsnet_baseline", "mnist"): {
        "features": (B, 128, 28, 28),
        "hidden": (B, 192),
        "classifier": (B, 10),
    },
    ("capsnet_baseline", "multimnist"): {
        "features": (B, 256, 9, 9),
        "hidden": (B, 1024),
        "classifier": (B, 10),
    },
    ("efficient_capsnet", "mnist"): {
        "stem.0": (B, 32, 24, 24),
        "stem.1": (B, 64, 22, 22),
        "stem.2": (B, 64, 20, 20),
        "stem.3": (B, 128, 9, 9),
        "primary_caps.conv": (B, 128, 1, 1),
        "primary_caps": (B, 16, 8),
        "digit_caps": (B, 10, 16),
    },
    ("efficient_capsnet", "smallnorb"): {
        "stem.0": (B, 32, 21, 21),
        "stem.1": (B, 64, 19, 19),
        "stem.2": (B, 64, 17, 17),
        "stem.3": (B, 128, 8, 8),
        "primary_caps": (B, 16, 8),
        "digit_caps": (B, 5, 16),
    },
    ("efficient_capsnet", "multimnist"): {
        "stem.0": (B, 32, 32, 32),
        "stem.1": (B, 64, 30, 30),
        "stem.2": (B, 64, 14, 14),
        "stem.3": (B, 128, 6, 6),
        "primary_caps": (B, 16, 8),
        "digit_caps": (B, 10, 16),
    },
    ("efficient_capsnet", "paper_literal"): {
        "stem.3": (B, 128, 18, 18),
        "primary_caps.conv": (B, 128, 10, 10),
        "primary_caps": (B, 1600, 8),
        "digit_caps": (B, 10, 16),
    },
    ("inverted_capsnet", "cifar10_resnet"): {
        "backbone": (B, 128, 16, 16),
        "primary_caps": (B, 512, 16, 16),
        "primary_norm": (B, 32, 16, 16, 16),
        "capsule_layers.0": (B, 32, 7, 7, 16),
        "capsule_layers.1": (B, 32, 5, 5, 16),
        "capsule_layers.2": (B, 10, 16),
        "classifier": (B, 10, 1),
    },
    ("inverted_capsnet", "cifar100_simple"): {
        "backbone": (B, 128, 16, 16),
        "primary_norm": (B, 32, 16, 16, 36),
        "capsule_layers.0": (B, 32, 7, 7, 36),
        "capsule_layers.1": (B, 32, 5, 5, 36),
        "capsule_layers.2": (B, 20, 36),
        "capsule_layers.3": (B, 100, 36),
    },
    ("resnet18", "cifar10"): {
        "stem": (B, 64, 32, 32),
        "stages.0": (B, 64, 32, 32),
        "stages.1": (B, 128, 16, 16),
        "stages.2": (B, 256, 8, 8),
        "stages.3": (B, 512, 4, 4),
        "classifier": (B, 10),
    },
}


def input_shape(model: torch.nn.Module) -> tuple[int, int, int, int]:
    config = model.config
    size = getattr(config, "image_size", 32)
    return (B, config.in_channels, size, size)


@pytest.mark.parametrize(("key", "stages"), list(STAGES.items()), ids=["/".join(k) for k in STAGES])
def test_stage_shapes(key, stages):
    torch.manual_seed(0)
    model = build_model(*key)
    seen: dict[str, tuple[int, ...]] = {}
    for name in stages:
        module = model.get_submodule(name)
        module.register_forward_hook(
            lambda _m, _i, out, name=name: seen.__setitem__(name, tuple(out.shape))
        )
    with torch.no_grad():
        model(torch.rand(input_shape(model)))
    assert seen == stages
