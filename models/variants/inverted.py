"""Wrong variants of inverted dot-product attention routing (arxiv:2002.04764).

Procedure 1: votes v_ij = P_i W_ij (eq. 1); parent poses start at 0, so the first pass is
uniform; later passes: a_ij = p_jᵀ v_ij (eq. 2, times 1/√d in the code), r_ij = softmax over the
parents j (eq. 3), p_j = LayerNorm(Σ_i r_ij v_ij). The network routes all layers concurrently
(fig. 3). The layers route through ``InvertedCapsuleLayer.route_groups`` and
``_weighted_vote_sum`` in ``models.inverted.layers``; the unused-by-the-network
``inverted_dot_product_routing`` there reads the same module globals, so each variant below
breaks both.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
from torch import Tensor

from claimcheck import wrong_variant
from models.variants.patching import (
    Replaced,
    after_init,
    batch_shared_softmax,
    module,
    other_axis_softmax,
    replace,
    uniform_softmax,
)

LAYERS = "models.inverted.layers"
NETWORK = "models.inverted.networks"


@wrong_variant
def inverted_uniform_coupling() -> None:
    """Routing replaced by uniform averaging: every pass routes each child 1/n to each parent."""
    replace(module(LAYERS), "torch", Replaced(torch, softmax=uniform_softmax))


@wrong_variant
def inverted_softmax_over_children() -> None:
    """The routing softmax runs over the children of each parent instead of its parents."""
    replace(module(LAYERS), "torch", Replaced(torch, softmax=other_axis_softmax))


def _layer_classes() -> list[Any]:
    """The FC and the convolutional capsule layer classes."""
    return [module(NETWORK).InvertedDotProductRouting,
            module(NETWORK).ConvInvertedDotProductRouting]


def _without_forward(norm: torch.nn.Module) -> None:
    norm.forward = lambda x: x  # type: ignore[method-assign]


@wrong_variant
def inverted_no_layernorm() -> None:
    """The LayerNorm after the weighted sum is left out (the parameters stay, unused)."""
    after_init(module(LAYERS).InvertedCapsuleLayer, lambda layer: _without_forward(layer.norm))


@wrong_variant
def inverted_no_primary_layernorm() -> None:
    """The primary capsules' LayerNorm is left out (the parameters stay, unused)."""
    after_init(module(NETWORK).InvertedCapsNet,
               lambda network: _without_forward(network.primary_norm))


@wrong_variant
def inverted_squashed_poses() -> None:
    """A squash (1710.09829 eq. 1) applied to the parent poses, which Procedure 1 does not have."""
    from models.capsules import RoutingResult, squash_sabour

    layer = module(LAYERS).InvertedCapsuleLayer
    original = layer.route_groups

    def squashed(self: Any, rows: Tensor, weight: Tensor, parents: Tensor | None) -> Any:
        poses, coupling = original(self, rows, weight, parents)
        return RoutingResult(squash_sabour(poses), coupling)

    replace(layer, "route_groups", squashed)


@wrong_variant
def inverted_stop_gradient() -> None:
    """A stop-gradient in routing: the agreement is taken with detached parent poses."""
    layers = module(LAYERS)
    original = layers._weighted_vote_sum

    def detached(votes: Tensor, parent_poses: Tensor, scale: float) -> Any:
        return original(votes, parent_poses.detach(), scale)

    replace(layers, "_weighted_vote_sum", detached)


@wrong_variant
def inverted_nonzero_initial_poses() -> None:
    """Wrong initial values: the first pass starts from parent poses of ones, not zeros."""
    layer = module(LAYERS).InvertedCapsuleLayer
    original = layer.route_groups

    def from_ones(self: Any, rows: Tensor, weight: Tensor, parents: Tensor | None) -> Any:
        if parents is None:
            parents = rows.new_ones(rows.shape[2], self.n_out, self.d_out)
        return original(self, rows, weight, parents)

    replace(layer, "route_groups", from_ones)


