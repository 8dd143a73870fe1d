"""Wrong variants of dynamic routing and CapsNet's layers (arxiv:1710.09829).

Procedure 1: b_ij ← 0; r times: c_i = softmax_j(b_i) (eq. 3), s_j = Σ_i c_ij û_{j|i} (eq. 2, plus
the TF code's bias), v_j = squash(s_j) (eq. 1), b_ij ← b_ij + û_{j|i}·v_j. Each variant below is
a bug found in public ports. Each rebinds a name that :mod:`models.dynamic.routing` (the rule and
its layer) or :mod:`models.dynamic.capsnet` (the network) looks up at call time, and is
self-contained: a variant that replaces the loop (``route_by_agreement``) runs its own written-out
Procedure 1 (:func:`_procedure_1`), never the function it replaces, so a bug in that function
cannot leak into the variant and make it look like the model.
"""

from __future__ import annotations

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

ROUTING = "models.dynamic.routing"
NETWORK = "models.dynamic.capsnet"


@dataclass(frozen=True)
class _Slip:
    """Which port bug :func:`_procedure_1` makes (all off: Procedure 1 as the paper writes it)."""

    agree_with_total: bool = False  # û·s_j instead of û·v_j
    accumulate: bool = True  # b ← b + û·v (False: b ← û·v)
    agreement_step: bool = True  # False: the logits never change
    extra_iterations: int = 0  # an off-by-one loop
    detach_agreement: bool = False  # û detached in the agreement
    detach_inner: bool = False  # û detached in every iteration but the last (u_hat_stopped)
    use_bias: bool = True  # False: the layer's bias is never added
    bias_after_squash: bool = False  # v_j = squash(s_j) + bias


def _squash(s: Tensor, eps: float) -> Tensor:
    """Eq. 1, written out here so that the variants do not call the model's squash."""
    norm_sq = (s * s).sum(dim=-1, keepdim=True)
    return s * (norm_sq / ((1.0 + norm_sq) * torch.sqrt(norm_sq + eps)))


def _procedure_1(slip: _Slip, logits: Tensor | None = None) -> Any:
    """``route_by_agreement`` written out with ``slip`` in it; ``logits`` (B, j, i), when given,
    is where the loop starts instead of zero."""
    from models.capsules import RoutingResult

    def route(entries: Tensor, batch: int, iterations: int, bias: Tensor | None = None,
              eps: float = 1e-8, detach_agreement: bool = False) -> Any:
        groups, children, dim = entries.shape
        parents = groups // batch
        b = entries.new_zeros(batch, parents, children) if logits is None else logits
        total = iterations + slip.extra_iterations
        for step in range(total):
            last = step == total - 1
            votes = entries.detach() if slip.detach_inner and not last else entries
            c = torch.softmax(b, dim=1)
            s = torch.bmm(c.view(groups, 1, children), votes).view(batch, parents, dim)
            if bias is not None and slip.use_bias and not slip.bias_after_squash:
                s = s + bias
            v = _squash(s, eps)
            if bias is not None and slip.use_bias and slip.bias_after_squash:
                v = v + bias
            if not last and slip.agreement_step:
                pose = s if slip.agree_with_total else v
                against = votes.detach() if (slip.detach_agreement or detach_agreement) else votes
                agreement = torch.bmm(pose.reshape(groups, 1, dim), against.transpose(1, 2))
                b = agreement.view_as(b) + (b if slip.accumulate else 0.0)
        return RoutingResult(v, c.transpose(1, 2))

    return route


def _slipped(slip: _Slip) -> None:
    replace(module(ROUTING), "route_by_agreement", _procedure_1(slip))


@wrong_variant
def dynamic_uniform_coupling() -> None:
    """Routing replaced by uniform averaging: every c_ij stays 1/n_parents in every iteration."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=uniform_softmax))


@wrong_variant
def dynamic_softmax_over_children() -> None:
    """The routing softmax normalises over the children of each parent instead of its parents."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=other_axis_softmax))


@wrong_variant
def dynamic_no_squash() -> None:
    """No squash in CapsNet: primary and digit capsules keep their raw total input s (and eq. 1
    itself, ``models.capsules.squash_sabour``, returns its input)."""
    for name in ("models.capsules", ROUTING, NETWORK):
        replace(module(name), "squash_sabour", identity)


@wrong_variant
def dynamic_stop_gradient() -> None:
    """A stop-gradient in routing: the agreement û·v is computed from detached predictions."""
    _slipped(_Slip(detach_agreement=True))


@wrong_variant
def dynamic_inner_iterations_detached() -> None:
    """The predictions are detached in every routing iteration but the last (a port's
    ``u_hat_stopped``): the same poses, gradients only through the last weighted sum."""
    _slipped(_Slip(detach_inner=True))


@wrong_variant
def dynamic_detached_coupling() -> None:
    """A stop-gradient on the routing logits: no gradient flows through the coupling c_ij."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=detached_softmax))


@wrong_variant
def dynamic_extra_iteration() -> None:
    """An off-by-one loop: the layer routes with one iteration more than it was built with."""
    _slipped(_Slip(extra_iterations=1))


@wrong_variant
def dynamic_agreement_unsquashed() -> None:
    """Agreement computed from the wrong poses: û·s_j with the unsquashed total input s_j."""
    _slipped(_Slip(agree_with_total=True))


@wrong_variant
def dynamic_logits_not_accumulated() -> None:
    """Each iteration's logits are the latest agreement alone (b_ij ← û·v, not b_ij + û·v)."""
    _slipped(_Slip(accumulate=False))


