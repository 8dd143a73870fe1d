"""Inverted dot-product attention routing (arxiv:2002.04764 Procedure 1) and its FC layer.

Einsum letters: b batch, i child capsule, j parent capsule, e parent pose entries; for matrix
poses a pose of dimension d is an s×s matrix (s = √d) with row ``a`` and column ``x``.

Two layouts of the votes v_ij. *Parent-major* ``votes[b, j, i, e]`` is the one the paper's
equations read in and the one ``inverted_dot_product_routing`` and ``votes()`` use.
*Child-major* ``votes[i, a, b, j, e]`` (``a`` the pose row, 1 for vector poses; ``b`` any batch
of routing groups) is the layout that the vote products v_i = P_i W_i, one per child and pose
row, write: the layers route in it (``route_child_major``), so the votes are never copied into
another order. Both give the same poses up to the order of the sums.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.utils.checkpoint import checkpoint

from models.capsules import RoutingResult

VOTE_CHUNK_BYTES = 8 * 2**20  # under glibc's 32 MB ceiling for reusing freed memory


def inverted_dot_product_routing(
    votes: Tensor,
    parent_poses: Tensor | None,
    normalize: nn.Module,
    scale: float = 1.0,
    dropout: nn.Module | None = None,
) -> RoutingResult:
    """One pass of arxiv:2002.04764 Procedure 1 on parent-major votes (B, j, i, e).

    Agreement a_ij = p_jᵀ v_ij (eq. 2, times ``scale``); r_ij = softmax over the parents j of
    each child i (eq. 3); p_j = Σ_i r_ij v_ij (a sum, not a mean); p_j = LayerNorm(p_j)
    (``normalize``; ``dropout`` before it as in the code). ``parent_poses=None`` is the first
    pass: parent poses start at 0, so every r_ij = 1/n_parents. Returns the new poses (B, j, e)
    and r (B, i, j).
    """
    batch, parents, children, _ = votes.shape
    if parent_poses is None:
        coupling = votes.new_full((batch, parents, children), 1.0 / parents)
    else:
        agreement = torch.einsum("bjie,bje->bji", votes, parent_poses) * scale
        coupling = torch.softmax(agreement, dim=1)  # over parents j
    poses = torch.einsum("bji,bjie->bje", coupling, votes)
    if dropout is not None:
        poses = dropout(poses)
    return RoutingResult(normalize(poses), coupling.transpose(1, 2))


def route_child_major(
    votes: Tensor,
    parent_poses: Tensor,
    normalize: nn.Module,
    scale: float = 1.0,
    dropout: nn.Module | None = None,
) -> RoutingResult:
    """A pass of arxiv:2002.04764 Procedure 1 (eq. 2-3) on child-major votes (i, a, b, j, e).

    ``parent_poses`` (b, j, a·e) are the previous pass's poses. Each (a, b, j) is one batch entry
    of two matrix products that read the votes where they lie (a stride, not a copy): the
    agreement p_jᵀ v_ij summed over e, then over a, and Σ_i r_ij v_ij. Only parent-sized tensors
    and r are rearranged. Returns the new poses (b, j, a·e) and r (b, i, j), as
    ``inverted_dot_product_routing`` does.
    """
    poses, coupling = _weighted_vote_sum(votes, parent_poses, scale)
    if dropout is not None:
        poses = dropout(poses)
    return RoutingResult(normalize(poses), coupling)


def _weighted_vote_sum(votes: Tensor, parent_poses: Tensor, scale: float) -> RoutingResult:
    """Σ_i r_ij v_ij (b, j, a·e) and r (b, i, j) of ``route_child_major``, before LayerNorm."""
    children, rows, groups, parents, cols = votes.shape
    by_entry = votes.view(children, -1, cols).transpose(0, 1)  # (a·b·j, i, e), a view
    previous = parent_poses.view(groups, parents, rows, cols).permute(2, 0, 1, 3)  # (a, b, j, e)
    partial = torch.bmm(previous.reshape(-1, 1, cols), by_entry.transpose(1, 2))  # (a·b·j, 1, i)
    agreement = partial.view(rows, groups, parents, children).sum(0) * scale  # (b, j, i)
    coupling = torch.softmax(agreement, dim=1)  # over parents j
    weights = coupling.expand(rows, groups, parents, children).reshape(-1, 1, children)
    poses = torch.bmm(weights, by_entry).view(rows, groups, parents, cols)  # (a, b, j, e)
    poses = poses.permute(1, 2, 0, 3).reshape(groups, parents, rows * cols)
    return RoutingResult(poses, coupling.transpose(1, 2))


def _pose_side(dim: int) -> int:
    side = math.isqrt(dim)
    if side * side != dim:
        raise ValueError(f"a matrix pose needs a square dimension, got {dim}")
    return side


class InvertedCapsuleLayer(nn.Module):
    """State and routing shared by the FC and conv forms: LayerNorm, dropout, agreement scale.

    A subclass turns its children into ``rows`` (i, a, groups, x), the left operands of the vote
    products (pose row a of child i in each routing group), and its weight into (i, x, j·e),
    the right ones; ``route_groups`` does the rest. For vector poses a = 1, x = d_in
    and e = d_out; for matrix poses a = x = e = s.
    """

    def __init__(
        self,
        d_in: int,
        n_out: int,
        d_out: int,
        matrix_pose: bool,
        scale_agreement: bool,
        dropout: float,
    ) -> None:
        super().__init__()
        if matrix_pose and d_in != d_out:
            raise ValueError(f"matrix poses need d_in == d_out, got {d_in} and {d_out}")
        self.d_in, self.n_out, self.d_out, self.matrix_pose = d_in, n_out, d_out, matrix_pose
        self.side = _pose_side(d_in) if matrix_pose else 0
        self.pose_rows = self.side if matrix_pose else 1
        self.scale = 1.0 / math.sqrt(d_out) if scale_agreement else 1.0
        self.norm = nn.LayerNorm(d_out)
        self.drop = nn.Dropout(dropout)
        self.last_coupling: Tensor | None = None

    def _fan(self) -> int:
        return self.side if self.matrix_pose else self.d_in

    def child_major_votes(self, rows: Tensor, weight: Tensor) -> Tensor:
        """v_ij = P_i W_ij (eq. 1) in the layout the product writes: (i, a, groups, j, e).

        ``rows`` (i, a, groups, x), ``weight`` (i, x, j·e): one product per (child, pose row).
        """
        votes = torch.einsum("iagx,ixn->iagn", rows, weight)  # (i, a, groups, j·e)
        return votes.unflatten(-1, (self.n_out, -1))

    def parent_major_votes(self, rows: Tensor, weight: Tensor) -> Tensor:
        """v_ij in the paper's order (groups, j, i, d_out), copied from the child-major votes."""
        votes = self.child_major_votes(rows, weight)
        n_children, _, groups = votes.shape[:3]
        return votes.permute(2, 3, 0, 1, 4).reshape(groups, self.n_out, n_children, self.d_out)

    def _routed_vote_sums(self, rows: Tensor, weight: Tensor, parents: Tensor) -> RoutingResult:
        """Σ_i r_ij v_ij and r of one routed pass (arxiv:2002.04764 Procedure 1, eqs. 2-3), over
        chunks of routing groups on the CPU.

        The votes of a whole batch are hundreds of MB; a fresh tensor that large comes from
        ``mmap`` and costs a page fault per 4 KB each time (a third of a CPU training step). In
        chunks of at most ``VOTE_CHUNK_BYTES`` the allocator reuses freed memory, and under
        autograd each chunk is checkpointed: its votes are recomputed in the backward (one
        K = x product) instead of being kept. Groups route independently, so the sums are the
        same; LayerNorm and dropout run on the joined result. Other devices take one chunk.
        """
        n_children, n_rows, groups = rows.shape[:3]
        per_group = n_children * n_rows * weight.shape[2] * rows.element_size()
        chunk = groups
        if rows.device.type == "cpu":
            chunk = max(1, min(groups, VOTE_CHUNK_BYTES // per_group))
        if chunk == groups:
            return self._chunk_vote_sums(rows, weight, parents)
        needs_grad = rows.requires_grad or weight.requires_grad or parents.requires_grad
        checkpointed = torch.is_grad_enabled() and needs_grad
        pieces = []
        for start in range(0, groups, chunk):
            part = (rows[:, :, start : start + chunk], weight, parents[start : start + chunk])
            if checkpointed:
                pieces.append(checkpoint(self._chunk_vote_sums, *part, use_reentrant=False))
            else:
                pieces.append(self._chunk_vote_sums(*part))
        poses = torch.cat([piece[0] for piece in pieces])
        return RoutingResult(poses, torch.cat([piece[1] for piece in pieces]))

    def _chunk_vote_sums(self, rows: Tensor, weight: Tensor, parents: Tensor) -> RoutingResult:
        return _weighted_vote_sum(self.child_major_votes(rows, weight), parents, self.scale)

    def route_groups(self, rows: Tensor, weight: Tensor, parents: Tensor | None) -> RoutingResult:
        """One pass over routing groups: poses (groups, j, d_out) and r (groups, i, j).

        ``parents`` (groups, j, d_out) are the previous pass's poses. ``parents=None`` is the
        uniform first pass: every r_ij = 1/n_parents, so p_j = LayerNorm(Σ_i v_ij / n_parents)
        (Procedure 1), and Σ_i v_ij = Σ_i P_i W_ij is one matrix product over (i, x), computed
        without forming the votes.
        """
        if parents is not None:
            poses, coupling = self._routed_vote_sums(rows, weight, parents)
            return RoutingResult(self.norm(self.drop(poses)), coupling)
        n_children, n_rows, groups = rows.shape[:3]
        flat_rows = rows.permute(1, 2, 0, 3).reshape(n_rows * groups, -1)  # (a·groups, i·x)
        total = flat_rows @ weight.reshape(-1, weight.shape[2])  # (a·groups, j·e)
        total = total.view(n_rows, groups, self.n_out, -1).permute(1, 2, 0, 3)  # (g, j, a, e)
        vote_sum = total.reshape(groups, self.n_out, self.d_out)
        poses = self.norm(self.drop(vote_sum / self.n_out))
        coupling = vote_sum.new_full((1, 1, 1), 1.0 / self.n_out)
        return RoutingResult(poses, coupling.expand(groups, n_children, self.n_out))


class InvertedDotProductRouting(InvertedCapsuleLayer):
    """Fully connected capsule layer with inverted dot-product attention routing.

    ``weight``: (n_out, n_in, s, s) for matrix poses (vote = P_i W_ij, the code's orientation of
    eq. 1), (n_out, n_in, d_in, d_out) for vector poses; initialised N(0, 1)·√(n_out/(f·n_in))
    with f = s or d_in, as in the code. Children are (B, n_in, d_in) or a conv capsule map
    (B, types, H, W, d_in), flattened in (type, row, column) order. ``forward(children,
    parents=None)`` returns the parent poses (B, n_out, d_out) and keeps the coupling, detached, in
    ``last_coupling`` (B, n_in, n_out); ``route`` returns both.
    """

    def __init__(
        self,
        n_in: int,
        d_in: int,
        n_out: int,
        d_out: int,
        matrix_pose: bool = True,
        scale_agreement: bool = True,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(d_in, n_out, d_out, matrix_pose, scale_agreement, dropout)
        self.n_in = n_in
        shape = (n_out, n_in, self.side, self.side) if matrix_pose else (n_out, n_in, d_in, d_out)
        std = math.sqrt(n_out / (self._fan() * n_in))
        self.weight = nn.Parameter(torch.randn(shape) * std)

    def extra_repr(self) -> str:
        return (
            f"n_in={self.n_in}, d_in={self.d_in}, n_out={self.n_out}, d_out={self.d_out}, "
            f"matrix_pose={self.matrix_pose}, scale={self.scale:.4g}"
        )

    def child_rows(self, children: Tensor) -> Tensor:
        """(B, n_in, d_in) or (B, types, H, W, d_in) -> (n_in, a, B, x)."""
        if children.dim() == 5:  # (B, n, H, W, d) -> (B, n·H·W, d)
            children = children.flatten(1, 3)
        rows = children.unflatten(-1, (self.pose_rows, -1))  # (B, i, a, x)
        return rows.permute(1, 2, 0, 3)

    def weight_matrix(self) -> Tensor:
        """``weight`` as (n_in, x, n_out·e)."""
        return self.weight.permute(1, 2, 0, 3).reshape(self.n_in, self.weight.shape[2], -1)

    def votes(self, children: Tensor) -> Tensor:
        """v_ij (eq. 1): (B, n_in, d_in) -> (B, n_out, n_in, d_out)."""
        return self.parent_major_votes(self.child_rows(children), self.weight_matrix())

    def route(self, children: Tensor, parents: Tensor | None = None) -> RoutingResult:
        return self.route_groups(self.child_rows(children), self.weight_matrix(), parents)

    def forward(self, children: Tensor, parents: Tensor | None = None) -> Tensor:
        result = self.route(children, parents)
        self.last_coupling = result.coupling.detach()
        return result.poses
