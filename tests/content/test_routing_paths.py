"""The helpers that route chosen predictions through a layer's forward, and that measure a
gradient a broken model no longer has."""

from __future__ import annotations

import pytest
import torch

from models.checks.gradients import gradients
from models.checks.routing_paths import load_predictions, route_through_forward
from models.dynamic.routing import DynamicRouting
from models.self_attention.routing import SelfAttentionRouting


@pytest.mark.parametrize("make", [
    lambda: DynamicRouting(7, 4, 5, 6, iterations=2).double(),
    lambda: SelfAttentionRouting(7, 4, 5, 6).double(),
], ids=["dynamic", "self_attention"])
def test_the_forward_makes_the_loaded_predictions(make) -> None:
    layer = make()
    u_hat = torch.randn(3, 5, 7, 6, dtype=torch.float64)
    u = load_predictions(layer, u_hat)
    assert torch.allclose(layer.predictions(u), u_hat, atol=1e-12)
    poses, coupling = route_through_forward(layer, u_hat)
    assert torch.allclose(poses, layer.route_predictions(u_hat).poses, atol=1e-12)
    assert coupling.shape == (3, 7, 5)


def test_children_must_have_room_for_every_image() -> None:
    layer = DynamicRouting(7, 2, 5, 6).double()
    with pytest.raises(ValueError, match="d_in >= batch"):
        load_predictions(layer, torch.randn(3, 5, 7, 6, dtype=torch.float64))


def test_a_detached_input_has_a_zero_gradient_not_an_error() -> None:
    x = torch.ones(3, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    gx, gy = gradients((x * 2).sum(), (x, y))
    assert torch.equal(gx, torch.full((3,), 2.0)) and torch.equal(gy, torch.zeros(2))
    (gz,) = gradients(x.detach().sum(), (x,))
    assert torch.equal(gz, torch.zeros(3))