@wrong_variant
def dynamic_no_agreement_step() -> None:
    """No agreement step: the iterations repeat the weighted sum but never update the logits."""
    _slipped(_Slip(agreement_step=False))


@wrong_variant
def dynamic_bias_ignored() -> None:
    """The DigitCaps bias (the TF code's, on s_j) is a parameter that the routing never adds."""
    _slipped(_Slip(use_bias=False))


@wrong_variant
def dynamic_bias_after_squash() -> None:
    """The DigitCaps bias added to the squashed output v_j instead of to s_j before eq. 1."""
    _slipped(_Slip(bias_after_squash=True))


@wrong_variant
def dynamic_logits_shared_across_batch() -> None:
    """One set of routing logits for the whole batch: the logits are averaged over the images,
    so an image's parents depend on the other images of its batch."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=batch_shared_softmax))


@wrong_variant
def dynamic_logits_carried_across_calls() -> None:
    """The routing logits kept on the layer and carried into its next call (a "warm start"):
    the first call routes from b = 0 as Procedure 1 says, every later one does not."""
    routing = module(ROUTING)

    def route(self: Any, u: Tensor) -> Any:
        u_hat = torch.einsum("jied,bid->ibje", self.weight, u)
        children, batch, parents, dim = u_hat.shape
        entries = u_hat.view(children, batch * parents, dim).transpose(0, 1)
        kept = getattr(self, "_carried", None)
        start = kept if kept is not None and kept.shape == (batch, parents, children) else None
        result = _procedure_1(_Slip(), start)(entries, batch, self.iterations, self.bias,
                                              self.eps, self.detach_agreement)
        v = result.poses
        agreement = torch.einsum("bje,bjie->bji", v.detach(), u_hat.detach().permute(1, 2, 0, 3))
        self._carried = agreement + (start if start is not None else 0.0)
        return result

    replace(routing.DynamicRouting, "route", route)


def _init_with_bias(bias_std: float, only_if_nonzero: bool) -> Any:
    """A ``DynamicRouting.__init__`` written out: always with a bias drawn from N(0, bias_std²);
    with ``only_if_nonzero`` the layer decides once, at construction, to add its bias only if
    the bias then differs from zero (which a zero-initialised bias never does)."""

    def init(self: Any, n_in: int, d_in: int, n_out: int, d_out: int, iterations: int = 3,
             bias: bool = False, eps: float = 1e-8, detach_agreement: bool = False,
             init_std: float = 0.01) -> None:
        nn.Module.__init__(self)
        self.n_in, self.d_in, self.n_out, self.d_out = n_in, d_in, n_out, d_out
        self.iterations, self.eps, self.detach_agreement = iterations, eps, detach_agreement
        self.init_std = init_std
        self.weight = nn.Parameter(torch.randn(n_out, n_in, d_out, d_in) * init_std)
        has_bias = bias or not only_if_nonzero
        self.bias = nn.Parameter(torch.randn(n_out, d_out) * bias_std) if has_bias else None
        self.last_coupling = None
        if only_if_nonzero and self.bias is not None:
            self._bias_in_use = bool(self.bias.detach().abs().sum() > 0)

    return init


@wrong_variant
def digit_caps_bias() -> None:
    """DigitCaps built with the TF code's bias on s_j whatever its config says (eq. 2 has none)."""
    replace(module(ROUTING).DynamicRouting, "__init__", _init_with_bias(0.05, False))


@wrong_variant
def dynamic_bias_only_if_nonzero_at_init() -> None:
    """The layer adds its bias only if the bias was non-zero when it was built: a zero-initialised
    bias (the TF code's) is learned but never added, as if the option were off."""
    routing = module(ROUTING)
    replace(routing.DynamicRouting, "__init__", _init_with_bias(0.0, True))

    def route(self: Any, u: Tensor) -> Any:
        u_hat = torch.einsum("jied,bid->ibje", self.weight, u)
        children, batch, parents, dim = u_hat.shape
        entries = u_hat.view(children, batch * parents, dim).transpose(0, 1)
        bias = self.bias if getattr(self, "_bias_in_use", False) else None
        return _procedure_1(_Slip())(entries, batch, self.iterations, bias, self.eps,
                                     self.detach_agreement)

    replace(routing.DynamicRouting, "route", route)


@wrong_variant
def primary_caps_nchw_grouping() -> None:
    """Primary capsules cut from the flattened NCHW memory: 8 positions of one channel."""
    network = module(NETWORK)

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x)
        return _squash(h.reshape(h.shape[0], -1, self.dim), self.eps)

    replace(network.PrimaryCaps, "forward", forward)


@wrong_variant
def capsnet_scores_squared_length() -> None:
    """CapsNet scores each class by the squared length ‖v_k‖² instead of the length ‖v_k‖."""
    replace(module(NETWORK), "capsule_length", squared_length)


@wrong_variant
def capsnet_primary_unsquashed() -> None:
    """PrimaryCaps returns the conv's capsules without the squash of eq. 1 (DigitCaps keeps it)."""
    network = module(NETWORK)

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x)
        batch, _, rows, cols = h.shape
        u = h.view(batch, self.types, self.dim, rows, cols).permute(0, 1, 3, 4, 2)
        return u.reshape(batch, -1, self.dim)

    replace(network.PrimaryCaps, "forward", forward)
