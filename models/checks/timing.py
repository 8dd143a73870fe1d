"""Factories for the built-in ``timing`` check: each returns a zero-argument callable to time.

The ``timing`` kind calls ``factory(**a_args)`` and ``factory(**b_args)`` once, then times the
returned callables interleaved and reports the median ratio a/b. Everything a callable needs
(layer, inputs) is built here, outside the timed region, from a fixed seed; the callables run
under ``torch.no_grad()`` (forward cost only). Defaults are the MNIST sizes of the papers.

* ``dynamic_routing_step``: arxiv:1710.09829 Procedure 1 (alg. 1) on fixed predictions û.
* ``dynamic_routing_layer``: the whole DigitCaps layer (û = W u, then routing).
* ``self_attention_layer``: the whole FCCaps layer of arxiv:2101.12491 (û = u W, one pass).
* ``inverted_layer_passes``: passes of arxiv:2002.04764 Procedure 1 through a capsule layer's
  own ``route_groups``, as ``InvertedCapsNet`` runs them (votes formed inside each routed pass),
  or as many uniform passes (``routed=False``).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from claimcheck import timing_factory

Timed = Callable[[], object]


def _inputs(shape: tuple[int, ...], seed: int, device: str) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator).to(device)


@timing_factory
def dynamic_routing_step(
    iterations: int,
    n_in: int = 1152,
    n_out: int = 10,
    d_out: int = 16,
    batch: int = 16,
    seed: int = 0,
    device: str = "cpu",
) -> Timed:
    """Routing alone: ``dynamic_routing`` on fixed predictions (batch, n_out, n_in, d_out)."""
    from models.dynamic.routing import dynamic_routing

    u_hat = _inputs((batch, n_out, n_in, d_out), seed, device) * 0.05

    def run() -> object:
        with torch.no_grad():
            return dynamic_routing(u_hat, iterations)

    return run


@timing_factory
def dynamic_routing_layer(
    n_in: int,
    iterations: int,
    d_in: int = 8,
    n_out: int = 10,
    d_out: int = 16,
    batch: int = 16,
    seed: int = 0,
    device: str = "cpu",
) -> Timed:
    """A ``DynamicRouting`` layer's forward on (batch, n_in, d_in) children."""
    from models.dynamic.routing import DynamicRouting

    torch.manual_seed(seed)
    layer = DynamicRouting(n_in, d_in, n_out, d_out, iterations=iterations).to(device).eval()
    u = _inputs((batch, n_in, d_in), seed, device)
    return _forward_without_grad(layer, u)


def _forward_without_grad(layer: torch.nn.Module, u: torch.Tensor) -> Timed:
    """The timed call: one forward pass of ``layer`` on ``u``, no autograd bookkeeping."""

    def run() -> object:
        with torch.no_grad():
            return layer(u)

    return run


@timing_factory
def self_attention_layer(
    n_in: int,
    d_in: int = 8,
    n_out: int = 10,
    d_out: int = 16,
    batch: int = 16,
    seed: int = 0,
    device: str = "cpu",
) -> Timed:
    """A ``SelfAttentionRouting`` layer's forward on (batch, n_in, d_in) children."""
    from models.self_attention.routing import SelfAttentionRouting

    torch.manual_seed(seed)
    layer = SelfAttentionRouting(n_in, d_in, n_out, d_out).to(device).eval()
    u = _inputs((batch, n_in, d_in), seed, device)
    return _forward_without_grad(layer, u)


@timing_factory
def inverted_layer_passes(
    passes: int,
    routed: bool = True,
    n_in: int = 800,
    n_out: int = 10,
    pose: int = 16,
    batch: int = 16,
    seed: int = 0,
    device: str = "cpu",
) -> Timed:
    """``passes`` passes of an ``InvertedDotProductRouting`` layer (4×4 matrix poses) on fixed
    children, the way the network calls it: ``layer(children)``, then ``layer(children, poses)``.

    The first pass is uniform and needs only the sum of the votes; each later one forms every
    vote, its agreement with the previous poses, the softmax over parents and the weighted sum.
    ``routed=False`` makes every pass a uniform one, ``layer(children)``: the same number of
    passes without an agreement step.
    """
    from models.inverted.networks import InvertedDotProductRouting

    if passes < 1:
        raise ValueError(f"passes must be >= 1, got {passes}")
    torch.manual_seed(seed)
    layer = InvertedDotProductRouting(n_in, pose, n_out, pose).to(device).eval()
    children = _inputs((batch, n_in, pose), seed, device)

    def run() -> object:
        with torch.no_grad():
            poses = layer(children)
            for _ in range(passes - 1):
                poses = layer(children, poses) if routed else layer(children)
            return poses

    return run
