"""Wrong variants of self-attention routing and Efficient-CapsNet (arxiv:2101.12491).

Eqs. 4-6: logits b_ji = û_{j|i} · Σ_k û_{j|k} / √d (the row sums of the Gram matrix), c_{·i} =
softmax over the parents j, s_j = Σ_i (c_ji + B_ji) û_{j|i} with the log priors B added after
the softmax (the official code), v_j = squash(s_j). Each variant rebinds a name that
``models.self_attention.efficient_capsnet`` looks up at call time.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from claimcheck import wrong_variant
from models.variants.patching import (
    Replaced,
    after_init,
    batch_shared_softmax,
    detached_softmax,
    identity,
    module,
    other_axis_softmax,
    replace,
    squared_length,
    uniform_softmax,
)

ROUTING = "models.self_attention.efficient_capsnet"


@wrong_variant
def self_attention_uniform_coupling() -> None:
    """Routing replaced by uniform averaging: every c_ji is 1/n_parents whatever the scores."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=uniform_softmax))


@wrong_variant
def self_attention_softmax_over_children() -> None:
    """The coupling softmax runs over the children of each parent instead of its parents."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=other_axis_softmax))


@wrong_variant
def self_attention_no_squash() -> None:
    """No squash in Efficient-CapsNet: primary and class capsules keep their raw input s."""
    replace(module(ROUTING), "squash_efficient", identity)


@wrong_variant
def self_attention_stop_gradient() -> None:
    """A stop-gradient in routing: no gradient flows through the attention scores."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=detached_softmax))


@wrong_variant
def priors_before_softmax() -> None:
    """The log priors B are added to the logits before the softmax, not to its output."""
    routing = module(ROUTING)
    original = routing.self_attention_routing

    def in_logits(u_hat: Tensor, scale_dim: int, log_prior: Tensor | None = None,
                  prior: str = "after_softmax", eps: float = 1e-20) -> Any:
        return original(u_hat, scale_dim, log_prior, "logits", eps)

    replace(routing, "self_attention_routing", in_logits)


@wrong_variant
def priors_ignored() -> None:
    """The learned log priors B are never used by the routing."""
    routing = module(ROUTING)
    original = routing.self_attention_routing

    def without(u_hat: Tensor, scale_dim: int, log_prior: Tensor | None = None,
                prior: str = "after_softmax", eps: float = 1e-20) -> Any:
        return original(u_hat, scale_dim, None, prior, eps)

    replace(routing, "self_attention_routing", without)


@wrong_variant
def nonzero_initial_priors() -> None:
    """Wrong initial values: the log priors B start at random values instead of zero."""
    def random_priors(layer: Any) -> None:
        with torch.no_grad():
            layer.log_prior.normal_(0.0, 0.1)

    after_init(module(ROUTING).SelfAttentionRouting, random_priors)


@wrong_variant
def priors_not_learned() -> None:
    """The log priors B kept as a constant buffer, not a learned parameter (160 fewer)."""
    def as_buffer(layer: Any) -> None:
        prior = layer.log_prior.detach().clone()
        del layer.log_prior
        layer.register_buffer("log_prior", prior)

    after_init(module(ROUTING).SelfAttentionRouting, as_buffer)


@wrong_variant
def attention_unscaled() -> None:
    """The scores are not divided by √d (eq. 5's scaling left out)."""
    layer = module(ROUTING).SelfAttentionRouting
    replace(layer, "scale_dim", property(lambda self: 1))


@wrong_variant
def attention_input_divisor() -> None:
    """The scores are divided by √d_l (the child dimension, 8) where the code divides by √16."""
    layer = module(ROUTING).SelfAttentionRouting
    replace(layer, "scale_dim", property(lambda self: self.d_in))


class _SelfAgreement:
    """Scores from the wrong poses: each prediction with itself, ‖û_{j|i}‖², not Σ_k û_{j|k}."""

    @staticmethod
    def apply(u_hat: Tensor, total: Tensor) -> Tensor:
        return (u_hat * u_hat).sum(dim=-1)


@wrong_variant
def attention_self_only() -> None:
    """Agreement computed from the wrong poses: û_{j|i}·û_{j|i} instead of û_{j|i}·Σ_k û_{j|k}."""
    replace(module(ROUTING), "_Agreement", _SelfAgreement)


@wrong_variant
def primary_caps_strided_grouping() -> None:
    """Efficient-CapsNet's primary capsules take every 16th channel (a channels-order bug)
    instead of 8 consecutive ones."""
    routing = module(ROUTING)

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x).flatten(1)  # (B, C) for the 1×1 maps of the presets
        u = h.view(h.shape[0], self.dim, -1).transpose(1, 2)
        return routing.squash_efficient(u, eps=self.eps)

    replace(routing.DepthwisePrimaryCaps, "forward", forward)


@wrong_variant
def primary_caps_sabour_squash() -> None:
    """Efficient-CapsNet's primary capsules squashed with 1710.09829 eq. 1 instead of eq. 2."""
    from models.capsules import squash_sabour

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x)  # (B, C, H', W')
        batch, channels, rows, cols = h.shape
        u = h.view(batch, channels // self.dim, self.dim, rows, cols).permute(0, 3, 4, 1, 2)
        return squash_sabour(u.reshape(batch, -1, self.dim))

    replace(module(ROUTING).DepthwisePrimaryCaps, "forward", forward)


@wrong_variant
def self_attention_logits_shared_across_batch() -> None:
    """One set of routing logits for the whole batch: the logits are averaged over the images,
    so an image's parents depend on the other images of its batch."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=batch_shared_softmax))


@wrong_variant
def efficient_scores_squared_length() -> None:
    """Efficient-CapsNet scores each class by the squared length ‖v_k‖² instead of ‖v_k‖."""
    replace(module(ROUTING), "capsule_length", squared_length)
