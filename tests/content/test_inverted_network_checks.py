"""Network-level inverted routing checks (arxiv:2002.04764) hold for the model and fail for wrong
variants: sequential routing, stale poses at the third pass, a preset routing the wrong way,
gradients cut between passes, scrambled convolution windows."""

from __future__ import annotations

import dataclasses

import torch
from torch import Tensor

from models.checks import inverted_network as net
from models.checks.common import all_hold


def test_checks_hold_for_the_model(make_ctx) -> None:
    for check, args in (
        (net.concurrent_routing, {}),
        (net.preset_routing_mode, {"preset": "cifar10_simple"}),
        (net.gradient_through_passes, {"passes": 3}),
        (net.conv_windows, {}),
    ):
        evidence = check(make_ctx(args))
        assert evidence.measured is True, (check.__name__, evidence.details)


def small_model_and_primary():
    model = net.small_network(0)
    with torch.no_grad():
        primary = model.primary(torch.randn(1, 3, 32, 32, dtype=torch.float64))
    return model, primary


def test_sequential_routing_fails_the_concurrent_check() -> None:
    model, primary = small_model_and_primary()
    with torch.no_grad():
        findings, _ = net.measure_concurrent(
            net.network_router(model, primary, "sequential"), model, primary
        )
    assert findings[0].ok  # one pass: the two orders agree
    assert not all_hold(findings)


def test_stale_poses_at_the_third_pass_fail() -> None:
    model, primary = small_model_and_primary()
    layers = list(model.capsule_layers)

    def stale(passes: int) -> list[Tensor]:
        first = [primary]
        for layer in layers:
            first.append(layer(first[-1]))
        poses = first
        for _ in range(passes - 1):  # every later pass starts from the first pass's poses
            poses = [primary] + [layer(first[k], first[k + 1]) for k, layer in enumerate(layers)]
        return poses

    with torch.no_grad():
        findings, _ = net.measure_concurrent(stale, model, primary)
    assert findings[0].ok and findings[1].ok and not findings[2].ok


def test_a_preset_that_routes_sequentially_or_once_fails() -> None:
    from models.registry import build_model

    x = torch.randn(1, 3, 32, 32, dtype=torch.float64)
    for override in ({"routing": "sequential"}, {"iterations": 1}, {"iterations": 3},
                     {"scale_agreement": False}):
        torch.manual_seed(0)
        model = build_model(
            "inverted_capsnet", "cifar10_simple", **net.SMALL_CAPSULES, **override
        ).double().eval()
        with torch.no_grad():
            findings, _ = net.measure_preset_routing(model, x, 2)
        assert not all_hold(findings), override


def test_poses_detached_between_passes_fail_the_gradient_check() -> None:
    model, primary = small_model_and_primary()
    model.config = dataclasses.replace(model.config, iterations=3, routing="concurrent")
    layers = list(model.capsule_layers)

    def detached_route(primary_map: Tensor) -> list[Tensor]:
        poses = [primary_map]
        for layer in layers:
            poses.append(layer(poses[-1]))
        for _ in range(2):
            poses = [primary_map] + [
                layer(poses[k], poses[k + 1].detach()) for k, layer in enumerate(layers)
            ]
        return poses

    model.route = detached_route
    assert not all_hold(net.measure_network_gradient(model, primary, 3))


def test_the_scrambled_window_expansion_fails() -> None:
    from models.inverted.networks import ConvInvertedDotProductRouting

    layer = ConvInvertedDotProductRouting(
        3, 4, 2, 4, kernel=3, stride=2, input_expansion="apple_53899ae"
    ).double()
    children = torch.randn(2, 3, 7, 7, 4, dtype=torch.float64)
    with torch.no_grad():
        assert not all_hold(net.measure_conv_windows(layer.votes, layer.weight, 2, children))


def test_capsule_layer_counts_differ_between_the_cifar_configurations(make_ctx) -> None:
    assert net.capsule_layer_counts(make_ctx({"preset": "cifar10_simple"})).measured == [3, 1]
    assert net.capsule_layer_counts(make_ctx({"preset": "cifar100_simple"})).measured == [3, 2]
