"""Dynamic-routing checks (arxiv:1710.09829) hold for the model and fail for wrong variants."""

from __future__ import annotations

import torch
from torch import Tensor

from models.checks import dynamic
from models.checks.common import all_hold


def test_checks_hold_for_the_model(make_ctx) -> None:
    for check, args in (
        (dynamic.coupling_over_parents, {"iterations": 3}),
        (dynamic.uniform_coupling_one_iteration, {}),
        (dynamic.prediction_weighted_sum, {}),
        (dynamic.agreement_raises_coupling, {"iterations": [1, 2, 3, 4]}),
        (dynamic.preset_iterations, {}),
        (dynamic.gradient_through_iterations, {}),
    ):
        evidence = check(make_ctx(args))
        assert evidence.measured is True, (check.__name__, evidence.details)


def children_softmax(u_hat: Tensor, iterations: int) -> tuple[Tensor, Tensor]:
    return dynamic.reference_routing(u_hat, iterations, axis="children")


def test_softmax_over_children_fails_the_axis_check() -> None:
    u_hat = dynamic.sample_predictions(0)
    findings = dynamic.measure_coupling_axis(children_softmax, u_hat, 3)
    assert not all_hold(findings)
    assert not findings[0].ok  # the per-child sums are not 1


def test_softmax_over_children_never_raises_the_agreed_coupling() -> None:
    agreeing = dynamic.agreeing_predictions(0)
    findings = dynamic.measure_agreement(children_softmax, agreeing, [1, 2, 3])
    assert not all_hold(findings)


def test_routing_that_punishes_agreement_fails() -> None:
    def anti_agreement(u_hat: Tensor, iterations: int) -> tuple[Tensor, Tensor]:
        logits = torch.zeros(u_hat.shape[:3], dtype=u_hat.dtype)
        for _ in range(iterations):
            coupling = torch.softmax(logits, dim=1)
            v = dynamic.reference_squash((coupling.unsqueeze(-1) * u_hat).sum(dim=2))
            logits = logits - (u_hat * v.unsqueeze(2)).sum(-1)  # the sign flipped
        return v, coupling.transpose(1, 2)

    agreeing = dynamic.agreeing_predictions(0)
    findings = dynamic.measure_agreement(anti_agreement, agreeing, [1, 2, 3])
    assert not all_hold(findings)


def test_one_iteration_with_agreement_is_not_uniform() -> None:
    def agrees_at_once(u_hat: Tensor, iterations: int) -> tuple[Tensor, Tensor]:
        return dynamic.reference_routing(u_hat, iterations + 1)

    findings = dynamic.measure_uniform_one_iteration(agrees_at_once, dynamic.sample_predictions(0))
    assert not all_hold(findings)


def test_transposed_weights_fail_the_prediction_check() -> None:
    from models.dynamic.routing import DynamicRouting

    layer = DynamicRouting(8, 4, 5, 4, iterations=1).double()
    u = torch.randn(2, 8, 4, dtype=torch.float64)
    with torch.no_grad():
        wrong_weight = layer.weight.transpose(-1, -2).contiguous()
        findings = dynamic.measure_prediction_sum(layer, wrong_weight, wrong_weight.numel(), u)
    assert not findings[0].ok


def test_a_bias_is_reported_by_the_prediction_check() -> None:
    from models.dynamic.routing import DynamicRouting

    layer = DynamicRouting(8, 4, 5, 4, iterations=1, bias=True).double()
    count = sum(p.numel() for p in layer.parameters())
    with torch.no_grad():
        u = torch.randn(2, 8, 4, dtype=torch.float64)
        findings = dynamic.measure_prediction_sum(layer, layer.weight, count, u)
    assert findings[0].ok and not findings[1].ok


def _scaled_layer(**options):
    from models.dynamic.routing import DynamicRouting

    torch.manual_seed(0)
    layer = DynamicRouting(40, 8, 10, 16, **options).double()
    with torch.no_grad():
        layer.weight.mul_(50.0)
    return layer


def test_agreement_on_detached_predictions_fails_the_gradient_check() -> None:
    layer = _scaled_layer(detach_agreement=True)
    u = dynamic.preset_children(layer, 0)
    assert not all_hold(dynamic.measure_gradient(layer, layer.weight, u, 3))
    right = _scaled_layer()
    assert all_hold(dynamic.measure_gradient(right, right.weight, u, 3))


def test_detached_coupling_fails_the_gradient_check() -> None:
    layer = _scaled_layer()

    def forward(u: Tensor) -> Tensor:
        u_hat = layer.predictions(u)
        logits = u_hat.new_zeros(u_hat.shape[:3])
        for _step in range(3):
            coupling = torch.softmax(logits, dim=1).detach()  # gradient through s_j only
            v = dynamic.reference_squash(torch.einsum("bji,bjie->bje", coupling, u_hat))
            logits = logits + torch.einsum("bjie,bje->bji", u_hat, v)
        return v

    u = dynamic.preset_children(layer, 0)
    assert not all_hold(dynamic.measure_gradient(forward, layer.weight, u, 3))


def test_a_layer_with_other_iteration_counts_fails_the_preset_check() -> None:
    u = dynamic.preset_children(_scaled_layer(), 0)
    for iterations in (1, 2, 4):
        layer = _scaled_layer(iterations=iterations)
        with torch.no_grad():
            findings, _ = dynamic.measure_preset_iterations(layer, u, 3)
        assert not all_hold(findings), iterations


def test_agreement_with_stale_outputs_fails_the_preset_check() -> None:
    layer = _scaled_layer()

    def stale(u: Tensor) -> Tensor:  # every update uses the first iteration's v
        u_hat = layer.predictions(u)
        logits = u_hat.new_zeros(u_hat.shape[:3])
        first = None
        for _step in range(3):
            coupling = torch.softmax(logits, dim=1)
            v = dynamic.reference_squash(torch.einsum("bji,bjie->bje", coupling, u_hat))
            first = v if first is None else first
            logits = logits + torch.einsum("bjie,bje->bji", u_hat, first)
        return v

    stale.weight = layer.weight  # type: ignore[attr-defined]
    u = dynamic.preset_children(layer, 0)
    with torch.no_grad():
        findings, _ = dynamic.measure_preset_iterations(stale, u, 3)
    assert not all_hold(findings)
