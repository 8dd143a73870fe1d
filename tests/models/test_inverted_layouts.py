"""The inverted-routing layers route in the votes' child-major layout (``route_child_major``); a
pass must give the poses, coupling and gradients of Procedure 1 on parent-major votes."""

from __future__ import annotations

import pytest
import torch

from models.inverted import layers as inverted_layers
from models.inverted.networks import (
    ConvInvertedDotProductRouting,
    InvertedDotProductRouting,
    inverted_dot_product_routing,
)

B = 2


def _fc(matrix_pose: bool) -> InvertedDotProductRouting:
    return InvertedDotProductRouting(6, 16, 5, 16, matrix_pose=matrix_pose).double()


def _conv(matrix_pose: bool) -> ConvInvertedDotProductRouting:
    return ConvInvertedDotProductRouting(3, 16, 4, 16, 3, 2, matrix_pose=matrix_pose).double()


def _fc_case(matrix_pose: bool):
    layer = _fc(matrix_pose)
    children = torch.randn(B, 6, 16, dtype=torch.float64)
    parents = torch.randn(B, 5, 16, dtype=torch.float64)
    return layer, children, parents, parents, lambda poses: poses


def _conv_case(matrix_pose: bool):
    layer = _conv(matrix_pose)
    children = torch.randn(B, 3, 7, 7, 16, dtype=torch.float64)
    parents = torch.randn(B, 4, 3, 3, 16, dtype=torch.float64)
    flat = parents.permute(0, 2, 3, 1, 4).flatten(0, 2)  # (B·h·w, m, e), routing groups

    def by_group(poses):  # (B, m, h, w, e) -> (B·h·w, m, e)
        return poses.permute(0, 2, 3, 1, 4).flatten(0, 2)

    return layer, children, parents, flat, by_group


@pytest.mark.parametrize("matrix_pose", [True, False], ids=["matrix", "vector"])
@pytest.mark.parametrize("case", [_fc_case, _conv_case], ids=["fc", "conv"])
def test_a_routing_pass_equals_procedure_1_on_parent_major_votes(case, matrix_pose):
    torch.manual_seed(0)
    layer, children, parents, flat_parents, by_group = case(matrix_pose)
    routed = layer.route(children, parents)
    routed_grad = torch.autograd.grad(routed.poses.square().sum(), layer.weight)[0]
    reference = inverted_dot_product_routing(
        layer.votes(children), flat_parents, layer.norm, layer.scale
    )
    reference_grad = torch.autograd.grad(reference.poses.square().sum(), layer.weight)[0]
    torch.testing.assert_close(by_group(routed.poses), reference.poses)
    coupling = routed.coupling.reshape(reference.coupling.shape)
    torch.testing.assert_close(coupling, reference.coupling)
    torch.testing.assert_close(routed_grad, reference_grad)


@pytest.mark.parametrize("matrix_pose", [True, False], ids=["matrix", "vector"])
def test_votes_keep_the_paper_order(matrix_pose):
    """v_ij = P_i W_ij for one child and parent, read back from the parent-major votes."""
    torch.manual_seed(0)
    layer = _fc(matrix_pose)
    children = torch.randn(B, 6, 16, dtype=torch.float64)
    child, parent = 4, 2
    if matrix_pose:
        pose = children[:, child].view(B, 4, 4)
        expected = (pose @ layer.weight[parent, child]).flatten(1)
    else:
        expected = children[:, child] @ layer.weight[parent, child]
    torch.testing.assert_close(layer.votes(children)[:, parent, child], expected)


@pytest.mark.parametrize("budget", [1, 200_000], ids=["one-group", "few-groups"])
@pytest.mark.parametrize("matrix_pose", [True, False], ids=["matrix", "vector"])
@pytest.mark.parametrize("case", [_fc_case, _conv_case], ids=["fc", "conv"])
def test_routing_in_checkpointed_chunks_of_groups_changes_nothing(
    case, matrix_pose, budget, monkeypatch
):
    """Chunks of routing groups, recomputed in the backward, give the poses, coupling and
    gradients (weight, children, parents) of one pass over all groups, with and without grad."""
    torch.manual_seed(0)
    layer, children, parents, _, _ = case(matrix_pose)
    children.requires_grad_()
    parents.requires_grad_()
    inputs = (layer.weight, children, parents)

    def run():
        routed = layer.route(children, parents)
        grads = torch.autograd.grad(routed.poses.square().sum(), inputs)
        with torch.no_grad():
            inferred = layer.route(children, parents)
        return routed.poses, routed.coupling, inferred.poses, *grads

    whole = run()
    monkeypatch.setattr(inverted_layers, "VOTE_CHUNK_BYTES", budget)
    chunked = run()
    for got, want in zip(chunked, whole, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
