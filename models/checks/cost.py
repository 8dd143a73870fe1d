"""Model factories for the ``flops`` claims: routing layers on their own, at chosen sizes.

The built-in ``flops`` kind counts the matrix products of one forward pass. Whole networks come
from the registry (``capsnet``, ``efficient_capsnet``); these factories give the routing layers
alone so that the routing rule can be compared on the same children, independently of how many
capsules each network routes (arxiv:2101.12491 p. 1 calls its routing "non-iterative").

Per example, with n children of dimension d, m parents of dimension e and 2 FLOPs per
multiply-add: predictions û = W u cost 2·m·n·d·e; dynamic routing (arxiv:1710.09829 Procedure 1)
adds 2·m·n·e per weighted sum (r of them) and per agreement (r − 1 of them: the update after the
last iteration cannot change the output and is skipped); self-attention routing adds one
agreement (û · Σ_k û, the row sums of the Gram matrix) and one weighted sum.
"""

from __future__ import annotations

from torch import Tensor, nn

from claimcheck import model_factory


class RepeatedDynamicRouting(nn.Module):
    """``times`` runs of Procedure 1 with ``iterations`` on the predictions it is given.

    ``forward(u_hat)`` takes predictions (B, n_out, n_in, d_out), as ``dynamic_routing`` does,
    and returns the poses of the last run: routing alone, without the predictions' own cost.
    """

    def __init__(self, iterations: int, times: int) -> None:
        super().__init__()
        if iterations < 1 or times < 1:
            raise ValueError(f"iterations and times must be >= 1, got {iterations}, {times}")
        self.iterations = iterations
        self.times = times

    def forward(self, u_hat: Tensor) -> Tensor:
        from models.dynamic.routing import dynamic_routing

        poses = dynamic_routing(u_hat, self.iterations).poses
        for _ in range(self.times - 1):
            poses = dynamic_routing(u_hat, self.iterations).poses
        return poses


@model_factory
def dynamic_routing_layer(n_in: int = 1152, iterations: int = 3, d_in: int = 8, n_out: int = 10,
                          d_out: int = 16) -> nn.Module:
    """A ``DynamicRouting`` layer (DigitCaps of arxiv:1710.09829 §4 by default)."""
    from models.dynamic.routing import DynamicRouting

    return DynamicRouting(n_in, d_in, n_out, d_out, iterations=iterations)


@model_factory
def dynamic_routing_alone(iterations: int = 3, times: int = 1) -> nn.Module:
    """Procedure 1 of arxiv:1710.09829 on given predictions, run ``times`` times: r weighted
    sums and r − 1 agreements per run, each 2·m·n·e FLOPs per example."""
    return RepeatedDynamicRouting(iterations, times)


@model_factory
def self_attention_layer(n_in: int = 16, d_in: int = 8, n_out: int = 10,
                         d_out: int = 16) -> nn.Module:
    """A ``SelfAttentionRouting`` layer (FCCaps of arxiv:2101.12491 by default)."""
    from models.self_attention.routing import SelfAttentionRouting

    return SelfAttentionRouting(n_in, d_in, n_out, d_out)
