"""Layout, stem-order and initialisation checks hold for the models and fail for the bugs that
public ports have: capsules cut from NCHW memory, a missing LayerNorm or ReLU, BatchNorm before
the activation, an unsquashed primary capsule, non-zero log priors, a wrong weight scale."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from models.capsules import squash_sabour
from models.checks import init, layout
from models.checks.common import all_hold


def test_checks_hold_for_the_models(make_ctx) -> None:
    for check, args in (
        (layout.capsnet_primary_layout, {}),
        (layout.inverted_primary_layout, {"preset": "cifar10_simple"}),
        (layout.capsnet_conv1_relu, {}),
        (layout.capsnet_primary_squash, {}),
        (layout.inverted_backbone_rectified, {"preset": "cifar10_simple"}),
        (layout.inverted_backbone_rectified, {"preset": "cifar10_resnet"}),
        (layout.efficient_stem_order, {}),
        (layout.efficient_stem_order, {"preset": "smallnorb"}),
        (layout.efficient_primary_squash, {}),
        (init.efficient_capsnet_init, {}),
        (init.inverted_capsnet_init, {"preset": "cifar100_simple"}),
    ):
        evidence = check(make_ctx(args))
        assert evidence.measured is True, (check.__name__, evidence.details)


def test_capsules_cut_from_nchw_memory_fail_the_grouping() -> None:
    def flat_groups(h: Tensor) -> Tensor:  # 8 consecutive values of the NCHW map per capsule
        return squash_sabour(h.reshape(h.shape[0], -1, 8))

    assert not all_hold(layout.measure_grouping(flat_groups, 256, 8, (6, 6), 0))


def test_channels_at_one_position_pass_the_grouping() -> None:
    def by_position(h: Tensor) -> Tensor:
        u = h.view(1, 32, 8, 6, 6).permute(0, 1, 3, 4, 2)
        return squash_sabour(u.reshape(1, -1, 8))

    assert all_hold(layout.measure_grouping(by_position, 256, 8, (6, 6), 0))


def test_pose_entries_taken_across_positions_fail_the_inverted_grouping() -> None:
    def positions_as_entries(h: Tensor) -> Tensor:  # a view of (B, types·d, H, W) as (.., H, W, d)
        return h.reshape(1, 4, 5, 5, 16)

    assert not all_hold(layout.measure_grouping(positions_as_entries, 64, 16, (5, 5), 0))


def test_features_without_relu_fail() -> None:
    assert not all_hold(layout.measure_rectified(torch.randn(2, 256, 20, 20)))
    assert all_hold(layout.measure_rectified(torch.relu(torch.randn(2, 256, 20, 20))))


def _block(order: str) -> nn.Module:
    torch.manual_seed(0)
    conv = nn.Conv2d(1, 8, 3).double()
    batch = nn.BatchNorm2d(8, eps=1e-3).double()
    instance = nn.InstanceNorm2d(8, eps=1e-3, affine=True).double()
    layers = {
        "conv-relu-bn": [conv, nn.ReLU(), batch],
        "conv-bn-relu": [conv, batch, nn.ReLU()],
        "conv-bn": [conv, batch],
        "conv-bn-eps-1e-5": [conv, nn.ReLU(), nn.BatchNorm2d(8).double()],
        "conv-leaky-in": [conv, nn.LeakyReLU(0.3), instance],
        "conv-in-leaky": [conv, instance, nn.LeakyReLU(0.3)],
        "conv-leaky-0.2-in": [conv, nn.LeakyReLU(0.2), instance],
    }[order]
    return nn.Sequential(*layers)


def test_the_stem_order_and_its_constants_are_checked() -> None:
    x = torch.randn(4, 1, 12, 12, dtype=torch.float64)
    for order, kind, holds in (
        ("conv-relu-bn", "batch", True), ("conv-bn-relu", "batch", False),
        ("conv-bn", "batch", False), ("conv-bn-eps-1e-5", "batch", False),
        ("conv-leaky-in", "instance", True), ("conv-in-leaky", "instance", False),
        ("conv-leaky-0.2-in", "instance", False),
    ):
        findings = layout.measure_stem_block(_block(order), x, kind, 0)
        assert all_hold(findings) is holds, order


def test_an_unsquashed_or_sabour_squashed_primary_capsule_fails() -> None:
    raw = torch.randn(2, 128, dtype=torch.float64) * 2
    grouped = raw.view(2, 16, 8)
    norm = grouped.norm(dim=-1, keepdim=True)
    right = (1 - torch.exp(-norm)) * grouped / norm
    assert all_hold(layout.measure_primary_squash(right, raw, 8))
    assert not all_hold(layout.measure_primary_squash(grouped, raw, 8))
    assert not all_hold(layout.measure_primary_squash(squash_sabour(grouped), raw, 8))


def _fccaps_weight(std: float) -> Tensor:
    return torch.randn(10, 16, 8, 16, generator=torch.Generator().manual_seed(0)) * std


def test_non_zero_log_priors_or_another_weight_scale_fail() -> None:
    keras_std = math.sqrt(2 / 1280) / 0.87962566103423978
    weight = nn.init.trunc_normal_(torch.empty(10, 16, 8, 16), std=keras_std, a=-2 * keras_std,
                                   b=2 * keras_std, generator=torch.Generator().manual_seed(0))
    zeros = torch.zeros(10, 16)
    assert all_hold(init.measure_fccaps_init(weight, zeros))
    assert not all_hold(init.measure_fccaps_init(weight, torch.ones(10, 16)))
    # PyTorch's kaiming_normal_ reads fan_in 2048 from the same tensor: std 0.031, not 0.040.
    assert not all_hold(init.measure_fccaps_init(_fccaps_weight(math.sqrt(2 / 2048)), zeros))
    # An untruncated normal of the right std reaches beyond the truncation bound.
    assert not all_hold(init.measure_fccaps_init(_fccaps_weight(math.sqrt(2 / 1280)), zeros))


def test_inverted_weights_of_unit_scale_fail() -> None:
    from models.registry import build_model

    model = build_model("inverted_capsnet", "cifar10_simple")
    assert all_hold(init.measure_inverted_init(model))
    with torch.no_grad():
        model.capsule_layers[-1].weight.normal_()
    assert not all_hold(init.measure_inverted_init(model))
