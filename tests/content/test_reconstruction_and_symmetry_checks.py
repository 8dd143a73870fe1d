"""The reconstruction-loss and routing-symmetry checks hold for the models and fail for bugs in
public ports: a mean instead of a sum of squared errors, the predicted class fed to the decoder,
routing logits shared across the batch, parents and children mixed by a reshape."""

from __future__ import annotations

import dataclasses

import torch
from torch import Tensor

from models.capsules import longest_mask
from models.checks import permutation, reconstruction
from models.checks.common import all_hold


def test_checks_hold_for_the_models(make_ctx) -> None:
    assert abs(reconstruction.reconstruction_scale(make_ctx()).measured - 0.0005) < 1e-9
    efficient = make_ctx({"model": "efficient_capsnet", "schedule": "official"})
    assert abs(reconstruction.reconstruction_scale(efficient).measured - 0.0005) < 1e-9
    assert reconstruction.reconstruction_uses_true_label(make_ctx()).measured is True
    for family in sorted(permutation.FAMILIES):
        evidence = permutation.routing_symmetries(make_ctx({"family": family}))
        assert evidence.measured is True, (family, evidence.details)


def _setup(make_ctx):
    return reconstruction._setup(make_ctx())


def test_a_mean_squared_error_reads_784_times_smaller(make_ctx) -> None:
    model, schedule, poses, labels = _setup(make_ctx)
    mse = dataclasses.replace(schedule, recon_reduction="mse")
    coefficient, _, _ = reconstruction.measure_scale(model, mse, poses, labels, 0)
    assert abs(coefficient * 784 - 0.0005) < 1e-9


def test_a_decoder_fed_the_longest_capsule_fails(make_ctx) -> None:
    model, schedule, poses, labels = _setup(make_ctx)
    original = model.reconstruct
    model.reconstruct = lambda p, _mask: original(p, longest_mask(p.norm(dim=-1)))
    assert not all_hold(reconstruction.measure_label_mask(model, schedule, poses, labels, 0))


def test_the_decoder_holds_and_a_missing_sigmoid_or_a_narrow_input_fails(make_ctx) -> None:
    from torch import nn

    from models.capsules import label_mask

    assert reconstruction.decoder_layers(make_ctx()).measured is True
    model, _, poses, labels = _setup(make_ctx)
    mask = label_mask(labels, 10, torch.float64)
    widths = (160, 512, 1024, 784)
    with torch.no_grad():
        model.decoder.net[-1] = nn.Identity()  # no sigmoid
        assert not all_hold(reconstruction.measure_decoder(model, poses, mask, widths))
        model.decoder.net[0] = nn.Linear(16, 512).double()  # fed only the target capsule
        assert not all_hold(reconstruction.measure_decoder(model, poses, mask, widths))


def _predictions() -> Tensor:
    return torch.randn(3, permutation.PARENTS, permutation.CHILDREN, permutation.DIM,
                       dtype=torch.float64) * 0.5


def _dynamic_variant(bug: str):
    from models.capsules import squash_sabour

    def route(u_hat: Tensor) -> Tensor:
        logits = u_hat.new_zeros(u_hat.shape[:3])
        for _step in range(3):
            coupling = torch.softmax(logits, dim=1)
            if bug == "reshape":  # (B, j, i) memory read as (B, i, j) and back
                coupling = coupling.reshape(coupling.shape[0], -1, coupling.shape[1])
                coupling = coupling.transpose(1, 2)
            v = squash_sabour(torch.einsum("bji,bjie->bje", coupling, u_hat))
            agreement = torch.einsum("bjie,bje->bji", u_hat, v)
            if bug == "shared":  # one set of logits for the whole batch
                agreement = agreement.mean(dim=0, keepdim=True)
            logits = logits + agreement
        return v

    return lambda _children, _parents: route


def test_the_model_routes_pass_and_ported_bugs_fail() -> None:
    u_hat = _predictions()
    make, _ = permutation.FAMILIES["dynamic"](0)
    assert all_hold(permutation.measure_symmetries(make, u_hat, 0))
    assert all_hold(permutation.measure_symmetries(_dynamic_variant("none"), u_hat, 0))
    shared = permutation.measure_symmetries(_dynamic_variant("shared"), u_hat, 0)
    assert not shared[2].ok
    assert not all_hold(permutation.measure_symmetries(_dynamic_variant("reshape"), u_hat, 0))


def test_log_priors_left_in_place_break_the_self_attention_symmetry() -> None:
    u_hat = _predictions()
    make, _ = permutation.FAMILIES["self_attention"](0)

    def frozen_priors(_children: Tensor | None, _parents: Tensor | None):
        return make(None, None)  # priors not reordered with the children and parents

    assert not all_hold(permutation.measure_symmetries(frozen_priors, u_hat, 0))
