"""Layer-level inverted dot-product routing checks (arxiv:2002.04764) hold for the model and fail
for wrong variants: softmax over children, no LayerNorm, a squash, a warm first pass."""

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
    ):
        evidence = check(make_ctx(args))
        assert evidence.measured is True, (check.__name__, evidence.details)


def reference_router(layer, axis="parents", normalise=True, squash=False, stale=False):
    first: list[Tensor] = []

    def route(children: Tensor, parents: Tensor | None) -> tuple[Tensor, Tensor]:
        votes = inv.reference_votes(children, layer.weight)
        if parents is None:
            parents = votes.new_zeros(votes.shape[0], votes.shape[1], votes.shape[3])
        elif stale and first:
            parents = first[0]  # agreement against the first pass's poses, not the last
        poses, coupling = inv.reference_pass(
            votes, parents, layer.scale, layer.norm if normalise else None, axis=axis
        )
        if squash:
            norm_sq = (poses**2).sum(-1, keepdim=True)
            poses = norm_sq / (1 + norm_sq) * poses / norm_sq.sqrt()
        if not first:
            first.append(poses)
        return poses, coupling

    return route


def test_the_reference_router_passes() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    with torch.no_grad():
        findings, _ = inv.measure_procedure(reference_router(layer), layer, children, 3,
                                            layer.scale)
    assert all_hold(findings)


def test_softmax_over_children_fails() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    parents = torch.randn(inv.BATCH, inv.PARENTS, inv.POSE, dtype=torch.float64)
    wrong = reference_router(layer, axis="children")
    with torch.no_grad():
        assert not all_hold(inv.measure_softmax_axis(wrong, layer, children, parents))
        assert not all_hold(inv.measure_procedure(wrong, layer, children, 3, layer.scale)[0])


def test_agreement_against_stale_poses_fails_at_three_passes() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    with torch.no_grad():
        findings, _ = inv.measure_procedure(
            reference_router(layer, stale=True), layer, children, 3, layer.scale
        )
    assert not all_hold(findings)


def test_a_missing_agreement_scale_fails_the_procedure() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    with torch.no_grad():
        findings, _ = inv.measure_procedure(
            inv.layer_router(inv.build_layer(0, scale_agreement=False)), layer, children, 3,
            layer.scale,
        )
    assert not all_hold(findings)


def test_a_first_pass_from_non_zero_poses_is_not_uniform() -> None:
    layer, children = inv.build_layer(0), inv.sample_children(0)
    right = reference_router(layer)

    def warm_start(children: Tensor, parents: Tensor | None) -> tuple[Tensor, Tensor]:
        if parents is None:
            parents = torch.ones(inv.BATCH, inv.PARENTS, inv.POSE, dtype=torch.float64)
        return right(children, parents)

    with torch.no_grad():
        assert not all_hold(inv.measure_uniform_first_pass(warm_start, layer, children))


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
