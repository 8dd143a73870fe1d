"""The timing factories build their inputs once and return callables that run the layer."""

from __future__ import annotations

import pytest

from models.checks import timing


def test_factories_return_callables_with_the_expected_outputs() -> None:
    poses, coupling = timing.dynamic_routing_step(iterations=2, n_in=32, batch=2)()
    assert tuple(poses.shape) == (2, 10, 16) and tuple(coupling.shape) == (2, 32, 10)
    layer_out = timing.dynamic_routing_layer(n_in=32, iterations=1, batch=2)()
    assert tuple(layer_out.shape) == (2, 10, 16)
    assert tuple(timing.self_attention_layer(n_in=16, batch=2)().shape) == (2, 10, 16)
    assert tuple(timing.inverted_layer_passes(passes=2, n_in=20, batch=2)().shape) == (2, 10, 16)


def test_more_passes_change_the_inverted_routing_output() -> None:
    one = timing.inverted_layer_passes(passes=1, n_in=20, batch=2)()
    three = timing.inverted_layer_passes(passes=3, n_in=20, batch=2)()
    assert float((one - three).abs().max()) > 1e-6


def test_zero_passes_are_rejected() -> None:
    with pytest.raises(ValueError):
        timing.inverted_layer_passes(passes=0)
