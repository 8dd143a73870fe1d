"""Self-attention routing checks (arxiv:2101.12491) hold for the model, fail for wrong variants."""

from __future__ import annotations

import torch
from torch import Tensor

from models.checks import self_attention as sa
from models.checks.common import all_hold


def test_checks_hold_for_the_model(make_ctx) -> None:
    assert sa.coupling_over_parents(make_ctx()).measured is True
    assert "Context: reference vs softmax over children" in sa.coupling_over_parents(
        make_ctx()).details
    for divisor in ("output", "input"):
        evidence = sa.closed_form(make_ctx({"divisor": divisor}))
        assert evidence.measured is True, evidence.details


def test_softmax_over_children_fails_the_axis_check() -> None:
    layer, u = sa.build_layer(0), sa.sample_children(0)

    def wrong(children: Tensor) -> tuple[Tensor, Tensor]:
        poses = sa.reference_self_attention(
            children, layer.weight, layer.log_prior, layer.scale_dim, axis="children"
        )
        return poses, layer.route(children).coupling.flip(-1).softmax(-2)

    with torch.no_grad():
        assert not all_hold(sa.measure_coupling_axis(wrong, layer, u))


def test_priors_on_the_logits_fail_the_closed_form() -> None:
    layer, u = sa.build_layer(0), sa.sample_children(0)

    def priors_in_logits(children: Tensor) -> tuple[Tensor, Tensor]:
        args = (children, layer.weight, layer.log_prior, layer.scale_dim)
        return sa.reference_self_attention(*args, prior="logits"), layer.route(children).coupling

    with torch.no_grad():
        findings = sa.measure_closed_form(priors_in_logits, layer, u, layer.scale_dim)
    assert not findings[0].ok


def test_the_code_divisor_fails_the_paper_divisor_reference() -> None:
    layer = sa.build_layer(0, divisor="output")  # √16, the official code
    with torch.no_grad():
        route = layer.route
        findings = sa.measure_closed_form(route, layer, sa.sample_children(0), sa.CHILD_DIM)
    assert not findings[0].ok


def test_the_preset_routing_holds_and_the_paper_divisor_preset_does_not(make_ctx) -> None:
    assert sa.preset_routing(make_ctx()).measured is True
    from models.registry import build_model

    torch.manual_seed(0)
    layer = build_model("efficient_capsnet", "mnist", divisor="input").double().digit_caps
    with torch.no_grad():
        layer.log_prior.normal_()
        u = torch.randn(2, 16, 8, dtype=torch.float64)
        assert not all_hold(sa.measure_closed_form(layer.route, layer, u, layer.d_out))
