"""A throw-away claimcheck project for the engine tests: its own tiny wiki and model package.

The package is called ``tinymodels`` (not ``models``) so that it can never be confused with the
repository's real content, and its networks are small enough that a check takes milliseconds.
"""

from __future__ import annotations

import datetime as dt
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]

PYPROJECT = """\
[tool.claimcheck]
wiki = "wiki"
results = ".claimcheck"
import_roots = ["tinymodels"]
model_factory = "tinymodels.registry:build_model"
trainer = "tinymodels.training:run_training"
"""

NETS = '''\
"""Tiny networks whose parameter counts are easy to derive by hand."""
import torch
from torch import nn

from claimcheck import model_factory


class TinyNet(nn.Module):
    """x (B, 8) -> encoder (B, width) -> head (B, 2); a decoder and a frozen layer on the side."""

    def __init__(self, width: int = 4) -> None:
        super().__init__()
        self.encoder = nn.Linear(8, width)
        self.head = nn.Linear(width, 2)
        self.decoder = nn.Linear(2, 8)
        self.frozen = nn.Linear(2, 2)
        self.frozen.requires_grad_(False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.encoder(x)
        return self.head(hidden), hidden


@model_factory
def tiny(width: int = 4) -> TinyNet:
    return TinyNet(width)
'''

REGISTRY = '''\
"""build_model(name, preset, **overrides) for the test project."""
from claimcheck import model_factory
from tinymodels.nets import TinyNet

PRESETS = {"tiny": {"small": {"width": 4}, "wide": {"width": 16}}}


@model_factory
def build_model(name, preset, **overrides):
    return TinyNet(**{**PRESETS[name][preset], **overrides})
'''

TIMERS = '''\
"""Factories of zero-argument callables for the timing kind."""
import time

from claimcheck import timing_factory


@timing_factory
def sleeper(seconds):
    return lambda: time.sleep(seconds)
'''

CHECKS = '''\
"""Custom checks, well-behaved and badly-behaved."""
import os
import signal
import time
from dataclasses import dataclass

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import DataUnavailable, Evidence


@dataclass(frozen=True)
class Told(CheckArgs):
    value: bool = True


@claim_check(args=Told)
def holds(ctx):
    return Evidence(measured=bool(ctx.args.get("value", True)), details="as told")


@claim_check
def reports_progress(ctx):
    for step in range(3):
        ctx.progress(f"step {step + 1}/3", (step + 1) / 3)
        time.sleep(0.06)
    return Evidence(measured=True)


@claim_check
def raises(ctx):
    raise RuntimeError("boom in the check")


@claim_check
def hangs(ctx):
    time.sleep(600)
    return Evidence(measured=True)


@claim_check
def exits(ctx):
    os._exit(3)


@claim_check
def kills_itself(ctx):
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(5)
    return Evidence(measured=True)


@claim_check
def no_data(ctx):
    raise DataUnavailable("dataset not available: tiny-blobs")


@claim_check
def torch_threads(ctx):
    import torch

    return Evidence(measured=torch.get_num_threads())
'''

TRAINING = '''\
"""A trainer that follows the trainer contract: logistic regression on separable blobs."""
import torch

from claimcheck import trainer


@trainer
def run_training(spec, ctx):
    generator = torch.Generator().manual_seed(ctx.seed)
    x = torch.randn(64, 2, generator=generator)
    y = (x[:, 0] + x[:, 1] > 0).long()
    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    epochs = []
    for epoch in range(1, int(spec.get("epochs", 2)) + 1):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        accuracy = float((model(x).argmax(1) == y).float().mean()) * 100
        epochs.append({"epoch": epoch, "loss": float(loss), "metric": accuracy, "seconds": 0.0})
        ctx.progress(f"epoch {epoch}", None)
    return {
        "metric": "accuracy", "per_seed": [accuracy], "seeds": [ctx.seed],
        "curves": [{"seed": ctx.seed, "epochs": epochs}], "images_per_second": 0.0,
        "device": ctx.device,
        "data": {"name": "blobs-64", "split": "train = test", "size": 64, "origin": "generated"},
        "schedule": {"name": "sgd", "epochs": len(epochs)}, "fidelity": "proxy",
        "details": "logistic regression on 64 separable points",
    }
'''

FILES = {
    "pyproject.toml": PYPROJECT,
    "tinymodels/__init__.py": "",
    "tinymodels/nets.py": NETS,
    "tinymodels/registry.py": REGISTRY,
    "tinymodels/timers.py": TIMERS,
    "tinymodels/checks.py": CHECKS,
    "tinymodels/training.py": TRAINING,
    "tinymodels/unrelated.py": "VALUE = 1\n",
}


class _PlainDumper(yaml.SafeDumper):
    """Cards forbid YAML aliases, so shared dicts are written out each time."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def paper_card(arxiv: str, slug: str, claims: Sequence[Mapping[str, Any]]) -> str:
    """A valid paper card registering ``claims``."""
    front = {
        "kind": "paper", "slug": slug, "arxiv": arxiv, "title": f"Paper {slug}",
        "authors": ["A. Author"], "year": 2021,
        "updated_at": dt.date(2026, 11, 29), "claims": [dict(c) for c in claims],
    }
    body = yaml.dump(front, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True)
    return f"---\n{body}---\nA tiny paper used by the engine tests.\n"


def claim(claim_id: str, check: str, expect: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """A claim mapping with a statement and a locator filled in."""
    return {
        "id": claim_id, "cite": "tab. 1", "statement": f"Statement of {claim_id}.",
        "check": check, **extra, "expect": dict(expect),
    }


ProjectFactory = Callable[[dict[str, Sequence[Mapping[str, Any]]]], Path]


def write_project(root: Path, papers: dict[str, Sequence[Mapping[str, Any]]]) -> Path:
    """Write the tiny project under ``root`` with one paper card per arXiv id in ``papers``."""
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    for number, (arxiv, claims) in enumerate(papers.items()):
        card = root / "wiki" / "papers" / f"paper-{number}.md"
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(paper_card(arxiv, f"paper-{number}", claims), encoding="utf-8")
    return root


@pytest.fixture
def make_project(tmp_path: Path) -> ProjectFactory:
    """Build a tiny project in a fresh folder and return its root."""
    return lambda papers: write_project(tmp_path / "project", papers)
