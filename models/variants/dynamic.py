"""Wrong variants of dynamic routing and CapsNet's layers (arxiv:1710.09829).

Procedure 1: b_ij ← 0; r times: c_i = softmax_j(b_i) (eq. 3), s_j = Σ_i c_ij û_{j|i} (eq. 2),
v_j = squash(s_j) (eq. 1), b_ij ← b_ij + û_{j|i}·v_j. Each variant below is a bug found in
public ports; each rebinds a name that ``models.dynamic.capsnet`` looks up at call time.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

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

ROUTING = "models.dynamic.capsnet"


@wrong_variant
def dynamic_uniform_coupling() -> None:
    """Routing replaced by uniform averaging: every c_ij stays 1/n_parents in every iteration."""
    routing = module(ROUTING)
    replace(routing, "torch", Replaced(torch, softmax=uniform_softmax))


@wrong_variant
def dynamic_softmax_over_children() -> None:
    """The routing softmax normalises over the children of each parent instead of its parents."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=other_axis_softmax))


@wrong_variant
def dynamic_no_squash() -> None:
    """No squash in CapsNet: primary and digit capsules keep their raw total input s."""
    replace(module(ROUTING), "squash_sabour", identity)


@wrong_variant
def dynamic_stop_gradient() -> None:
    """A stop-gradient in routing: the agreement û·v is computed from detached predictions."""
    routing = module(ROUTING)
    original = routing.route_by_agreement

    def detached(entries: Tensor, batch: int, iterations: int, bias: Tensor | None = None,
                 eps: float = 1e-8, detach_agreement: bool = False) -> Any:
        return original(entries, batch, iterations, bias, eps, True)

    replace(routing, "route_by_agreement", detached)


@wrong_variant
def dynamic_detached_coupling() -> None:
    """A stop-gradient on the routing logits: no gradient flows through the coupling c_ij."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=detached_softmax))


@wrong_variant
def dynamic_extra_iteration() -> None:
    """An off-by-one loop: the layer routes with one iteration more than it was built with."""
    routing = module(ROUTING)
    original = routing.route_by_agreement

    def one_more(entries: Tensor, batch: int, iterations: int, *rest: Any) -> Any:
        return original(entries, batch, iterations + 1, *rest)

    replace(routing, "route_by_agreement", one_more)


def _wrong_agreement(agree_with_total: bool = False, accumulate: bool = True) -> Any:
    """Procedure 1 with the agreement taken from s instead of v, or with the logits replaced by
    the latest agreement instead of accumulated: two port bugs, written out here."""
    from models.capsules import RoutingResult, squash_sabour

    def route(entries: Tensor, batch: int, iterations: int, bias: Tensor | None = None,
              eps: float = 1e-8, detach_agreement: bool = False) -> Any:
        groups, children, dim = entries.shape
        logits = entries.new_zeros(batch, groups // batch, children)
        for _ in range(iterations):
            coupling = torch.softmax(logits, dim=1)
            s = torch.bmm(coupling.view(groups, 1, children), entries).view(batch, -1, dim)
            v = squash_sabour(s if bias is None else s + bias, eps=eps)
            pose = s if agree_with_total else v
            agreement = torch.bmm(pose.reshape(groups, 1, dim), entries.transpose(1, 2))
            logits = agreement.view_as(logits) + (logits if accumulate else 0.0)
        return RoutingResult(v, coupling.transpose(1, 2))

    return route


@wrong_variant
def dynamic_agreement_unsquashed() -> None:
    """Agreement computed from the wrong poses: û·s_j with the unsquashed total input s_j."""
    replace(module(ROUTING), "route_by_agreement", _wrong_agreement(agree_with_total=True))


@wrong_variant
def dynamic_logits_not_accumulated() -> None:
    """Each iteration's logits are the latest agreement alone (b_ij ← û·v, not b_ij + û·v)."""
    replace(module(ROUTING), "route_by_agreement", _wrong_agreement(accumulate=False))


@wrong_variant
def dynamic_logits_shared_across_batch() -> None:
    """One set of routing logits for the whole batch: the logits are averaged over the images,
    so an image's parents depend on the other images of its batch."""
    replace(module(ROUTING), "torch", Replaced(torch, softmax=batch_shared_softmax))


@wrong_variant
def dynamic_no_agreement_step() -> None:
    """No agreement step: the iterations repeat the weighted sum but never update the logits."""
    routing = module(ROUTING)
    original = routing.route_by_agreement

    def without_agreement(entries: Tensor, batch: int, iterations: int, *rest: Any) -> Any:
        result = original(entries, batch, 1, *rest)
        for _ in range(iterations - 1):
            result = original(entries, batch, 1, *rest)
        return result

    replace(routing, "route_by_agreement", without_agreement)


@wrong_variant
def digit_caps_bias() -> None:
    """DigitCaps built with the TF code's bias on s_j whatever its config says (eq. 2 has none)."""
    layer = module(ROUTING).DynamicRouting
    original = layer.__init__

    def with_bias(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs["bias"] = True
        original(self, *args, **kwargs)
        with torch.no_grad():
            self.bias.normal_(0.0, 0.05)

    replace(layer, "__init__", with_bias)


@wrong_variant
def primary_caps_nchw_grouping() -> None:
    """Primary capsules cut from the flattened NCHW memory: 8 positions of one channel."""
    routing = module(ROUTING)

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x)
        return routing.squash_sabour(h.reshape(h.shape[0], -1, self.dim), eps=self.eps)

    replace(routing.PrimaryCaps, "forward", forward)


@wrong_variant
def capsnet_scores_squared_length() -> None:
    """CapsNet scores each class by the squared length ‖v_k‖² instead of the length ‖v_k‖."""
    replace(module(ROUTING), "capsule_length", squared_length)


@wrong_variant
def capsnet_primary_unsquashed() -> None:
    """PrimaryCaps returns the conv's capsules without the squash of eq. 1 (DigitCaps keeps it)."""
    routing = module(ROUTING)
    layer = routing.PrimaryCaps

    def forward(self: Any, x: Tensor) -> Tensor:
        h = self.conv(x)
        batch, _, rows, cols = h.shape
        u = h.view(batch, self.types, self.dim, rows, cols).permute(0, 1, 3, 4, 2)
        return u.reshape(batch, -1, self.dim)

    replace(layer, "forward", forward)
