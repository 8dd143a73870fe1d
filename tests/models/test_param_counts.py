"""Exact parameter counts of every preset, as the official code builds each network.

The numbers come from the reference sheets (../shared/reference); the papers' rounded claims
(8.2M, 161K, "4× fewer") belong in the cards.
"""

from __future__ import annotations

import pytest

from models.capsules import count_parameters
from models.registry import build_model

# (model, preset, overrides, excluded submodule, trainable parameters)
COUNTS = [
    ("capsnet", "mnist", {}, None, 8_215_568),
    ("capsnet", "mnist", {}, "decoder", 6_804_224),
    ("capsnet", "mnist", {"digit_bias": True}, None, 8_215_728),
    ("capsnet", "mnist", {"digit_bias": True}, "decoder", 6_804_384),
    ("capsnet", "multimnist", {}, None, 11_361_968),
    ("capsnet_baseline", "mnist", {}, None, 35_445_522),
    ("capsnet_baseline", "multimnist", {}, None, 24_563_978),
    ("efficient_capsnet", "mnist", {}, "decoder", 161_824),
    ("efficient_capsnet", "mnist", {}, None, 1_573_168),
    ("efficient_capsnet", "smallnorb", {}, "decoder", 151_664),
    ("efficient_capsnet", "multimnist", {}, "decoder", 154_656),
    ("efficient_capsnet", "paper_literal", {}, "decoder", 2_205_184),
    ("inverted_capsnet", "cifar10_resnet", {}, None, 1_828_817),
    ("inverted_capsnet", "cifar100_resnet", {}, None, 2_799_629),
    ("inverted_capsnet", "cifar10_simple", {}, None, 492_177),
    ("inverted_capsnet", "cifar100_simple", {}, None, 1_462_989),
    ("resnet18", "cifar10", {}, None, 11_173_962),
    ("resnet18", "cifar100", {}, None, 11_220_132),
]


@pytest.mark.parametrize(("name", "preset", "overrides", "exclude", "expected"), COUNTS)
def test_parameter_count(name, preset, overrides, exclude, expected):
    model = build_model(name, preset, **overrides)
    total = count_parameters(model)
    if exclude is not None:
        total -= count_parameters(model.get_submodule(exclude))
    assert total == expected


@pytest.mark.parametrize(
    ("preset", "decoder"),
    [("mnist", 1_411_344), ("multimnist", 1_936_144), ("smallnorb", 229_570)],
)
def test_efficient_capsnet_decoders(preset, decoder):
    assert count_parameters(build_model("efficient_capsnet", preset).decoder) == decoder


@pytest.mark.parametrize("preset", ["mnist", "multimnist"])
def test_efficient_capsnet_batchnorm_statistics_are_buffers_not_parameters(preset):
    model = build_model("efficient_capsnet", preset)
    statistics = sum(b.numel() for n, b in model.named_buffers() if "running" in n)
    assert statistics == 576
    assert count_parameters(model, trainable_only=False) == count_parameters(model)


def test_decoder_option_removes_the_decoder_from_the_count():
    without = build_model("efficient_capsnet", "mnist", decoder="none")
    assert without.decoder is None and count_parameters(without) == 161_824
