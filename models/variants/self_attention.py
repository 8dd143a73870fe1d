"""Wrong variants of self-attention routing and Efficient-CapsNet (arxiv:2101.12491).

Eqs. 4-6: logits b_ji = û_{j|i} · Σ_k û_{j|k} / √d (the row sums of the Gram matrix), c_{·i} =
softmax over the parents j, s_j = Σ_i (c_ji + B_ji) û_{j|i} with the log priors B added after
the softmax (the official code), v_j = squash(s_j). Each variant rebinds a name that
:mod:`models.self_attention.routing` (the rule and its layer) or
:mod:`models.self_attention.efficient_capsnet` (the network) looks up at call time, and is
self-contained: a variant that replaces the rule runs its own written-out eqs. 4-6
(:func:`_eqs_4_to_6`), never the function it replaces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from claimcheck import wrong_variant
from models.variants.patching import (
    Replaced,
    batch_shared_softmax,
    detached_softmax,
    identity,
    module,
    other_axis_softmax,
    replace,
    squared_length,
    uniform_softmax,
)

ROUTING = "models.self_attention.routing"
NETWORK = "models.self_attention.efficient_capsnet"
KERAS_TRUNC_STD = 0.87962566103423978


@dataclass(frozen=True)
class _Slip:
    """Which port bug :func:`_eqs_4_to_6` makes (all off: the official layer's rule)."""

    priors: str = "as_built"  # "as_built" | "logits" | "after_softmax" | "ignored"
    divisor_axis: int | None = None  # √ of u_hat.shape[axis] instead of the layer's scale_dim
    detach_total: bool = False  # Σ_k û_{j|k} detached: same scores, other gradients


def _squash(s: Tensor, eps: float) -> Tensor:
    """Eq. 2, written out here so that the variants do not call the model's squash."""
    norm = torch.linalg.vector_norm(s, dim=-1, keepdim=True)
    return -torch.expm1(-norm) * s / (norm + eps)


def _eqs_4_to_6(slip: _Slip) -> Any:
    """``self_attention_routing`` written out with ``slip`` in it."""
    from models.capsules import RoutingResult

    def route(u_hat: Tensor, scale_dim: int, log_prior: Tensor | None = None,
              prior: str = "after_softmax", eps: float = 1e-20) -> Any:
        total = u_hat.sum(dim=2)
        if slip.detach_total:
            total = total.detach()
        if slip.divisor_axis is not None:
            scale_dim = u_hat.shape[slip.divisor_axis]
        logits = torch.einsum("bjie,bje->bji", u_hat, total) / math.sqrt(scale_dim)
        placement = {"as_built": prior, "logits": "logits", "after_softmax": "after_softmax",
                     "ignored": "none"}[slip.priors]
        if log_prior is not None and placement == "logits":
            logits = logits + log_prior
        coupling = torch.softmax(logits, dim=1)
        weights = coupling
        if log_prior is not None and placement == "after_softmax":
            weights = coupling + log_prior
        s = torch.einsum("bji,bjie->bje", weights, u_hat)
        return RoutingResult(_squash(s, eps), coupling.transpose(1, 2))

    return route


def _slipped(slip: _Slip) -> None:
    replace(module(ROUTING), "self_attention_routing", _eqs_4_to_6(slip))


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
    """No squash in Efficient-CapsNet: primary and class capsules keep their raw input s (and
    eq. 2 itself, ``models.capsules.squash_efficient``, returns its input)."""
    for name in ("models.capsules", ROUTING, NETWORK):
        replace(module(name), "squash_efficient", identity)


@wrong_variant
def self_attention_stop_gradient() -> None:
    """A stop-gradient in routing: no gradient flows through the attention scores."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=detached_softmax))


@wrong_variant
def attention_total_detached() -> None:
    """The sum of the predictions Σ_k û_{j|k} in the scores is detached: the same scores and
    poses, but no gradient through the agreement's second factor."""
    _slipped(_Slip(detach_total=True))


@wrong_variant
def priors_before_softmax() -> None:
    """The log priors B are added to the logits before the softmax, not to its output."""
    _slipped(_Slip(priors="logits"))


@wrong_variant
def prior_option_ignored() -> None:
    """The layer's ``prior`` option is ignored: the log priors are always added after the
    softmax, so the paper's reading (``prior="logits"``) silently runs the code's rule."""
    _slipped(_Slip(priors="after_softmax"))


@wrong_variant
def priors_ignored() -> None:
    """The learned log priors B are never used by the routing."""
    _slipped(_Slip(priors="ignored"))


@wrong_variant
def attention_divisor_from_children() -> None:
    """The scores are divided by √n_l, the number of children (``u_hat.shape[2]``), where the
    code divides by √d_{l+1}: the same number on every preset, where n_l = d_{l+1} = 16."""
    _slipped(_Slip(divisor_axis=2))


@wrong_variant
def attention_unscaled() -> None:
    """The scores are not divided by √d (eq. 5's scaling left out)."""
    replace(module(ROUTING).SelfAttentionRouting, "scale_dim", property(lambda self: 1))


@wrong_variant
def attention_input_divisor() -> None:
    """The scores are divided by √d_l (the child dimension, 8) where the code divides by √16."""
    replace(module(ROUTING).SelfAttentionRouting, "scale_dim", property(lambda self: self.d_in))


class _SelfAgreement:
    """Scores from the wrong poses: each prediction with itself, ‖û_{j|i}‖², not Σ_k û_{j|k}."""

    @staticmethod
    def apply(u_hat: Tensor, total: Tensor) -> Tensor:
        return (u_hat * u_hat).sum(dim=-1)


@wrong_variant
def attention_self_only() -> None:
    """Agreement computed from the wrong poses: û_{j|i}·û_{j|i} instead of û_{j|i}·Σ_k û_{j|k}."""
    replace(module(ROUTING), "_Agreement", _SelfAgreement)


class _WeightedSumWithoutCouplingGradient(torch.autograd.Function):
    """s_j = Σ_i w_{j,i} û_{j|i} with a hand-written backward that returns no gradient for the
    weights: the forward is right, and only the gradients through c (and B) are lost."""

    @staticmethod
    def forward(weights: Tensor, u_hat: Tensor) -> Tensor:
        return torch.einsum("bji,bjie->bje", weights, u_hat)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        weights, _ = ctx.saved_tensors
        return torch.zeros_like(weights), weights.unsqueeze(-1) * grad.unsqueeze(2)


@wrong_variant
def weighted_sum_backward_drops_coupling() -> None:
    """The hand-written backward of the weighted sum (eq. 4) forgets the coupling's gradient."""
    replace(module(ROUTING), "_WeightedSum", _WeightedSumWithoutCouplingGradient)


@wrong_variant
def self_attention_scores_carried_across_calls() -> None:
    """The layer keeps the last call's coupling and adds it to the next call's logits (a "warm
    start" borrowed from iterative routing): the first call is right, every later one is not."""
    routing = module(ROUTING)

    def route_predictions(self: Any, u_hat: Tensor) -> Any:
        kept = getattr(self, "_carried", None)
        total = u_hat.sum(dim=2)
        logits = torch.einsum("bjie,bje->bji", u_hat, total) / math.sqrt(self.scale_dim)
        if kept is not None and kept.shape == logits.shape:
            logits = logits + kept
        coupling = torch.softmax(logits, dim=1)
        weights = coupling + self.log_prior if self.prior_mode == "after_softmax" else coupling
        s = torch.einsum("bji,bjie->bje", weights, u_hat)
        self._carried = coupling.detach()
        from models.capsules import RoutingResult

        return RoutingResult(_squash(s, self.eps), coupling.transpose(1, 2))

    replace(routing.SelfAttentionRouting, "route_predictions", route_predictions)


def _keras_he_normal(tensor: Tensor, fan_in: int) -> Tensor:
    std = math.sqrt(2.0 / fan_in) / KERAS_TRUNC_STD
    return nn.init.trunc_normal_(tensor, std=std, a=-2 * std, b=2 * std)


@wrong_variant
def nonzero_initial_priors() -> None:
    """Wrong initial values: the log priors B start at random values instead of zero."""

    def reset_parameters(self: Any) -> None:
        with torch.no_grad():
            _keras_he_normal(self.weight, self.n_out * self.n_in * self.d_in)
            self.log_prior.normal_(0.0, 0.1)

    replace(module(ROUTING).SelfAttentionRouting, "reset_parameters", reset_parameters)


@wrong_variant
def fccaps_torch_kaiming_init() -> None:
    """FCCaps' W drawn with PyTorch's ``kaiming_normal_`` (fan-in 2048 of the 4-D tensor, std
    0.031, untruncated) where the code's Keras ``he_normal`` has fan-in 1280 (std 0.040)."""

    def reset_parameters(self: Any) -> None:
        with torch.no_grad():
            nn.init.kaiming_normal_(self.weight)
            self.log_prior.zero_()

    replace(module(ROUTING).SelfAttentionRouting, "reset_parameters", reset_parameters)


@wrong_variant
def stem_torch_default_init() -> None:
    """Efficient-CapsNet's stem convolutions keep PyTorch's default initialiser
    (kaiming-uniform, std 1/√(3·fan_in)) where the code draws Keras' he_normal."""
    replace(module(NETWORK), "keras_he_normal_", lambda tensor, fan_in: tensor)


@wrong_variant
def priors_not_learned() -> None:
    """The log priors B kept as a constant buffer, not a learned parameter (160 fewer)."""

    def init(self: Any, n_in: int, d_in: int, n_out: int, d_out: int, divisor: str = "output",
             prior: str = "after_softmax", eps: float = 1e-20) -> None:
        nn.Module.__init__(self)
        self.n_in, self.d_in, self.n_out, self.d_out = n_in, d_in, n_out, d_out
        self.divisor, self.prior_mode, self.eps = divisor, prior, eps
        self.weight = nn.Parameter(torch.empty(n_out, n_in, d_in, d_out))
        _keras_he_normal(self.weight.data, n_out * n_in * d_in)
        self.register_buffer("log_prior", torch.zeros(n_out, n_in))
        self.last_coupling = None

    replace(module(ROUTING).SelfAttentionRouting, "__init__", init)


@wrong_variant
def primary_caps_strided_grouping() -> None:
    """Efficient-CapsNet's primary capsules take every 16th channel (a channels-order bug)
    instead of 8 consecutive ones."""

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x).flatten(1)  # (B, C) for the 1×1 maps of the presets
        u = h.view(h.shape[0], self.dim, -1).transpose(1, 2)
        return _squash(u, self.eps)

    replace(module(NETWORK).DepthwisePrimaryCaps, "forward", forward)


