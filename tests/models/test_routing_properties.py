"""Properties each routing algorithm promises, tested on small tensors through the public API."""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from torch import nn

from models.capsules import squash_efficient
from models.dynamic.routing import DynamicRouting, dynamic_routing
from models.inverted.networks import (
    ConvInvertedDotProductRouting,
    InvertedDotProductRouting,
    expand_windows,
    inverted_dot_product_routing,
)
from models.registry import build_model
from models.self_attention.routing import SelfAttentionRouting, self_attention_routing

B, N_IN, N_OUT, D_IN, D_OUT = 3, 12, 5, 8, 16
PARENTS = torch.randn(B, N_OUT, D_OUT, generator=torch.Generator().manual_seed(3))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def layers():
    return [
        DynamicRouting(N_IN, D_IN, N_OUT, D_OUT, iterations=3, init_std=0.3),
        SelfAttentionRouting(N_IN, D_IN, N_OUT, D_OUT),
        InvertedDotProductRouting(N_IN, D_IN, N_OUT, D_OUT, matrix_pose=False),
    ]


@pytest.mark.parametrize("layer", layers(), ids=lambda m: type(m).__name__)
def test_coupling_sums_to_one_over_parents_and_forward_keeps_it(layer):
    u = torch.randn(B, N_IN, D_IN)
    if isinstance(layer, InvertedDotProductRouting):
        result = layer.route(u, layer(u))
    else:
        result = layer.route(u)
    assert result.poses.shape == (B, N_OUT, D_OUT)
    assert result.coupling.shape == (B, N_IN, N_OUT)
    assert torch.allclose(result.coupling.sum(-1), torch.ones(B, N_IN))
    assert not torch.allclose(result.coupling, torch.full_like(result.coupling, 1 / N_OUT))
    layer(u)
    assert layer.last_coupling is not None and not layer.last_coupling.requires_grad


def test_dynamic_routing_with_one_iteration_is_uniform():
    u_hat = torch.randn(B, N_OUT, N_IN, D_OUT)
    result = dynamic_routing(u_hat, iterations=1)
    assert torch.equal(result.coupling, torch.full((B, N_IN, N_OUT), 1 / N_OUT))
    expected = u_hat.sum(2) / N_OUT
    norm_sq = expected.square().sum(-1, keepdim=True)
    assert torch.allclose(result.poses, expected * norm_sq.sqrt() / (1 + norm_sq), atol=1e-6)


def test_dynamic_routing_raises_coupling_to_an_agreeing_parent():
    u_hat = torch.randn(1, N_OUT, N_IN, D_OUT) * 0.1
    u_hat[:, 2] = torch.ones(D_OUT)  # every child predicts the same long pose for parent 2
    couplings = [dynamic_routing(u_hat, r).coupling[0, :, 2].mean().item() for r in (1, 2, 3, 4)]
    assert couplings[0] == pytest.approx(1 / N_OUT)
    assert all(a < b for a, b in itertools.pairwise(couplings))


def test_dynamic_routing_bias_and_detach_options():
    u_hat = torch.randn(B, N_OUT, N_IN, D_OUT, requires_grad=True)
    bias = torch.randn(N_OUT, D_OUT)
    plain, with_bias = dynamic_routing(u_hat, 3), dynamic_routing(u_hat, 3, bias=bias)
    assert not torch.allclose(plain.poses, with_bias.poses)
    detached = dynamic_routing(u_hat, 3, detach_agreement=True)
    assert torch.allclose(plain.poses, detached.poses)
    grad_plain = torch.autograd.grad(plain.poses.sum(), u_hat)[0]
    grad_detached = torch.autograd.grad(detached.poses.sum(), u_hat)[0]
    assert not torch.allclose(grad_plain, grad_detached)
    with pytest.raises(ValueError, match="iterations"):
        dynamic_routing(u_hat, 0)


@pytest.mark.parametrize(("divisor", "dim"), [("input", D_IN), ("output", D_OUT)])
def test_self_attention_logits_are_row_sums_of_the_attention_matrix(divisor, dim):
    layer = SelfAttentionRouting(N_IN, D_IN, N_OUT, D_OUT, divisor=divisor)
    u_hat = layer.predictions(torch.randn(B, N_IN, D_IN))
    attention = u_hat @ u_hat.transpose(-1, -2) / math.sqrt(dim)  # (B, j, i, k): A_j
    expected = torch.softmax(attention.sum(-1), dim=1).transpose(1, 2)
    assert torch.allclose(layer.route_predictions(u_hat).coupling, expected, atol=1e-6)


