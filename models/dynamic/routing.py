"""Dynamic routing between capsules (Sabour, Frosst, Hinton; arxiv:1710.09829): Procedure 1 and
the fully connected capsule layer that runs it (DigitCaps).

Einsum letters: b batch, i child capsule (layer l), j parent capsule (layer l+1), d child
dimension, e parent dimension. Predictions are stored parent-major, ``u_hat[b, j, i, e]`` =
û_{j|i}, so both contractions of the routing loop are contiguous batched matmuls. The networks
that use the layer are in :mod:`models.dynamic.capsnet`.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from models.capsules import PredictThenRoute, RoutingResult, squash_sabour


def dynamic_routing(
    u_hat: Tensor,
    iterations: int,
    bias: Tensor | None = None,
    eps: float = 1e-8,
    detach_agreement: bool = False,
) -> RoutingResult:
    """arxiv:1710.09829 Procedure 1 on predictions ``u_hat`` (B, j, i, e).

    b_ij ← 0; r times: c_i = softmax_j(b_i) (eq. 3, over the **parents**);
    s_j = Σ_i c_ij û_{j|i} (eq. 2, plus ``bias`` (j, e) as in the authors' TF code);
    v_j = squash(s_j) (eq. 1); b_ij ← b_ij + û_{j|i}·v_j (agreement).
    The update after the last iteration cannot change v and is skipped. With ``iterations=1``
    every c_ij is exactly 1/n_parents. ``detach_agreement`` stops gradients through the
    agreement (some re-implementations do this; the TF code and the paper do not).
    Returns poses v (B, j, e) and the last coupling c (B, i, j).
    """
    batch, parents, children, dim = u_hat.shape
    entries = u_hat.reshape(batch * parents, children, dim)
    return route_by_agreement(entries, batch, iterations, bias, eps, detach_agreement)


def route_by_agreement(
    entries: Tensor,
    batch: int,
    iterations: int,
    bias: Tensor | None = None,
    eps: float = 1e-8,
    detach_agreement: bool = False,
) -> RoutingResult:
    """``dynamic_routing`` on the predictions as one (i, e) matrix per (b, j): (B·j, i, e).

    ``entries`` may be a strided view, such as the child-major predictions (i, B·j, e) that
    ``DynamicRouting.route`` makes, transposed: both sums of Procedure 1 (eq. 2 and the
    agreement) are batched products that read the predictions where they lie.
    """
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    groups, children, dim = entries.shape
    parents = groups // batch
    logits = entries.new_zeros(batch, parents, children)  # (B, j, i)
    agree_from = entries.detach() if detach_agreement else entries
    for step in range(iterations):
        coupling = torch.softmax(logits, dim=1)  # over parents j
        s = torch.bmm(coupling.view(groups, 1, children), entries).view(batch, parents, dim)
        if bias is not None:
            s = s + bias
        v = squash_sabour(s, eps=eps)  # (B, j, e)
        if step < iterations - 1:
            agreement = torch.bmm(v.view(groups, 1, dim), agree_from.transpose(1, 2))
            logits = logits + agreement.view(batch, parents, children)
    return RoutingResult(v, coupling.transpose(1, 2))


class DynamicRouting(PredictThenRoute):
    """A fully connected capsule layer with routing by agreement (DigitCaps, arxiv:1710.09829 §4).

    û_{j|i} = W_ij u_i (eq. 2) with one 16×8 matrix per (child i, parent j): ``weight`` has shape
    (n_out, n_in, d_out, d_in). ``bias`` (n_out, d_out) exists only with ``bias=True`` (the TF code
    has it; eq. 2 does not). ``forward(u)`` maps (B, n_in, d_in) to (B, n_out, d_out) and keeps the
    last coupling, detached, in ``last_coupling`` (B, n_in, n_out); ``route(u)`` returns both.
    ``route_predictions(u_hat)`` runs Procedure 1 on given predictions (B, n_out, n_in, d_out).
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        iterations: int = 3,
        bias: bool = False,
        eps: float = 1e-8,
        detach_agreement: bool = False,
        init_std: float = 0.01,
    ) -> None:
        super().__init__()
        self.n_in, self.d_in, self.n_out, self.d_out = n_in, d_in, n_out, d_out
        self.iterations = iterations
        self.eps = eps
        self.detach_agreement = detach_agreement
        self.init_std = init_std
        self.weight = nn.Parameter(torch.empty(n_out, n_in, d_out, d_in))
        self.bias = nn.Parameter(torch.empty(n_out, d_out)) if bias else None
        self.last_coupling: Tensor | None = None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """W ~ N(0, ``init_std``²), bias 0. The paper names no initialiser; the routing logits
        are not parameters: Procedure 1 sets them to 0 on every call."""
        with torch.no_grad():
            self.weight.normal_(0.0, self.init_std)
            if self.bias is not None:
                self.bias.zero_()

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"iterations={self.iterations}, bias={self.bias is not None}, eps={self.eps}, "
            f"detach_agreement={self.detach_agreement}"
        )

    def predictions(self, u: Tensor) -> Tensor:
        """û_{j|i} = W_ij u_i: (B, i, d) -> (B, j, i, e)."""
        return torch.einsum("jied,bid->bjie", self.weight, u)

    def route_predictions(self, u_hat: Tensor) -> RoutingResult:
        return dynamic_routing(u_hat, self.iterations, self.bias, self.eps, self.detach_agreement)

    def route(self, u: Tensor) -> RoutingResult:
        """Routes the predictions in the layout their product writes, child-major (i, B, j, e),
        so they are never copied into parent-major order; same result as ``route_predictions``
        up to the order of the sums."""
        u_hat = torch.einsum("jied,bid->ibje", self.weight, u)
        children, batch, parents, dim = u_hat.shape
        entries = u_hat.view(children, batch * parents, dim).transpose(0, 1)  # (B·j, i, e)
        return route_by_agreement(
            entries, batch, self.iterations, self.bias, self.eps, self.detach_agreement
        )