@wrong_variant
def primary_caps_sabour_squash() -> None:
    """Efficient-CapsNet's primary capsules squashed with 1710.09829 eq. 1 instead of eq. 2."""

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x)  # (B, C, H', W')
        batch, channels, rows, cols = h.shape
        u = h.view(batch, channels // self.dim, self.dim, rows, cols).permute(0, 3, 4, 1, 2)
        u = u.reshape(batch, -1, self.dim)
        norm_sq = (u * u).sum(dim=-1, keepdim=True)
        return u * (norm_sq / ((1.0 + norm_sq) * torch.sqrt(norm_sq + 1e-8)))

    replace(module(NETWORK).DepthwisePrimaryCaps, "forward", forward)


@wrong_variant
def self_attention_logits_shared_across_batch() -> None:
    """One set of routing logits for the whole batch: the logits are averaged over the images,
    so an image's parents depend on the other images of its batch."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=batch_shared_softmax))


@wrong_variant
def efficient_scores_squared_length() -> None:
    """Efficient-CapsNet scores each class by the squared length ‖v_k‖² instead of ‖v_k‖."""
    replace(module(NETWORK), "capsule_length", squared_length)


@wrong_variant
def window_conv_channels_last_misread() -> None:
    """The primary capsules' fast depthwise path reads a channels-last input's window transposed
    (rows for columns): right on contiguous tensors, wrong on the stem's channels-last output."""

    def forward(self: Any, x: Tensor) -> Tensor:
        k_h, k_w = self.kernel_size
        window = x[..., :k_h, :k_w]
        kernel = self.weight.view(-1, k_h, k_w)
        if x.is_contiguous(memory_format=torch.channels_last):
            window, kernel = window.permute(0, 3, 2, 1), kernel.permute(1, 2, 0).contiguous()
            h = (window * kernel).sum(dim=(1, 2))
        else:
            h = (window * kernel).sum(dim=(-2, -1))
        if self.bias is not None:
            h = h + self.bias
        return h.view(*h.shape, 1, 1)

    replace(module("models.capsules").WindowDepthwiseConv2d, "forward", forward)
