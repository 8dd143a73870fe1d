"""Inverted dot-product routing checks (arxiv:2002.04764) hold for the model and fail for wrong
variants: softmax over children, no LayerNorm, a squash, sequential routing, scrambled windows."""

from __future__ import annotations

import torch
from torch import Tensor

from models.checks import inverted as inv
from models.checks.common import all_hold


def test_checks_hold_for_the_model(make_ctx) -> None:
    for check, args in (
        (inv.procedure_matches_reference, {"passes": 3}),
        (inv.procedure_matches_reference, {"passes": 2, "scale_agreement": False}),
        (inv.softmax_over_parents, {}),
        (inv.uniform_first_pass, {}),
        (inv.layernorm_parent_poses, {}),
        (inv.parent_poses_unsquashed, {}),
        (inv.conv_windows, {}),
        (inv.concurrent_routing, {}),
    ):
        evidence = check(make_ctx(args))
        assert evidence.measured is True, (check.__name__, evidence.details)


def reference_router(layer, axis="parents", normalise=True, squash=False):
    def route(children: Tensor, parents: Tensor | None) -> tuple[Tensor, Tensor]:
        votes = inv.reference_votes(children, layer.weight)
        if parents is None:
            parents = votes.new_zeros(votes.shape[0], votes.shape[1], votes.shape[3])
        poses, coupling = inv.reference_pass(
            votes, parents, layer.scale, layer.norm if normalise else None, axis=axis
        )
        if squash:
            norm_sq = (poses**2).sum(-1, keepdim=True)
            poses = norm_sq / (1 + norm_sq) * poses / norm_sq.sqrt()
        return poses, coupling

    return route


def test_softmax_over_children_fails() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    parents = torch.randn(inv.BATCH, inv.PARENTS, inv.POSE, dtype=torch.float64)
    wrong = reference_router(layer, axis="children")
    with torch.no_grad():
        assert not all_hold(inv.measure_softmax_axis(wrong, layer, children, parents))
        assert not all_hold(inv.measure_procedure(wrong, layer, children, 3, layer.scale))


def test_a_first_pass_from_non_zero_poses_is_not_uniform() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    right = reference_router(layer)

    def warm_start(children: Tensor, parents: Tensor | None) -> tuple[Tensor, Tensor]:
        if parents is None:
            parents = torch.ones(inv.BATCH, inv.PARENTS, inv.POSE, dtype=torch.float64)
        return right(children, parents)

    with torch.no_grad():
        assert not all_hold(inv.measure_uniform_first_pass(warm_start, children))


def test_missing_layer_norm_fails() -> None:
    layer = inv.build_layer(0, random_affine=False)
    with torch.no_grad():
        findings = inv.measure_layer_norm(
            reference_router(layer, normalise=False), layer, inv.sample_children(0)
        )
    assert not all_hold(findings)


def test_a_squash_after_the_norm_fails_the_unsquashed_check() -> None:
    layer = inv.build_layer(0, random_affine=False)
    with torch.no_grad():
        squashed = reference_router(layer, squash=True)
        findings = inv.measure_unsquashed(squashed, inv.sample_children(0))
    assert not all_hold(findings)


def test_sequential_routing_fails_the_concurrent_check() -> None:
    from models.registry import build_model

    torch.manual_seed(0)
    model = build_model("inverted_capsnet", "cifar10_simple", **inv.SMALL_CAPSULES).double().eval()
    with torch.no_grad():
        primary = model.primary(torch.randn(1, 3, 32, 32, dtype=torch.float64))
        sequential = inv._network_router(model, primary, "sequential")
        findings = inv.measure_concurrent(sequential, sequential, model.capsule_layers)
    assert not findings[0].ok


def test_the_scrambled_window_expansion_fails() -> None:
    from models.inverted_routing import ConvInvertedDotProductRouting

    layer = ConvInvertedDotProductRouting(
        3, 4, 2, 4, kernel=3, stride=2, input_expansion="apple_53899ae"
    ).double()
    children = torch.randn(2, 3, 7, 7, 4, dtype=torch.float64)
    with torch.no_grad():
        assert not all_hold(inv.measure_conv_windows(layer.votes, layer.weight, 2, children))


def test_capsule_layer_counts_differ_between_the_cifar_configurations(make_ctx) -> None:
    assert inv.capsule_layer_counts(make_ctx({"preset": "cifar10_simple"})).measured == [3, 1]
    assert inv.capsule_layer_counts(make_ctx({"preset": "cifar100_simple"})).measured == [3, 2]