@wrong_variant
def inverted_unscaled_agreement() -> None:
    """The agreement is not divided by √d, as the official code does."""
    def unscaled(layer: Any) -> None:
        layer.scale = 1.0

    after_init(module(LAYERS).InvertedCapsuleLayer, unscaled)


@wrong_variant
def sequential_routing() -> None:
    """Layers routed one after the other (each finishing its passes) instead of concurrently."""
    network = module(NETWORK).InvertedCapsNet
    original = network.route

    def sequential(self: Any, primary: Tensor) -> list[Tensor]:
        self.config = dataclasses.replace(self.config, routing="sequential")
        poses: list[Tensor] = original(self, primary)
        return poses

    replace(network, "route", sequential)


@wrong_variant
def stale_parent_poses() -> None:
    """Agreement computed from the wrong poses: every later pass agrees with the first pass's
    parent poses instead of the previous pass's."""
    network = module(NETWORK).InvertedCapsNet

    def stale(self: Any, primary: Tensor) -> list[Tensor]:
        first = [primary]
        for layer in self.capsule_layers:
            first.append(layer(first[-1]))
        poses = first
        for _ in range(self.config.iterations - 1):
            poses = [primary] + [layer(poses[k], first[k + 1])
                                 for k, layer in enumerate(self.capsule_layers)]
        return poses

    replace(network, "route", stale)


@wrong_variant
def transposed_pose_votes() -> None:
    """Votes from the transposed pose matrix, P_iᵀ W_ij instead of P_i W_ij (eq. 1)."""
    for cls in _layer_classes():
        original = cls.child_rows

        def transposed(self: Any, children: Tensor, _original: Any = original) -> Tensor:
            rows: Tensor = _original(self, children)  # (i, a, groups, x)
            return rows.transpose(1, 3).contiguous() if self.matrix_pose else rows

        replace(cls, "child_rows", transposed)


@wrong_variant
def scrambled_conv_windows() -> None:
    """The official first commit's window expansion, which mixes pose entries and positions."""
    conv = module("models.inverted.conv")
    original = conv.expand_windows

    def scrambled(poses: Tensor, kernel: int, stride: int, mode: str) -> Tensor:
        return original(poses, kernel, stride, "apple_53899ae")

    replace(conv, "expand_windows", scrambled)


@wrong_variant
def inverted_primary_channel_order() -> None:
    """Primary capsules grouped across the capsule types: pose entry e of type t is channel
    e·types + t, not t·d + e (a channels-order bug)."""
    network = module(NETWORK).InvertedCapsNet

    def primary(self: Any, x: Tensor) -> Tensor:
        h = self.primary_caps(self.backbone(x))
        batch, _, rows, cols = h.shape
        u = h.view(batch, self.config.pose_dim, self.config.primary_types, rows, cols)
        return self.primary_norm(u.permute(0, 2, 3, 4, 1))

    replace(network, "primary", primary)


@wrong_variant
def inverted_no_agreement_step() -> None:
    """No agreement step: every pass routes uniformly from the votes, whatever the poses."""
    layer = module(LAYERS).InvertedCapsuleLayer
    original = layer.route_groups

    def uniform(self: Any, rows: Tensor, weight: Tensor, parents: Tensor | None) -> Any:
        return original(self, rows, weight, None)

    replace(layer, "route_groups", uniform)


@wrong_variant
def inverted_vector_poses() -> None:
    """Capsule layers built with 16-D vector poses and 16×16 transforms instead of 4×4 pose
    matrices (the code's ``matrix_pose`` switched off): 16× the routing weights."""
    network = module(NETWORK).InvertedCapsNet
    original = network.__init__

    def init(self: Any, config: Any) -> None:
        original(self, dataclasses.replace(config, matrix_pose=False))

    replace(network, "__init__", init)


@wrong_variant
def inverted_primary_caps_bias() -> None:
    """The primary capsules' 1×1 convolution built with a bias (the official one has none)."""
    def biased(network: Any) -> None:
        conv = network.primary_caps
        network.primary_caps = torch.nn.Conv2d(conv.in_channels, conv.out_channels, 1, bias=True)

    after_init(module(NETWORK).InvertedCapsNet, biased)


