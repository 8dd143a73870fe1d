"""Helpers for the engine-core tests: temporary projects, results, and child Python processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from claimcheck.cards.frontmatter import Claim
from claimcheck.core.config import ProjectConfig, load_config
from claimcheck.store.results import Result
from claimcheck.verdicts.verdict import Verdict

REPO = Path(__file__).resolve().parents[2]

PYPROJECT = """\
[project]
name = "mini-wiki"
version = "0"

[tool.claimcheck]
wiki = "wiki"
import_roots = ["models"]
model_factory = "models.registry:build_model"
trainer = "models.training:run_training"
"""

# A miniature content tree: two model families behind a registry that imports them by name,
# two custom checks each importing one family, and a file nothing depends on.
PROJECT_FILES: dict[str, str] = {
    "models/__init__.py": "",
    "models/registry.py": """
        import importlib
        from models import layers
        FAMILY_MODULES = ("models.alpha_net", "models.beta_net")

        def build_model(name, preset, **overrides):
            for module in FAMILY_MODULES:
                importlib.import_module(module)
    """,
    "models/layers.py": "def squash(x):\n    return x\n",
    "models/alpha_net.py": "from .layers import squash\nWIDTH = 8\n",
    "models/beta_net.py": "from models.layers import squash\nWIDTH = 16\n",
    "models/training.py": """
        from models.registry import build_model

        def run_training(spec, ctx):
            return {}
    """,
    "models/unrelated.py": "NOTE = 'nothing imports me'\n",
    "models/checks/__init__.py": "",
    "models/checks/alpha_checks.py": """
        from claimcheck import claim_check, timing_factory
        from models import alpha_net

        @claim_check
        def width_is_eight(ctx):
            return alpha_net.WIDTH == 8

        @timing_factory
        def alpha_timer():
            return lambda: alpha_net.WIDTH

        def _helper():
            return None
    """,
    "models/checks/beta_checks.py": """
        import models.beta_net
        from claimcheck import claim_check

        @claim_check
        def width_is_sixteen(ctx):
            return models.beta_net.WIDTH == 16
    """,
    "wiki/papers/.keep": "",
}


@dataclass
class MiniProject:
    """A project under tmp_path with pyproject.toml, wiki/ and models/."""

    root: Path
    config: ProjectConfig
    files: dict[str, str] = field(default_factory=dict)

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def append(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> MiniProject:
    root = tmp_path / "mini"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    mini = MiniProject(root, load_config(root))
    for relative, text in PROJECT_FILES.items():
        mini.write(relative, text)
    return mini


def _make_claim(**fields: Any) -> Claim:
    data: dict[str, Any] = {
        "id": "c", "cite": "tab. 1", "statement": "a statement", "check": "params",
        "expect": {"equals": 1},
    }
    data.update(fields)
    return Claim.model_validate(data)


def _make_result(claim: str = "2101.12491/mnist-params", **fields: Any) -> Result:
    values: dict[str, Any] = {
        "claim": claim, "card": "wiki/papers/efficient-capsnet.md", "line": 23,
        "statement": "161k parameters", "cite": ["tab. 2"], "check": "params",
        "tier": "static", "budget": "smoke", "verdict": Verdict.VERIFIED, "reason": "",
        "measured": 161824, "expected": {"approx": 161000, "rel_tol": 0.005},
        "fidelity": "exact", "fingerprint": "f" * 64,
    }
    values.update(fields)
    return Result(**values)


def _run_python(code: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter that can import claimcheck from this checkout."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=REPO, capture_output=True, text=True, timeout=timeout,
    )


ClaimFactory = Callable[..., Claim]
ResultFactory = Callable[..., Result]
PythonRunner = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def make_claim() -> ClaimFactory:
    """A :class:`Claim` with defaults; keyword arguments override card fields."""
    return _make_claim


@pytest.fixture
def make_result() -> ResultFactory:
    """A verified :class:`Result` of ``2101.12491/mnist-params``; keywords override fields."""
    return _make_result


@pytest.fixture
def run_python() -> PythonRunner:
    """Run code in a fresh interpreter (clean ``sys.modules``) from this checkout."""
    return _run_python


PAPER_CARD = """\
---
kind: paper
slug: mini-paper
arxiv: "2101.00001"
title: A Mini Paper
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: alpha-width
    cite: eq. 1
    statement: The alpha network is eight wide.
    check: models.checks.alpha_checks:width_is_eight
    expect: {holds: true}
  - id: beta-width
    cite: eq. 2
    statement: The beta network is sixteen wide.
    check: models.checks.beta_checks:width_is_sixteen
    expect: {holds: true}
  - id: alpha-params
    cite: tab. 1
    statement: The alpha network has 100 parameters.
    check: params
    args: {model: alpha, preset: small}
    expect: {approx: 100, rel_tol: 0.01}
  - id: alpha-speed
    cite: tab. 2
    statement: Alpha is as fast as itself.
    check: timing
    args: {a: "models.checks.alpha_checks:alpha_timer", b: "models.checks.alpha_checks:_helper"}
    expect: {at_most: 1.5}
  - id: alpha-accuracy
    cite: tab. 3
    statement: Alpha reaches 99% accuracy.
    check: train
    args: {model: alpha, preset: small, dataset: mnist}
    expect: {at_least: 99}
  - id: by-hand
    cite: §4
    statement: Not checkable here.
    unverified: the experiment needs data we do not have
---

# A mini paper
"""


def _card_project(project: MiniProject) -> MiniProject:
    project.write("wiki/papers/mini-paper.md", PAPER_CARD)
    return project


@pytest.fixture
def card_project(project: MiniProject) -> MiniProject:
    """The mini project with one paper card whose claims depend on different model files."""
    return _card_project(project)
