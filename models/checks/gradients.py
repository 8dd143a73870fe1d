"""Gradients that a broken model cannot turn into an exception.

A check that differentiates the model must measure a missing gradient, not crash on it: when a
port detaches a parameter (or the whole output), ``torch.autograd.grad`` raises, and an error is
an unverified claim, never a contradicted one. :func:`gradients` returns zeros for an input the
output does not depend on, so the comparison with the reference or the finite difference fails
with a number.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor


def gradients(output: Tensor, inputs: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """d output / d each input; zeros where the output does not reach an input."""
    if not output.requires_grad:
        return tuple(torch.zeros_like(x) for x in inputs)
    found = torch.autograd.grad(output, tuple(inputs), allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g
                 for g, x in zip(found, inputs, strict=True))
