"""The content package ``claimcheck init`` writes: the Python a new wiki's checks run.

Kept apart from the cards (:mod:`claimcheck.authoring.project_cards`) so that each file reads as
the project it becomes. Every module here is the smallest honest example of one role a card may
name (:mod:`claimcheck.trust.roles`): a model registry behind ``model:``/``preset:``, a check
marked ``@claim_check`` with declared args, two ``@timing_factory`` functions, a ``@trainer`` on
tiny data the project ships, and a catalogue of one ``@wrong_variant``.
"""

from __future__ import annotations

import random

__all__ = ["PACKAGE", "blob_rows", "code_files"]

PACKAGE = "wiki_checks"
"""The content package ``init`` writes (a name no installed package is likely to take)."""

INIT = '''\
"""This wiki's content: the models, checks, trainer and wrong variants its cards may name."""
'''

REGISTRY = '''\
"""The models cards name as ``model: NAME, preset: PRESET`` (``[tool.claimcheck] model_factory``).

Lint reads ``@register_model("name", PRESETS)`` with ``ast``: an unknown model, preset or config
field in a card's ``kwargs`` is an error before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import nn

from claimcheck import model_factory

_MODELS: dict[str, tuple[type[nn.Module], dict[str, Callable[[], Any]]]] = {}


def register_model(name: str, presets: dict[str, Callable[[], Any]]) -> Callable[[type], type]:
    """Register a model class under ``name`` with its presets (config factories)."""

    def decorate(cls: type) -> type:
        _MODELS[name] = (cls, presets)
        return cls

    return decorate


@model_factory
def build_model(name: str, preset: str, **kwargs: Any) -> nn.Module:
    """The registered model ``name`` built from ``preset``, with config fields overridden."""
    cls, presets = _MODELS[name]
    return cls(replace(presets[preset](), **kwargs))


def make_attention(d_model: int, heads: int) -> nn.MultiheadAttention:
    """torch's multi-head attention (arxiv:1706.03762 §3.2.2); the one-head variant swaps it."""
    return nn.MultiheadAttention(d_model, heads)


@dataclass(frozen=True)
class AttentionConfig:
    """Width ``d_model`` and head count ``heads`` of one attention sublayer (tab. 3)."""

    d_model: int = 512
    heads: int = 8


ATTENTION_PRESETS = {
    "base": lambda: AttentionConfig(d_model=512, heads=8),
    "big": lambda: AttentionConfig(d_model=1024, heads=16),
}


@register_model("self-attention", ATTENTION_PRESETS)
class SelfAttention(nn.Module):
    """One self-attention sublayer: queries, keys and values are the same sequence."""

    def __init__(self, config: AttentionConfig) -> None:
        super().__init__()
        self.attention = make_attention(config.d_model, config.heads)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``x``: (n, B, d_model) -> (output (n, B, d_model), weights (B, n, n)): a tuple, so a
        ``shapes`` claim says which part it measures with ``field:``."""
        output, weights = self.attention(x, x, x)
        return output, weights


@dataclass(frozen=True)
class BlobConfig:
    """A tiny attention classifier: each input feature is a token of width ``width``."""

    features: int = 2
    classes: int = 3
    width: int = 16
    heads: int = 2


BLOB_PRESETS = {"tiny": lambda: BlobConfig()}


@register_model("blob-classifier", BLOB_PRESETS)
class BlobClassifier(nn.Module):
    """Embed each feature as a token, self-attend, average the tokens, classify."""

    def __init__(self, config: BlobConfig) -> None:
        super().__init__()
        self.embed = nn.Linear(1, config.width)
        self.position = nn.Parameter(torch.zeros(config.features, config.width))
        self.attention = make_attention(config.width, config.heads)
        self.head = nn.Linear(config.width, config.classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: (B, features) -> logits (B, classes)."""
        tokens = (self.embed(x.unsqueeze(-1)) + self.position).transpose(0, 1)  # (F, B, W)
        attended, _ = self.attention(tokens, tokens, tokens)
        return self.head(attended.mean(dim=0))
'''

ATTENTION = '''\
"""Checks and timing factories of the Transformer (arxiv:1706.03762) on torch's attention."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from claimcheck import CheckArgs, Evidence, claim_check, timing_factory
from claimcheck.checks.api import CheckContext
from {package} import registry


@dataclass(frozen=True)
class HeadArgs(CheckArgs):
    """The model width ``d_model`` and the number of ``heads``."""

    d_model: int
    heads: int


@claim_check(args=HeadArgs)
def head_dimension(ctx: CheckContext) -> Evidence:
    """arxiv:1706.03762 §3.2.2: d_k = d_model / h, measured as the width of one head's query
    projection in the attention the registry builds."""
    args = HeadArgs.of(ctx)
    attention = registry.make_attention(args.d_model, args.heads)
    query_rows = attention.in_proj_weight.shape[0] // 3  # W^Q of every head, stacked
    return Evidence(
        measured=query_rows // attention.num_heads,
        details=f"{{attention.num_heads}} head(s) share {{query_rows}} query rows",
    )


@timing_factory
def attention_forward(d_model: int, heads: int, tokens: int, batch: int) -> Callable[[], None]:
    """One forward pass of ``heads``-head self-attention over ``tokens`` tokens, to time."""
    attention = registry.make_attention(d_model, heads).eval()
    x = torch.randn(tokens, batch, d_model, generator=torch.Generator().manual_seed(0))

    def run() -> None:
        with torch.no_grad():
            attention(x, x, x)

    return run
'''