@wrong_variant
def inverted_unit_init() -> None:
    """Wrong initial values: every W_ij drawn from N(0, 1), without the code's
    √(n_out/(f·n_in·k²)) scale."""
    def unit(layer: Any) -> None:
        with torch.no_grad():
            layer.weight.normal_(0.0, 1.0)

    for cls in _layer_classes():
        after_init(cls, unit)


@wrong_variant
def inverted_logits_shared_across_batch() -> None:
    """One set of routing logits for the whole batch: the logits are averaged over the images,
    so an image's parents depend on the other images of its batch."""
    replace(module(LAYERS), "torch", Replaced(torch, softmax=batch_shared_softmax))


@wrong_variant
def inverted_backbone_without_relu() -> None:
    """The backbone's own ReLU modules left out: the simple backbone is then one linear conv,
    so the primary capsules see negative inputs (the ResNet's blocks still end in a ReLU)."""
    from torch import nn

    network = module(NETWORK)
    original = network._backbone

    def backbone(config: Any) -> nn.Sequential:
        built: nn.Sequential = original(config)
        return nn.Sequential(*(m for m in built if not isinstance(m, nn.ReLU)))

    replace(network, "_backbone", backbone)


@wrong_variant
def resnet_block_without_final_relu() -> None:
    """The ResNet BasicBlock returns conv-BN plus its shortcut without the last ReLU (He et
    al. Fig. 2 applies it after the addition), so the ResNet backbone's output can be negative."""
    blocks = module("models.resnet").BasicBlock

    def forward(self: Any, x: Tensor) -> Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        return self.bn2(self.conv2(out)) + self.shortcut(x)

    replace(blocks, "forward", forward)


def _chunked_sums(*, keep_remainder: bool, keep_graph: bool) -> Any:
    """A copy of ``InvertedCapsuleLayer._routed_vote_sums`` with two slips of chunked code:
    ``keep_remainder=False`` steps over whole chunks only (the last partial chunk is
    dropped), ``keep_graph=False`` computes each chunk from detached inputs."""
    layers = module("models.inverted.layers")

    def routed_vote_sums(self: Any, rows: Tensor, weight: Tensor, parents: Tensor) -> Any:
        n_children, n_rows, groups = rows.shape[:3]
        per_group = n_children * n_rows * weight.shape[2] * rows.element_size()
        chunk = groups
        if rows.device.type == "cpu":
            chunk = max(1, min(groups, layers.VOTE_CHUNK_BYTES // per_group))
        stop = groups if keep_remainder else groups - groups % chunk
        pieces = []
        for start in range(0, max(stop, chunk), chunk):
            part = (rows[:, :, start: start + chunk], weight, parents[start: start + chunk])
            if not keep_graph:
                part = tuple(tensor.detach() for tensor in part)
            votes = self.child_major_votes(*part[:2])
            pieces.append(layers._weighted_vote_sum(votes, part[2], self.scale))
        poses = torch.cat([piece[0] for piece in pieces])
        return layers.RoutingResult(poses, torch.cat([piece[1] for piece in pieces]))

    return routed_vote_sums


@wrong_variant
def routing_chunks_drop_remainder() -> None:
    """Routing groups split into chunks with ``range(0, groups - groups % chunk, chunk)``: the
    last partial chunk of images (or output positions) is never routed."""
    replace(module("models.inverted.layers").InvertedCapsuleLayer, "_routed_vote_sums",
            _chunked_sums(keep_remainder=False, keep_graph=True))


@wrong_variant
def routing_chunks_detached() -> None:
    """Each chunk of routing groups computed from detached votes and poses (a ``no_grad``-style
    memory saving): the values are right, no gradient reaches W_ij or the children."""
    replace(module("models.inverted.layers").InvertedCapsuleLayer, "_routed_vote_sums",
            _chunked_sums(keep_remainder=True, keep_graph=False))