def test_self_attention_prior_placement_options():
    u_hat = torch.randn(B, N_OUT, N_IN, D_OUT)
    prior = torch.randn(N_OUT, N_IN)
    zero = torch.zeros(N_OUT, N_IN)
    after = self_attention_routing(u_hat, D_OUT, prior, "after_softmax")
    logits = self_attention_routing(u_hat, D_OUT, prior, "logits")
    plain = self_attention_routing(u_hat, D_OUT)
    assert torch.allclose(after.coupling, plain.coupling)  # the prior comes after the softmax
    s = torch.einsum("bji,bjie->bje", plain.coupling.transpose(1, 2) + prior, u_hat)
    assert torch.allclose(after.poses, squash_efficient(s), atol=1e-6)
    assert not torch.allclose(logits.coupling, plain.coupling)
    assert torch.allclose(logits.coupling.sum(-1), torch.ones(B, N_IN))
    for mode in ("after_softmax", "logits"):
        zero_prior = self_attention_routing(u_hat, D_OUT, zero, mode)  # type: ignore[arg-type]
        assert torch.allclose(zero_prior.poses, plain.poses)


def test_self_attention_rejects_unknown_options():
    with pytest.raises(ValueError, match="divisor"):
        SelfAttentionRouting(2, 2, 2, 2, divisor="both")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="prior"):
        SelfAttentionRouting(2, 2, 2, 2, prior="before")  # type: ignore[arg-type]


def _idpr(votes, parents):
    return inverted_dot_product_routing(votes, parents, nn.LayerNorm(D_OUT), 0.25)


@pytest.mark.parametrize(
    "route",
    [
        lambda u_hat: dynamic_routing(u_hat, 3),
        lambda u_hat: self_attention_routing(u_hat, D_OUT),
        lambda u_hat: _idpr(u_hat, PARENTS),
    ],
    ids=["dynamic", "self_attention", "inverted"],
)
def test_output_is_invariant_to_permuting_the_children(route):
    u_hat = torch.randn(B, N_OUT, N_IN, D_OUT)
    order = torch.randperm(N_IN)
    original, permuted = route(u_hat), route(u_hat[:, :, order])
    assert torch.allclose(original.poses, permuted.poses, atol=1e-5)
    assert torch.allclose(original.coupling[:, order], permuted.coupling, atol=1e-6)


def test_inverted_first_pass_is_uniform_and_layer_normalised():
    votes = torch.randn(B, N_OUT, N_IN, D_OUT)
    first = _idpr(votes, None)
    assert torch.equal(first.coupling, torch.full((B, N_IN, N_OUT), 1 / N_OUT))
    mean, std = first.poses.mean(-1), first.poses.std(-1, unbiased=False)
    assert torch.allclose(mean, torch.zeros_like(mean), atol=1e-5)
    assert torch.allclose(std, torch.ones_like(std), atol=1e-3)
    explicit = nn.functional.layer_norm(votes.sum(2) / N_OUT, (D_OUT,))
    assert torch.allclose(first.poses, explicit, atol=1e-5)


@pytest.mark.parametrize("matrix_pose", [True, False])
def test_inverted_layers_first_pass_shortcut_matches_the_votes(matrix_pose):
    fc = InvertedDotProductRouting(N_IN, D_OUT, N_OUT, D_OUT, matrix_pose=matrix_pose)
    u = torch.randn(B, N_IN, D_OUT)
    by_votes = inverted_dot_product_routing(fc.votes(u), None, fc.norm, fc.scale)
    assert torch.allclose(fc.route(u).poses, by_votes.poses, atol=1e-5)
    conv = ConvInvertedDotProductRouting(3, 16, 4, 16, 3, 2, matrix_pose=matrix_pose)
    x = torch.randn(B, 3, 7, 7, 16)
    by_votes = inverted_dot_product_routing(conv.votes(x), None, conv.norm, conv.scale)
    shortcut = conv.route(x)
    assert torch.allclose(
        shortcut.poses.permute(0, 2, 3, 1, 4).flatten(0, 2), by_votes.poses, atol=1e-5
    )
    assert torch.allclose(shortcut.coupling.sum(-1), torch.ones(B, 3, 3, 27))


