"""Self-attention routing (Mazzia, Salvetti, Chiaberge; arxiv:2101.12491 eqs. 3-6) and the fully
connected capsule layer that runs it (the official code's ``FCCaps``).

Einsum letters: b batch, i child capsule (layer l, n_l of them), j parent capsule (n_{l+1}),
d child dimension d_l, e parent dimension d_{l+1}. Predictions are parent-major,
``u_hat[b, j, i, e]`` = û_{j|i}, the rows of Û_j. The network that uses the layer is in
:mod:`models.self_attention.efficient_capsnet`.

Where the paper and the official code (EscVM/Efficient-CapsNet ``utils/layers.py``) differ, the
difference is a named option:

* ``divisor``: √d in eq. 5 is √d_l (``"input"``, the paper per the code's issue #18) or
  √d_{l+1} (``"output"``, the code);
* ``prior``: the learned log priors B are added to the softmax output (``"after_softmax"``, the
  code) or to the logits before it (``"logits"``).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import torch
from torch import Tensor, nn

from models.capsules import PredictThenRoute, RoutingResult, squash_efficient

Divisor = Literal["input", "output"]
PriorMode = Literal["after_softmax", "logits"]
_KERAS_TRUNC_STD = 0.87962566103423978  # std of a unit normal truncated at ±2


class _SavesInputs(torch.autograd.Function):
    """Base of the two routing products below: both save their inputs for the backward."""

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Tensor, Tensor], output: Tensor) -> None:
        ctx.save_for_backward(*inputs)


class _Agreement(_SavesInputs):
    """a_{j,i} = û_{j|i} · t_j for predictions (B, j, i, e) and totals t (B, j, e) (eq. 5).

    The forward is the einsum, so FLOP counters see the matrix product the rule performs; the
    backward is two broadcast products, because autograd's backward of that einsum is a batched
    outer product (K = 1) that took about half of the layer's training step on the CPU.
    """

    @staticmethod
    def forward(u_hat: Tensor, total: Tensor) -> Tensor:
        return torch.einsum("bjie,bje->bji", u_hat, total)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        u_hat, total = ctx.saved_tensors
        grad = grad.unsqueeze(-1)  # (B, j, i, 1)
        return grad * total.unsqueeze(2), (grad * u_hat).sum(dim=2)


class _WeightedSum(_SavesInputs):
    """s_j = Σ_i w_{j,i} û_{j|i} for weights (B, j, i) and predictions (B, j, i, e) (eq. 4);
    an einsum forward and a broadcast backward, as :class:`_Agreement`."""

    @staticmethod
    def forward(weights: Tensor, u_hat: Tensor) -> Tensor:
        return torch.einsum("bji,bjie->bje", weights, u_hat)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        weights, u_hat = ctx.saved_tensors
        grad = grad.unsqueeze(2)  # (B, j, 1, e)
        return (u_hat * grad).sum(dim=-1), weights.unsqueeze(-1) * grad


def self_attention_routing(
    u_hat: Tensor,
    scale_dim: int,
    log_prior: Tensor | None = None,
    prior: PriorMode = "after_softmax",
    eps: float = 1e-20,
) -> RoutingResult:
    """arxiv:2101.12491 eqs. 4-6 on predictions ``u_hat`` (B, j, i, e).

    Eq. 5 needs only the row sums of A_j = Û_j Û_jᵀ / √d: Σ_k A_{j,ik} = û_{j|i} · Σ_k û_{j|k} / √d,
    so the n_l × n_l matrix is never formed (O(n·d) instead of O(n²·d)). Eq. 6: c_{·i} = softmax
    over the parents j. Eq. 4: s_j = Σ_i (c_ji + b_ji) û_{j|i} with ``prior="after_softmax"``
    (then Σ_j (c_ji + b_ji) ≠ 1 in general), or c = softmax(logits + b) with ``prior="logits"``.
    v_j = squash(s_j) (eq. 2). ``log_prior`` is (j, i). Returns v (B, j, e) and the softmax
    output c (B, i, j), before an after-softmax prior is added.
    """
    total = u_hat.sum(dim=2)  # (B, j, e): Σ_k û_{j|k}
    logits = _Agreement.apply(u_hat, total) / math.sqrt(scale_dim)  # (B, j, i)
    if log_prior is not None and prior == "logits":
        logits = logits + log_prior
    coupling = torch.softmax(logits, dim=1)  # over parents j
    weights = coupling
    if log_prior is not None and prior == "after_softmax":
        weights = coupling + log_prior
    s = _WeightedSum.apply(weights, u_hat)  # (B, j, e)
    return RoutingResult(squash_efficient(s, eps=eps), coupling.transpose(1, 2))


def keras_he_normal_(tensor: Tensor, fan_in: int) -> Tensor:
    """Keras ``he_normal``: a normal truncated at ±2σ, rescaled so that its std is √(2/fan_in)."""
    std = math.sqrt(2.0 / fan_in) / _KERAS_TRUNC_STD
    return nn.init.trunc_normal_(tensor, std=std, a=-2 * std, b=2 * std)


class SelfAttentionRouting(PredictThenRoute):
    """Fully connected capsule layer with self-attention routing (``FCCaps``, arxiv:2101.12491).

    ``weight`` is (n_out, n_in, d_in, d_out), the code's layout, so û_{j|i} = u_i W_ji (eq. 3);
    ``log_prior`` B is (n_out, n_in), zero-initialised and learned. He-normal init with the
    Keras fan-in d_in·n_out·n_in. ``forward(u)`` maps (B, n_in, d_in) -> (B, n_out, d_out) and
    keeps the softmax coupling, detached, in ``last_coupling`` (B, n_in, n_out); ``route(u)``
    returns both; ``route_predictions(u_hat)`` routes given predictions (B, n_out, n_in, d_out).
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        divisor: Divisor = "output",
        prior: PriorMode = "after_softmax",
        eps: float = 1e-20,
    ) -> None:
        super().__init__()
        if divisor not in ("input", "output"):
            raise ValueError(f"divisor must be 'input' or 'output', got {divisor!r}")
        if prior not in ("after_softmax", "logits"):
            raise ValueError(f"prior must be 'after_softmax' or 'logits', got {prior!r}")
        self.n_in, self.d_in, self.n_out, self.d_out = n_in, d_in, n_out, d_out
        self.divisor, self.prior_mode, self.eps = divisor, prior, eps
        self.weight = nn.Parameter(torch.empty(n_out, n_in, d_in, d_out))
        self.log_prior = nn.Parameter(torch.empty(n_out, n_in))
        self.last_coupling: Tensor | None = None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """The official ``FCCaps`` initialisers: W ``he_normal`` with Keras' fan-in
        d_in·n_out·n_in of the 4-D tensor, log priors B zeros."""
        with torch.no_grad():
            keras_he_normal_(self.weight, self.n_out * self.n_in * self.d_in)
            self.log_prior.zero_()

    @property
    def scale_dim(self) -> int:
        return self.d_in if self.divisor == "input" else self.d_out

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"divisor={self.divisor!r}, prior={self.prior_mode!r}, eps={self.eps}"
        )

    def predictions(self, u: Tensor) -> Tensor:
        """û_{j|i} = u_i W_ji (eq. 3): (B, i, d) -> (B, j, i, e)."""
        return torch.einsum("bid,jide->bjie", u, self.weight)

    def route_predictions(self, u_hat: Tensor) -> RoutingResult:
        return self_attention_routing(
            u_hat, self.scale_dim, self.log_prior, self.prior_mode, self.eps
        )