TRAINING = '''\
"""The trainer behind every ``train`` claim (``[tool.claimcheck] trainer``).

It trains the registry's model on a data set this project ships (``data/blobs.csv``: three
clusters of points), once per seed, and returns the plain dict of the trainer contract; the
``train`` check turns it into a mean over seeds with its confidence interval.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from claimcheck import trainer
from claimcheck.checks.api import CheckContext
from {package}.registry import build_model

SPEC_KEYS = ("model", "preset", "epochs", "seeds", "lr")
"""The args a ``train`` claim may give (lint holds a card to these)."""
METRICS = ("accuracy",)
DATA = Path(__file__).parent / "data" / "blobs.csv"
HELD_OUT = 150


def _load() -> tuple[torch.Tensor, torch.Tensor]:
    with DATA.open(encoding="utf-8") as handle:
        rows = [row for row in csv.reader(handle) if row and not row[0].startswith("#")]
    features = torch.tensor([[float(x), float(y)] for x, y, _ in rows])
    return features, torch.tensor([int(label) for _, _, label in rows])


def _accuracy(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        return 100.0 * float((model(x).argmax(dim=1) == y).float().mean())


def _one_seed(
    spec: Mapping[str, Any], seed: int, x: torch.Tensor, y: torch.Tensor
) -> tuple[float, list[dict[str, float]]]:
    torch.manual_seed(seed)
    model = build_model(str(spec["model"]), str(spec["preset"]))
    optimizer = torch.optim.Adam(model.parameters(), lr=float(spec.get("lr", 0.03)))
    train_x, train_y, test_x, test_y = x[HELD_OUT:], y[HELD_OUT:], x[:HELD_OUT], y[:HELD_OUT]
    curve = []
    for epoch in range(1, int(spec.get("epochs", 40)) + 1):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(train_x), train_y)
        loss.backward()
        optimizer.step()
        curve.append({{"epoch": epoch, "loss": float(loss),
                       "metric": _accuracy(model, test_x, test_y)}})
    return _accuracy(model.eval(), test_x, test_y), curve


@trainer
def run_training(spec: Mapping[str, Any], ctx: CheckContext) -> dict[str, Any]:
    """Train on ``data/blobs.csv`` for ``epochs`` full-batch Adam steps per seed."""
    x, y = _load()
    seeds = list(range(int(spec.get("seeds", 3))))
    runs = [_one_seed(spec, seed, x, y) for seed in seeds]
    return {{
        "metric": "accuracy", "per_seed": [accuracy for accuracy, _ in runs], "seeds": seeds,
        "curves": [{{"seed": s, "epochs": curve}} for s, (_, curve) in zip(seeds, runs)],
        "device": "cpu",
        "data": {{"name": "blobs", "split": f"train {{len(x) - HELD_OUT}} / held-out {{HELD_OUT}}",
                 "size": len(x), "origin": "data/blobs.csv, shipped with the project"}},
        "fidelity": "exact",
        "evaluation": {{"examples": HELD_OUT, "chance": 100.0 / 3, "percent": True,
                       "higher_is_better": True}},
        "details": f"{{spec.get('epochs', 40)}} epochs of full-batch Adam per seed",
    }}
'''

VARIANTS = '''\
"""Wrong variants (``[tool.claimcheck] variants``): bugs a claim's check must catch.

``claimcheck verify --power`` runs each verified claim once per variant its ``catches:`` lists,
in a process of its own, and says whether the verdict flipped.
"""

from __future__ import annotations

from torch import nn

from claimcheck import wrong_variant
from {package} import registry


@wrong_variant
def one_head() -> None:
    """Attention built with one head of full width, whatever the head count asked for."""

    def single(d_model: int, heads: int) -> nn.MultiheadAttention:
        return nn.MultiheadAttention(d_model, 1)

    registry.make_attention = single
'''


def blob_rows(count: int = 450, seed: int = 20) -> str:
    """``x,y,label`` rows: three clusters of points around the corners of a triangle.

    The clusters are 6 units apart and each point lies within 1.5 units of its centre, so a
    working classifier separates them; chance is one in three.
    """
    rng = random.Random(seed)
    centres = ((0.0, 3.0), (2.6, -1.5), (-2.6, -1.5))
    lines = ["# x,y,label: three clusters of points (claimcheck init's toy training data)"]
    for index in range(count):
        label = index % 3
        cx, cy = centres[label]
        lines.append(f"{cx + rng.uniform(-1.5, 1.5):.4f},{cy + rng.uniform(-1.5, 1.5):.4f},"
                     f"{label}")
    return "\n".join(lines) + "\n"


def code_files() -> dict[str, str]:
    """The content package's files, by path relative to the project."""
    return {
        f"{PACKAGE}/__init__.py": INIT,
        f"{PACKAGE}/registry.py": REGISTRY,
        f"{PACKAGE}/attention.py": ATTENTION.format(package=PACKAGE),
        f"{PACKAGE}/training.py": TRAINING.format(package=PACKAGE),
        f"{PACKAGE}/variants.py": VARIANTS.format(package=PACKAGE),
        f"{PACKAGE}/data/blobs.csv": blob_rows(),
    }
