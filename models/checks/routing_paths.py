"""Route given predictions through a routing layer's own ``forward``, the path the network runs.

A routing check wants to choose the predictions û_{j|i} (agreeing ones, tied ones, saturating
ones), but the network never calls the routing function on predictions: it calls the layer on
the children u, and the layer forms û = W u and routes in its own layout (``DynamicRouting.route``
routes child-major predictions, for instance). So the checks do not call the routing function
beside the layer. They build a layer whose forward makes exactly the chosen predictions: with
one-hot children u_{b,i} = e_b (d_in ≥ B), û_{j|i} for image b is column b of W_ij, so W is
filled from the predictions and ``layer(u)`` routes them, with ``layer.last_coupling`` the
coupling the forward kept.

Layouts: predictions (B, parent j, child i, e); ``DynamicRouting.weight`` (j, i, e, d);
``SelfAttentionRouting.weight`` (j, i, d, e).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from models.checks.common import DTYPE


def one_hot_children(batch: int, children: int, dim: int) -> Tensor:
    """u (B, i, d) with u_{b,i} = e_b for every child: image b reads column b of each W_ij."""
    if dim < batch:
        raise ValueError(f"one-hot children need d_in >= batch, got {dim} < {batch}")
    u = torch.zeros(batch, children, dim, dtype=DTYPE)
    u[torch.arange(batch), :, torch.arange(batch)] = 1.0
    return u


def load_predictions(layer: Any, u_hat: Tensor) -> Tensor:
    """Fill the layer's W so that ``layer(u)`` on :func:`one_hot_children` makes ``u_hat``;
    returns those children. The rest of W is left as it was (one-hot children never read it)."""
    batch, parents, children, _ = u_hat.shape
    if (layer.n_out, layer.n_in) != (parents, children):
        raise ValueError(f"predictions {tuple(u_hat.shape)} do not fit {layer}")
    u = one_hot_children(batch, children, layer.d_in)
    with torch.no_grad():
        if layer.weight.shape[2] == layer.d_out:  # dynamic: (j, i, e, d)
            layer.weight[..., :batch] = u_hat.permute(1, 2, 3, 0)
        else:  # self-attention: (j, i, d, e)
            layer.weight[:, :, :batch, :] = u_hat.permute(1, 2, 0, 3)
    return u


def route_through_forward(layer: Any, u_hat: Tensor) -> tuple[Tensor, Tensor]:
    """(poses (B, j, e), coupling (B, i, j)) of ``layer.forward`` on predictions ``u_hat``."""
    u = load_predictions(layer, u_hat)
    poses = layer(u)
    coupling = layer.last_coupling
    if coupling is None:
        raise ValueError(f"{type(layer).__name__}.forward kept no coupling")
    return poses, coupling
