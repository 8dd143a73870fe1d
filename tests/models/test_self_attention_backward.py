"""Self-attention routing's hand-written backward (``_Agreement``, ``_WeightedSum``) against
autograd's own derivative of the same equations (arxiv:2101.12491 eqs. 4-6)."""

from __future__ import annotations

import math

import pytest
import torch

from models.capsules import squash_efficient
from models.self_attention.routing import self_attention_routing


def _reference(u_hat: torch.Tensor, log_prior: torch.Tensor, prior: str) -> torch.Tensor:
    """Eqs. 4-6 in einsums, differentiated by autograd alone."""
    total = u_hat.sum(dim=2)
    logits = torch.einsum("bjie,bje->bji", u_hat, total) / math.sqrt(u_hat.shape[-1])
    if prior == "logits":
        logits = logits + log_prior
    coupling = torch.softmax(logits, dim=1)
    weights = coupling + log_prior if prior == "after_softmax" else coupling
    return squash_efficient(torch.einsum("bji,bjie->bje", weights, u_hat))


@pytest.mark.parametrize("prior", ["after_softmax", "logits"])
def test_gradients_match_autograd_of_the_equations(prior: str) -> None:
    generator = torch.Generator().manual_seed(0)
    u_hat = torch.randn(3, 4, 5, 6, generator=generator, dtype=torch.float64, requires_grad=True)
    log_prior = torch.randn(4, 5, generator=generator, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(3, 4, 6, generator=generator, dtype=torch.float64)
    ours = self_attention_routing(u_hat, 6, log_prior, prior).poses
    torch.testing.assert_close(ours, _reference(u_hat, log_prior, prior), rtol=1e-12, atol=1e-12)
    got = torch.autograd.grad(ours, [u_hat, log_prior], upstream)
    want = torch.autograd.grad(_reference(u_hat, log_prior, prior), [u_hat, log_prior], upstream)
    for ours_grad, reference_grad in zip(got, want, strict=True):
        torch.testing.assert_close(ours_grad, reference_grad, rtol=1e-10, atol=1e-12)


def test_gradcheck_through_the_routing() -> None:
    generator = torch.Generator().manual_seed(1)
    u_hat = torch.randn(2, 3, 4, 5, generator=generator, dtype=torch.float64, requires_grad=True)
    log_prior = torch.randn(3, 4, generator=generator, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda u, b: self_attention_routing(u, 5, b).poses, (u_hat, log_prior))
