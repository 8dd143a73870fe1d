"""The scores-are-lengths check measures 0 (plus the port's epsilon under the root) on both
length-scored capsule networks, and a clear gap when a network scores by the squared length."""

from __future__ import annotations

import pytest
from torch import Tensor

from models.checks import scores

BOUNDS = [("capsnet", 1e-12), ("efficient_capsnet", 1e-6)]  # the cards' expectations


@pytest.mark.parametrize(("model", "bound"), BOUNDS)
def test_the_networks_score_by_length(make_ctx, model: str, bound: float) -> None:
    evidence = scores.scores_minus_lengths(make_ctx({"model": model, "preset": "mnist"}))
    assert isinstance(evidence.measured, float)
    assert evidence.measured <= bound, evidence.details


@pytest.mark.parametrize(("model", "bound", "module"), [
    (*BOUNDS[0], "models.dynamic.capsnet"),
    (*BOUNDS[1], "models.self_attention.efficient_capsnet"),
])
def test_a_squared_length_score_is_measured_as_a_gap(make_ctx, monkeypatch, model: str,
                                                     bound: float, module: str) -> None:
    def squared(v: Tensor, dim: int = -1, eps: float = 0.0) -> Tensor:
        return (v * v).sum(dim=dim) + eps

    monkeypatch.setattr(f"{module}.capsule_length", squared)
    evidence = scores.scores_minus_lengths(make_ctx({"model": model, "preset": "mnist"}))
    assert isinstance(evidence.measured, float)
    assert evidence.measured > 100 * bound, evidence.details