def test_conv_capsules_route_each_window_like_an_fc_layer():
    conv = ConvInvertedDotProductRouting(2, 16, 3, 16, kernel=3, stride=2)
    fc = InvertedDotProductRouting(2 * 9, 16, 3, 16)
    fc.weight.data = conv.weight.data.flatten(1, 3).clone()  # children ordered (n, k, l)
    x, parents = torch.randn(B, 2, 7, 7, 16), torch.randn(B, 3, 3, 3, 16)
    out = conv.route(x, parents)
    for row in range(3):
        for col in range(3):
            window = x[:, :, 2 * row : 2 * row + 3, 2 * col : 2 * col + 3].flatten(1, 3)
            expected = fc.route(window, parents[:, :, row, col])
            assert torch.allclose(out.poses[:, :, row, col], expected.poses, atol=1e-5)
            assert torch.allclose(out.coupling[:, row, col], expected.coupling, atol=1e-6)


def test_apple_expansion_stacks_windows_then_reinterprets_the_memory():
    x = torch.randn(2, 3, 7, 7, 4)
    kernel, stride, out = 3, 2, 3
    stacked = torch.stack(
        [
            x[:, :, stride * r : stride * r + kernel, stride * c : stride * c + kernel]
            for r in range(out)
            for c in range(out)
        ],
        dim=-1,
    )  # (B, n, k, k, d, positions)
    expected = stacked.reshape(2, 3, kernel, kernel, out, out, 4)
    scrambled = expand_windows(x, kernel, stride, "apple_53899ae")
    correct = expand_windows(x, kernel, stride, "unfold")
    assert torch.equal(scrambled, expected)
    assert torch.equal(correct[:, :, :, :, 1, 2], x[:, :, 2:5, 4:7])
    assert not torch.equal(scrambled, correct)
    assert torch.equal(scrambled.flatten().sort().values, correct.flatten().sort().values)


def test_concurrent_and_sequential_routing_agree_only_for_one_pass():
    def scores(routing, iterations):
        torch.manual_seed(1)
        model = build_model(
            "inverted_capsnet", "cifar10_simple", routing=routing, iterations=iterations
        )
        torch.manual_seed(2)
        with torch.no_grad():
            return model(torch.rand(1, 3, 32, 32)).scores

    assert torch.allclose(scores("concurrent", 1), scores("sequential", 1))
    assert not torch.allclose(scores("concurrent", 2), scores("sequential", 2))


@pytest.mark.parametrize("layer", layers(), ids=lambda m: type(m).__name__)
def test_routing_layers_have_finite_gradients_at_zero_input(layer):
    u = torch.zeros(B, N_IN, D_IN, requires_grad=True)
    out = layer(u)
    out.sum().backward()
    assert torch.isfinite(out).all() and torch.isfinite(u.grad).all()
    assert all(torch.isfinite(p.grad).all() for p in layer.parameters() if p.grad is not None)


@pytest.mark.parametrize("layer", layers(), ids=lambda m: type(m).__name__)
def test_routing_layers_follow_the_input_dtype(layer):
    out = layer.double()(torch.randn(B, N_IN, D_IN, dtype=torch.float64))
    assert out.dtype == torch.float64


@pytest.mark.parametrize("bias", [False, True])
def test_dynamic_layer_routes_child_major_predictions_like_procedure_1(bias):
    """``route`` (child-major predictions) equals Procedure 1 on parent-major ones, with grads."""
    layer = DynamicRouting(N_IN, D_IN, N_OUT, D_OUT, iterations=3, init_std=0.3, bias=bias)
    layer = layer.double()
    u = torch.randn(B, N_IN, D_IN, dtype=torch.float64)
    routed = layer.route(u)
    reference = layer.route_predictions(layer.predictions(u))
    torch.testing.assert_close(routed.poses, reference.poses)
    torch.testing.assert_close(routed.coupling, reference.coupling)
    grads = [
        torch.autograd.grad(r.poses.square().sum(), layer.weight)[0] for r in (routed, reference)
    ]
    torch.testing.assert_close(grads[0], grads[1])
