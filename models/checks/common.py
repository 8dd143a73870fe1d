"""Shared pieces of the property checks: findings, their evidence, float64 random tensors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from claimcheck import CheckArgs
from claimcheck.checks.api import Evidence

DTYPE = torch.float64


@dataclass(frozen=True)
class CapsnetPresetArgs(CheckArgs):
    """``preset`` of capsnet (default mnist)."""

    preset: str = "mnist"


@dataclass(frozen=True)
class EfficientPresetArgs(CheckArgs):
    """``preset`` of efficient_capsnet (default mnist)."""

    preset: str = "mnist"


@dataclass(frozen=True)
class InvertedPresetArgs(CheckArgs):
    """``preset`` of inverted_capsnet (default cifar10_resnet)."""

    preset: str = "cifar10_resnet"


@dataclass(frozen=True)
class Finding:
    """One measured quantity of a property check, and whether it met its bound."""

    name: str
    ok: bool
    measured: str

    def __str__(self) -> str:
        return f"{self.name}: {self.measured} ({'ok' if self.ok else 'FAILED'})"


def at_most(name: str, value: float, bound: float) -> Finding:
    """A finding that holds when ``value <= bound`` (e.g. a max deviation)."""
    return Finding(name, value <= bound, f"{value:.3g} (bound <= {bound:.3g})")


def at_least(name: str, value: float, bound: float) -> Finding:
    """A finding that holds when ``value >= bound`` (e.g. a gap that shows discrimination)."""
    return Finding(name, value >= bound, f"{value:.3g} (bound >= {bound:.3g})")


def all_hold(findings: Sequence[Finding]) -> bool:
    """Whether every finding met its bound."""
    return all(finding.ok for finding in findings)


def property_evidence(
    subject: str, findings: Sequence[Finding], notes: Sequence[str] = ()
) -> Evidence:
    """Evidence for a property check: measured is True only when every finding holds.

    ``notes`` are context for a reader (for instance how far a known wrong variant lands from the
    reference on the same inputs); they never change ``measured``, so a check cannot pass or
    fail on them.
    """
    details = f"{subject}. " + "; ".join(str(finding) for finding in findings)
    if notes:
        details += ". Context: " + "; ".join(notes)
    return Evidence(measured=all_hold(findings), details=details)


def contrast(name: str, value: float) -> str:
    """A note: how far a wrong variant lands from the reference (the inputs discriminate)."""
    return f"{name}: {value:.3g}"


def max_abs(a: Tensor, b: Tensor) -> float:
    """Largest absolute elementwise difference between two tensors of one shape."""
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {tuple(a.shape)} vs {tuple(b.shape)}")
    return float((a - b).detach().abs().max())


def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with the run's seed, so a check is reproducible."""
    return torch.Generator().manual_seed(int(seed))


def randn(shape: Sequence[int], gen: torch.Generator, scale: float = 1.0) -> Tensor:
    """Standard-normal float64 tensor times ``scale``."""
    return torch.randn(tuple(shape), generator=gen, dtype=DTYPE) * scale
