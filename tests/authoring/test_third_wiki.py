"""A third newcomer builds a wiki of their own: "Layer Normalization" (Ba, Kiros, Hinton;
arXiv 1607.06450), with a content package ``lnorm/`` of their own (models with one and several
outputs, custom checks, a trainer, a wrong variant).

Each test states what a demanding user expects of ``claimcheck`` and fails where the product
falls short. Everything is written under ``tmp_path``; commands run in-process through
``run_claimcheck`` except where a real terminal (a pty) or the site build is the point.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.inprocess_cli import run_claimcheck

ARXIV = "1607.06450"
LOCATION = re.compile(r"^(?P<path>[^\s:]+\.(?:md|json|toml)):(?P<line>\d+)(?::\d+)?: ")
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


# --------------------------------------------------------------------------------------------
# The user's own project
# --------------------------------------------------------------------------------------------

PYPROJECT = """\
[tool.claimcheck]
wiki = "wiki"
results = ".claimcheck"
import_roots = ["lnorm"]
model_factory = "lnorm.zoo:build"
trainer = "lnorm.fit:fit"
variants = ["lnorm.broken"]
"""

ZOO = '''\
"""The models of the Layer Normalization wiki."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import torch
from torch import nn

from claimcheck import model_factory

_REGISTRY: dict[str, tuple[type, dict[str, Callable[[], Any]]]] = {}


def register_model(name: str, presets: dict[str, Callable[[], Any]]) -> Callable[[type], type]:
    """Register ``name`` with its presets."""

    def decorate(cls: type) -> type:
        _REGISTRY[name] = (cls, presets)
        return cls

    return decorate


@model_factory
def build(name: str, preset: str, **kwargs: Any) -> nn.Module:
    """The registered model, its preset's config with ``kwargs`` overridden."""
    cls, presets = _REGISTRY[name]
    return cls(replace(presets[preset](), **kwargs))


@dataclass(frozen=True)
class LNConfig:
    """``hidden`` units normalised together; ``gain``: learn the per-unit gain and bias."""

    hidden: int = 32
    gain: bool = True


@register_model("ln-mlp", {"tiny": lambda: LNConfig(), "wide": lambda: LNConfig(hidden=64)})
class LNMLP(nn.Module):
    """Linear, layer norm, linear: 8 inputs, 3 classes."""

    def __init__(self, config: LNConfig) -> None:
        super().__init__()
        self.inp = nn.Linear(8, config.hidden)
        self.norm = nn.LayerNorm(config.hidden, elementwise_affine=config.gain)
        self.out = nn.Linear(config.hidden, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.norm(self.inp(x)))


@register_model("ln-tuple", {"tiny": lambda: LNConfig()})
class LNTuple(nn.Module):
    """Returns (normalised, mean) as an annotated tuple."""

    def __init__(self, config: LNConfig) -> None:
        super().__init__()
        self.inp = nn.Linear(8, config.hidden)
        self.norm = nn.LayerNorm(config.hidden)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.inp(x)
        return self.norm(h), h.mean(-1)


@register_model("ln-dict", {"tiny": lambda: LNConfig()})
class LNDict(nn.Module):
    """Returns a dict literal, with no annotation."""

    def __init__(self, config: LNConfig) -> None:
        super().__init__()
        self.inp = nn.Linear(8, config.hidden)
        self.norm = nn.LayerNorm(config.hidden)

    def forward(self, x):
        h = self.inp(x)
        return {"normed": self.norm(h), "mu": h.mean(-1)}


@dataclass
class Stats:
    normed: torch.Tensor
    sigma: torch.Tensor


@register_model("ln-dataclass", {"tiny": lambda: LNConfig()})
class LNDataclass(nn.Module):
    """Returns a dataclass, with no annotation."""

    def __init__(self, config: LNConfig) -> None:
        super().__init__()
        self.inp = nn.Linear(8, config.hidden)
        self.norm = nn.LayerNorm(config.hidden)

    def forward(self, x):
        h = self.inp(x)
        return Stats(self.norm(h), h.std(-1))


class Parts(NamedTuple):
    normed: torch.Tensor
    centred: torch.Tensor


@register_model("ln-namedtuple", {"tiny": lambda: LNConfig()})
class LNNamedTuple(nn.Module):
    """Returns a NamedTuple, annotated."""

    def __init__(self, config: LNConfig) -> None:
        super().__init__()
        self.inp = nn.Linear(8, config.hidden)
        self.norm = nn.LayerNorm(config.hidden)

    def forward(self, x: torch.Tensor) -> Parts:
        h = self.inp(x)
        return Parts(self.norm(h), h - h.mean(-1, keepdim=True))
'''

OPS = '''\
"""The operations the checks test."""

from __future__ import annotations

import torch


def layer_norm(x: torch.Tensor) -> torch.Tensor:
    """arxiv:1607.06450 eq. 3-4: statistics over the hidden units of one example."""
    mu = x.mean(-1, keepdim=True)
    sigma = x.var(-1, unbiased=False, keepdim=True).add(1e-5).sqrt()
    return (x - mu) / sigma


def per_unit_scale(width: int, depth: int) -> float:
    """A helper with a bug: divides by zero when depth is zero."""
    return width / depth
'''

CHECKS = '''\
"""This wiki's custom checks."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from claimcheck import CheckArgs, Evidence, claim_check
from claimcheck.checks.api import CheckContext
from lnorm import ops


@dataclass(frozen=True)
class NormArgs(CheckArgs):
    """A batch of ``batch`` examples of ``width`` hidden units."""

    width: int
    batch: int


@claim_check(args=NormArgs)
def mean_is_zero(ctx: CheckContext) -> Evidence:
    """The largest |mean| over the hidden units after layer norm."""
    args = NormArgs.of(ctx)
    generator = torch.Generator().manual_seed(ctx.seed)
    x = torch.randn(args.batch, args.width, generator=generator) * 5 + 3
    deviation = float(ops.layer_norm(x).mean(-1).abs().max())
    return Evidence(measured=deviation, details=f"max |mean| = {deviation:.3g}")


@claim_check(args=NormArgs)
def scale_ratio(ctx: CheckContext) -> Evidence:
    """Calls a helper that raises."""
    args = NormArgs.of(ctx)
    return Evidence(measured=ops.per_unit_scale(args.width, 0))
'''

BROKEN = '''\
"""Wrong variants of the Layer Normalization wiki."""

from __future__ import annotations

import torch

from claimcheck import wrong_variant
from lnorm import ops


@wrong_variant
def no_centering() -> None:
    """Divides by the standard deviation without subtracting the mean."""

    def scaled(x: torch.Tensor) -> torch.Tensor:
        return x / x.std(-1, keepdim=True)

    ops.layer_norm = scaled
'''

FIT = '''\
"""The trainer behind every ``train`` claim: an LN MLP on generated quadrant data."""

from __future__ import annotations

from typing import Any

import torch

from claimcheck import trainer
from lnorm.zoo import build

SPEC_KEYS = ("model", "preset", "steps", "seeds")


def _accuracy(spec: dict[str, Any], seed: int) -> float:
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    x = torch.randn(600, 8, generator=generator)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
    model = build(spec["model"], spec["preset"])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(int(spec.get("steps", 40))):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x[300:]), y[300:]).backward()
        optimizer.step()
    with torch.no_grad():
        return 100.0 * float((model(x[:300]).argmax(1) == y[:300]).float().mean())


@trainer
def fit(spec: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """Train once per seed; held-out accuracy in percent."""
    seeds = list(range(int(spec.get("seeds", 3))))
    return {"metric": "accuracy", "per_seed": [_accuracy(spec, s) for s in seeds],
            "seeds": seeds, "curves": [], "device": "cpu", "fidelity": "exact",
            "data": {"name": "quadrants", "split": "300 train / 300 held out", "size": 600,
                     "origin": "generated per seed"},
            "evaluation": {"examples": 300, "chance": 100.0 / 3, "percent": True},
            "details": f"{spec.get('steps', 40)} Adam steps per seed"}
'''

PAPER_HEAD = f"""\
---
kind: paper
slug: layer-norm
arxiv: "{ARXIV}"
title: "Layer Normalization"
authors: [Jimmy Lei Ba, Jamie Ryan Kiros, Geoffrey E. Hinton]
year: 2016
updated_at: 2026-12-01
claims:
"""

CLAIMS = """\
  - id: mlp-params
    cite: §3
    basis: implementation
    statement: The tiny LN MLP has 8*32+32 + 2*32 + 32*3+3 = 451 parameters.
    check: params
    args: {model: ln-mlp, preset: tiny}
    expect: {equals: 451}
  - id: normed-shape
    cite: §3
    statement: Layer norm keeps the shape of its input.
    check: shapes
    args: {model: ln-tuple, preset: tiny, input: [4, 8], field: 0}
    expect: {equals: [4, 32]}
  - id: zero-mean
    cite: eq. 3
    basis: implementation
    statement: Layer-normalised units have zero mean over the hidden units of one example.
    check: lnorm.checks:mean_is_zero
    args: {width: 16, batch: 5}
    expect: {at_most: 1.0e-5}
    catches: [no-centering]
  - id: learns
    cite: §6
    basis: wiki
    statement: The wiki's own experiment, an LN MLP learns quadrant labels to 80%.
    check: train
    args: {model: ln-mlp, preset: tiny, steps: 40, seeds: 3}
    expect: {at_least: 80}
"""

PAPER_BODY = """\
---
## Method

Layer norm computes its statistics over the hidden units of one example
[arxiv:1607.06450 eq. 3 #zero-mean].
"""

CONCEPT = f"""\
---
kind: concept
slug: layer-normalization
title: Layer normalization
summary: Normalise each example over its own hidden units.
tags: [normalization]
papers: ["{ARXIV}"]
status: draft
updated_at: 2026-12-01
---
The statistics come from one example's hidden units [arxiv:{ARXIV} eq. 3 #zero-mean].
The tiny network holds 451 parameters [arxiv:{ARXIV} §3 #mlp-params].
"""


def write_package(root: Path) -> None:
    package = root / "lnorm"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Layer normalization content."""\n')
    for name, text in {"zoo.py": ZOO, "ops.py": OPS, "checks.py": CHECKS, "broken.py": BROKEN,
                       "fit.py": FIT}.items():
        (package / name).write_text(text)


def write_cards(root: Path, extra_claims: str = "", *, body: str = PAPER_BODY) -> Path:
    (root / "wiki" / "papers").mkdir(parents=True, exist_ok=True)
    (root / "wiki" / "concepts").mkdir(parents=True, exist_ok=True)
    paper = root / "wiki" / "papers" / "layer-norm.md"
    paper.write_text(PAPER_HEAD + CLAIMS + extra_claims + body)
    (root / "wiki" / "concepts" / "layer-normalization.md").write_text(CONCEPT)
    return paper


def make_project(tmp_path: Path, extra_claims: str = "", *, pyproject: str = PYPROJECT) -> Path:
    root = tmp_path / "ln-wiki"
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(pyproject)
    write_package(root)
    write_cards(root, extra_claims)
    return root


def cc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_claimcheck(root, *args)


def both(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def line_of(path: Path, needle: str) -> int:
    """The 1-based line of the first line of ``path`` containing ``needle``."""
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in text:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def messages_at(output: str, relpath: str, line: int) -> list[str]:
    """The diagnostics lint printed at ``relpath:line``."""
    return [text for text in output.splitlines() if text.startswith(f"{relpath}:{line}:")]


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in both(result), both(result)


# --------------------------------------------------------------------------------------------
# 1. `claimcheck init` anywhere
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", ["Layer Norm (2016)/wiki-ünïcødé", "ABSOLUTE"])
def test_init_writes_a_wiki_that_lints_clean_under_odd_relative_and_absolute_names(
        tmp_path: Path, folder: str) -> None:
    target = str(tmp_path / "abs" / "ln-wiki") if folder == "ABSOLUTE" else folder
    made = cc(tmp_path, "init", target)
    assert made.returncode == 0, both(made)
    project = Path(target) if Path(target).is_absolute() else tmp_path / target
    assert (project / "pyproject.toml").is_file() and (project / ".ci" / "run").is_file()
    linted = cc(project, "lint", "--strict")
    assert linted.returncode == 0, both(linted)
    assert "error" not in both(linted)


def test_init_into_a_non_empty_folder_keeps_what_was_there(tmp_path: Path) -> None:
    folder = tmp_path / "ln-notes"
    folder.mkdir()
    (folder / "reading-list.txt").write_text("Ba et al. 2016\n")
    (folder / "drafts").mkdir()
    (folder / "drafts" / "idea.md").write_text("# not a card\n")
    made = cc(tmp_path, "init", "ln-notes")
    assert made.returncode == 0, both(made)
    assert (folder / "reading-list.txt").read_text() == "Ba et al. 2016\n"
    assert (folder / "drafts" / "idea.md").read_text() == "# not a card\n"
    assert cc(folder, "lint").returncode == 0


def test_init_on_a_file_or_below_one_is_a_one_line_usage_error(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("x\n")
    for target in ("notes.md", "notes.md/wiki"):
        refused = cc(tmp_path, "init", target)
        assert refused.returncode == 2, both(refused)
        no_traceback(refused)
        lines = [text for text in both(refused).splitlines() if text.strip()]
        assert len(lines) == 1 and "notes.md" in lines[0] and "file" in lines[0], lines
    assert (tmp_path / "notes.md").read_text() == "x\n"


def test_init_under_an_unwritable_parent_is_a_one_line_error(tmp_path: Path) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    target = str(parent / "ln-wiki")
    if os.access(parent, os.W_OK):  # root ignores the mode: a folder the kernel refuses instead
        target = "/sys/claimcheck-third-wiki"
    try:
        refused = cc(tmp_path, "init", target)
    finally:
        parent.chmod(0o755)
    assert refused.returncode != 0, both(refused)
    no_traceback(refused)
    lines = [text for text in both(refused).splitlines() if text.strip()]
    assert len(lines) == 1, lines
    assert "claimcheck-third-wiki" in lines[0] or "ln-wiki" in lines[0], lines
    assert not Path(target).exists()


def test_init_refuses_an_existing_project_in_one_line_and_changes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "py-project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "mine"\n')
    refused = cc(tmp_path, "init", "py-project")
    assert refused.returncode == 2, both(refused)
    no_traceback(refused)
    lines = [text for text in both(refused).splitlines() if text.strip()]
    assert len(lines) == 1 and "pyproject.toml" in lines[0] and "overwrite" in lines[0]
    assert (folder / "pyproject.toml").read_text() == '[project]\nname = "mine"\n'
    assert sorted(p.name for p in folder.iterdir()) == ["pyproject.toml"]


def test_init_takes_a_folder_starting_with_a_dash_after_double_dash(tmp_path: Path) -> None:
    made = cc(tmp_path, "init", "--", "-ln-wiki")
    assert made.returncode == 0, both(made)
    assert (tmp_path / "-ln-wiki" / "pyproject.toml").is_file()


def test_init_with_an_empty_folder_name_is_refused_not_written_here(tmp_path: Path) -> None:
    refused = cc(tmp_path, "init", "")
    assert refused.returncode == 2, both(refused)
    no_traceback(refused)
    assert not (tmp_path / "pyproject.toml").exists(), "init '' wrote a project into the cwd"


def test_end_to_end_init_then_my_own_paper_lint_verify_and_strict_site(tmp_path: Path) -> None:
    made = cc(tmp_path, "init", "my-ln-wiki")
    assert made.returncode == 0, both(made)
    root = tmp_path / "my-ln-wiki"
    assert cc(root, "lint", "--strict").returncode == 0
    first = cc(root, "verify", "--budget", "smoke")
    assert first.returncode == 0, both(first)
    assert "contradicted 0, unverified 0" in first.stdout, first.stdout

    # Replace the example with my own paper, as the guide says.
    shutil.rmtree(root / "wiki_checks")
    shutil.rmtree(root / ".claimcheck")
    for card in [*root.glob("wiki/papers/*.md"), *root.glob("wiki/concepts/*.md")]:
        card.unlink()
    (root / "pyproject.toml").write_text(PYPROJECT)
    write_package(root)
    write_cards(root)
    (root / "wiki" / "index.md").write_text(
        "# Layer norm wiki\n\nStart with [layer normalization](concepts/layer-normalization.md)."
        "\n")
    linted = cc(root / "wiki" / "concepts", "lint", "--strict")  # from a subfolder: found upwards
    assert linted.returncode == 0, both(linted)
    verified = cc(root, "verify", "--budget", "smoke")
    assert verified.returncode == 0, both(verified)
    assert "ran 4, up to date 0: verified 4, contradicted 0, unverified 0, stale 0, errors 0" \
        in verified.stdout, verified.stdout
    again = cc(root, "verify")
    assert "ran 0, up to date 4" in again.stdout, again.stdout

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    site = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=root,
                          env=env, capture_output=True, text=True, timeout=300)
    assert site.returncode == 0, site.stdout + site.stderr
    page = (root / "site" / "concepts" / "layer-normalization.html").read_text()
    assert "verified" in page and str(root) not in page


# --------------------------------------------------------------------------------------------
# 2. Lint resolves everything verify will
# --------------------------------------------------------------------------------------------

MULTI = {  # model -> (choices, a misspelt field, what it should be)
    "ln-tuple": (("0", "1"), "2", None),
    "ln-dict": (("normed", "mu"), "normd", "normed"),
    "ln-dataclass": (("normed", "sigma"), "sigm", "sigma"),
    "ln-namedtuple": (("normed", "centred"), "centered", "centred"),
}


def test_lint_refuses_missing_or_wrong_field_on_each_multi_output_model(
        tmp_path: Path) -> None:
    extra = ""
    for model, (_, wrong, _) in MULTI.items():
        extra += f"""\
  - id: {model}-no-field
    cite: §3
    statement: x
    check: shapes
    args: {{model: {model}, preset: tiny, input: [4, 8]}}
    expect: {{equals: [4, 32]}}
  - id: {model}-bad-field
    cite: §3
    statement: x
    check: shapes
    args: {{model: {model}, preset: tiny, input: [4, 8], field: {wrong}}}
    expect: {{equals: [4, 32]}}
"""
    root = make_project(tmp_path, extra)
    paper = root / "wiki" / "papers" / "layer-norm.md"
    result = cc(root, "lint")
    assert result.returncode == 1, both(result)
    rel = "wiki/papers/layer-norm.md"
    for model, (choices, wrong, meant) in MULTI.items():
        missing = messages_at(result.stdout, rel,
                              line_of(paper, f"model: {model}, preset: tiny, input: [4, 8]}}"))
        assert missing and all(c in missing[0] for c in choices), (model, result.stdout)
        assert "field" in missing[0]
        bad = messages_at(result.stdout, rel,
                          line_of(paper, f"input: [4, 8], field: {wrong}}}"))
        assert bad and all(c in bad[0] for c in choices), (model, result.stdout)
        if meant:
            assert f"did you mean '{meant}'" in bad[0], bad


def test_lint_refuses_field_on_a_model_annotated_to_return_one_tensor(tmp_path: Path) -> None:
    """`forward(...) -> torch.Tensor`: lint can read there is nothing to choose, and verify
    errors on it ("has no field 1"); lint should say so first."""
    extra = """\
  - id: single-output-field
    cite: §3
    statement: x
    check: shapes
    args: {model: ln-mlp, preset: tiny, input: [4, 8], field: 1}
    expect: {equals: [4, 3]}
"""
    root = make_project(tmp_path, extra)
    paper = root / "wiki" / "papers" / "layer-norm.md"
    result = cc(root, "lint")
    at = messages_at(result.stdout, "wiki/papers/layer-norm.md", line_of(paper, "field: 1}"))
    assert result.returncode == 1 and at and "field" in at[0], both(result)


OWN_TRAINER = """\
  - id: own-trainer
    cite: §6
    basis: wiki
    statement: x
    check: train
    args: {model: ln-mlp, preset: tiny, steps: 5, seeds: 2, trainer: lnorm.fit:fitt}
    expect: {at_least: 40}
"""


def test_lint_names_a_missing_or_misspelt_trainer_with_its_fix(tmp_path: Path) -> None:
    cases = {  # name -> (pyproject, extra claims, the line's needle)
        "configured-misspelt": (PYPROJECT.replace('"lnorm.fit:fit"', '"lnorm.fit:fitt"'), "",
                                "check: train"),
        "default-absent": (PYPROJECT.replace('trainer = "lnorm.fit:fit"\n', ""), "",
                           "check: train"),
        "claim-misspelt": (PYPROJECT, OWN_TRAINER, "trainer: lnorm.fit:fitt"),
    }
    for case, (pyproject, extra, needle) in cases.items():
        root = make_project(tmp_path / case, extra, pyproject=pyproject)
        paper = root / "wiki" / "papers" / "layer-norm.md"
        result = cc(root, "lint")
        assert result.returncode == 1, (case, both(result))
        at = messages_at(result.stdout, "wiki/papers/layer-norm.md", line_of(paper, needle))
        assert at, (case, result.stdout)
        if case == "default-absent":
            assert "No trainer" in at[0] and "[tool.claimcheck] trainer" in at[0], at
        else:
            assert "did you mean 'fit'" in at[0], (case, at)


def test_lint_reports_every_error_of_one_claim_with_did_you_mean(tmp_path: Path) -> None:
    extra = """\
  - id: everything-wrong
    cite: §3
    basis: implementation
    statement: x
    check: params
    args: {model: ln-mlp, preset: tinny, kwargs: {hiden: 3}}
    expect: {equals: 451.5}
    catches: [no-centring]
  - id: unknown-model
    cite: §3
    statement: x
    check: params
    args: {model: ln-mpl, preset: tiny}
    expect: {equals: 1}
"""
    root = make_project(tmp_path, extra)
    paper = root / "wiki" / "papers" / "layer-norm.md"
    out = cc(root, "lint").stdout
    rel = "wiki/papers/layer-norm.md"
    args_line = messages_at(out, rel, line_of(paper, "preset: tinny"))
    assert any("did you mean 'tiny'" in m for m in args_line), out
    assert any("did you mean 'hidden'" in m for m in args_line), out
    assert messages_at(out, rel, line_of(paper, "451.5")), out
    assert any("did you mean 'no-centering'" in m
               for m in messages_at(out, rel, line_of(paper, "no-centring"))), out
    assert any("did you mean 'ln-mlp'" in m
               for m in messages_at(out, rel, line_of(paper, "ln-mpl"))), out


NEAR_CITATIONS = {  # written -> the citation meant
    "spaces-inside-brackets": ("[ arxiv:1607.06450 eq. 3 ]", "[arxiv:1607.06450 eq. 3]"),
    "table-spelt-out": ("[arxiv:1607.06450 table 1]", "[arxiv:1607.06450 tab. 1]"),
    "comma-after-id": ("[arxiv:1607.06450, eq. 3]", "[arxiv:1607.06450 eq. 3]"),
    "fullwidth-colon": ("[arxiv\uff1a1607.06450 eq. 3]", "[arxiv:1607.06450 eq. 3]"),
    "section-sign-space": ("[arxiv:1607.06450 § 3]", "[arxiv:1607.06450 §3]"),
    "id-missing-a-digit": ("[arxiv:1607.0645 eq. 3]", "[arxiv:1607.06450 eq. 3]"),
    "semicolon-between-locators": ("[arxiv:1607.06450 §3;eq. 3]",
                                   "[arxiv:1607.06450 §3, eq. 3]"),
}


@pytest.mark.parametrize("name", list(NEAR_CITATIONS))
def test_a_near_citation_gets_file_line_and_the_whole_repaired_citation(
        tmp_path: Path, name: str) -> None:
    written, meant = NEAR_CITATIONS[name]
    root = make_project(tmp_path)
    card = root / "wiki" / "concepts" / "near.md"
    card.write_text(CONCEPT.replace("slug: layer-normalization", "slug: near")
                    + f"\nThe mean is taken over the hidden units {written}.\n")
    result = cc(root, "lint")
    at = messages_at(result.stdout, "wiki/concepts/near.md", line_of(card, written))
    assert at, f"nothing reported for {written!r}:\n{result.stdout}"
    assert any(f"did you mean `{meant}`" in m for m in at), at


def test_lint_points_out_template_placeholders_in_every_card_kind(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert cc(root, "new", "concept", "pre-norm-residuals").returncode == 0
    paper = root / "wiki" / "papers" / "layer-norm.md"
    text = paper.read_text().replace('title: "Layer Normalization"', 'title: "<title>"')
    text = text.replace("year: 2016", "year: 2016  # TODO")
    text = text.replace("statement: Layer norm keeps the shape of its input.",
                        'statement: "FIXME: the shape claim"')
    paper.write_text(text)
    (root / "wiki" / "index.md").write_text("# Layer norm\n\nTODO: an introduction.\n")
    out = cc(root, "lint").stdout
    rel = "wiki/papers/layer-norm.md"
    assert messages_at(out, rel, line_of(paper, "<title>")), out
    assert messages_at(out, rel, line_of(paper, "# TODO")), out
    assert messages_at(out, rel, line_of(paper, "FIXME")), out
    assert messages_at(out, "wiki/index.md", 3), out
    concept = root / "wiki" / "concepts" / "pre-norm-residuals.md"
    flagged = [m for m in out.splitlines() if m.startswith("wiki/concepts/pre-norm-residuals.md:")]
    assert len(flagged) >= 2 and all("placeholder" in m for m in flagged), out
    assert concept.is_file()


def test_lint_names_results_no_card_claims_after_a_rename(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    assert cc(root, "verify", "--only", "*mlp-params").returncode == 0
    paper = root / "wiki" / "papers" / "layer-norm.md"
    paper.write_text(paper.read_text().replace("id: mlp-params", "id: mlp-parameter-count"))
    concept = root / "wiki" / "concepts" / "layer-normalization.md"
    concept.write_text(concept.read_text().replace("#mlp-params", "#mlp-parameter-count"))
    out = both(cc(root, "lint"))
    orphan = [m for m in out.splitlines() if "1607.06450__mlp-params.json" in m]
    assert orphan and LOCATION.match(orphan[0]) and "mlp-params" in orphan[0], out


# --------------------------------------------------------------------------------------------
# 3. Messages name the fix
# --------------------------------------------------------------------------------------------

FAILING_CLAIMS = """\
  - id: scale-ratio
    cite: eq. 4
    basis: implementation
    statement: The per-unit scale is finite.
    check: lnorm.checks:scale_ratio
    args: {width: 16, batch: 5}
    expect: {at_most: 1.0}
    catches_note: "a smoke check of the helper"
  - id: wide-params
    cite: §3
    basis: implementation
    statement: The wide LN MLP has 1000 parameters (it does not).
    check: params
    args: {model: ln-mlp, preset: wide}
    expect: {equals: 1000}
"""


def test_an_errored_custom_check_names_its_raising_line_and_debug(tmp_path: Path) -> None:
    root = make_project(tmp_path, FAILING_CLAIMS)
    result = cc(root, "verify", "--only", "*scale-ratio")
    assert result.returncode == 1, both(result)
    line = next(text for text in result.stdout.splitlines() if "scale-ratio" in text
                and "ZeroDivisionError" in text)
    assert f"lnorm/ops.py:{line_of(root / 'lnorm' / 'ops.py', 'return width / depth')}" in line
    assert "--debug" in line
    debug = cc(root, "verify", "--only", "*scale-ratio", "--debug")
    assert "Traceback" in both(debug) and "lnorm/checks.py" in both(debug)


def test_a_contradicted_parameter_count_is_split_by_top_level_submodule(tmp_path: Path) -> None:
    root = make_project(tmp_path, FAILING_CLAIMS)
    result = cc(root, "verify", "--only", "*wide-params")
    line = next(text for text in result.stdout.splitlines() if "wide-params" in text)
    assert "contradicted" in line
    # 8*64+64 = 576, 2*64 = 128, 64*3+3 = 195: 899
    assert "measured 899" in line
    assert all(part in line for part in ("inp 576", "norm 128", "out 195")), line


def test_papers_fetch_answers_non_canonical_ids_with_the_key_to_write(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    for written in ("arXiv:1607.06450", "https://arxiv.org/abs/1607.06450", "1607.06450v3",
                    "arxiv.org/pdf/1607.06450.pdf"):
        refused = cc(root, "papers", "fetch", written)
        assert refused.returncode == 2, (written, both(refused))
        no_traceback(refused)
        assert re.search(r"`(arxiv:)?1607\.06450`", refused.stderr), (written, refused.stderr)


@pytest.mark.parametrize("written", ["layer_norm", "1607.6450", "doi:10.48550/arXiv.1607.06450"])
def test_papers_fetch_points_a_near_miss_to_the_card_that_exists(tmp_path: Path,
                                                                 written: str) -> None:
    """A slug with '_' for '-', an arXiv id missing a digit, arXiv's own DOI of the paper:
    each means the one card the wiki has, `layer-norm` (1607.06450)."""
    root = make_project(tmp_path)
    refused = cc(root, "papers", "fetch", written)
    assert refused.returncode == 2, both(refused)
    no_traceback(refused)
    assert "layer-norm" in refused.stderr or "`1607.06450`" in refused.stderr, refused.stderr


def _mixed_results(tmp_path: Path) -> Path:
    root = make_project(tmp_path, FAILING_CLAIMS + """\
  - id: later
    cite: §6
    basis: reproduction
    statement: The paper's handwriting results.
    unverified: "needs the IAM dataset"
""")
    cc(root, "verify")
    paper = root / "wiki" / "papers" / "layer-norm.md"  # make one stored result stale
    paper.write_text(paper.read_text().replace("{at_most: 1.0e-5}", "{at_most: 2.0e-5}"))
    return root


def test_verify_prints_a_legend_for_every_mark_it_uses(tmp_path: Path) -> None:
    """Every mark that opens a line of verify's report (✓ ✗ ? ⟳) is spelt out in a legend
    line, `MARK word`, in the same report."""
    root = _mixed_results(tmp_path)
    out = cc(root, "verify").stdout
    words = {"✓": "verified", "✗": "contradicted", "?": "unverified", "⟳": "stale"}
    used = set(re.findall(r"^\s*([✓✗?⟳])\s", out, re.M))
    assert {"✓", "✗", "?"} <= used, out
    for mark in used:
        assert re.search(rf"^\s*{re.escape(mark)} {words[mark]}\b", out, re.M), (mark, out)


def test_verify_and_status_counts_agree(tmp_path: Path) -> None:
    root = _mixed_results(tmp_path)
    status_before = cc(root, "status").stdout
    assert "1 stale" in status_before, status_before
    verify = cc(root, "verify").stdout
    status = cc(root, "status").stdout
    last = verify.strip().splitlines()[-1]
    counts = dict((word, int(n)) for word, n in
                  re.findall(r"(verified|contradicted|unverified|stale|errors) (\d+)", last))
    summary = re.search(r"(\d+) verified, (\d+) contradicted, (\d+) unverified; (\d+) stale, "
                        r"(\d+) errored", status)
    assert summary, status
    assert (counts["verified"], counts["contradicted"], counts["unverified"], counts["stale"],
            counts["errors"]) == tuple(int(n) for n in summary.groups()), (last, status)
    as_json = json.loads(cc(root, "verify", "--format", "json").stdout)
    assert sum(c["verdict"] == "verified" for c in as_json) == counts["verified"]
    assert sum(c["verdict"] == "contradicted" for c in as_json) == counts["contradicted"]


def _in_a_pty(root: Path, *args: str, columns: int = 80) -> str:
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = dict(os.environ, COLUMNS=str(columns), TERM="xterm-256color")
    process = subprocess.Popen([sys.executable, "-m", "claimcheck.cli", *args], cwd=root,
                               stdin=child, stdout=child, stderr=child, env=env,
                               close_fds=True)
    os.close(child)
    chunks = []
    while True:
        ready, _, _ = select.select([main], [], [], 120)
        if not ready:
            process.kill()
            break
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode("utf-8", "replace")


def test_at_80_columns_no_line_is_wider_than_80_unless_a_lone_path(tmp_path: Path) -> None:
    root = _mixed_results(tmp_path)
    # a lint warning with a long message too
    (root / "wiki" / "concepts" / "layer-normalization.md").write_text(
        CONCEPT + "\nA long sentence citing a paper without a card [arxiv:2101.12491 tab. 2].\n")
    wide = []
    for args in (("verify", "--force"), ("status",), ("lint",)):
        screen = _in_a_pty(root, *args)
        for raw in re.split(r"\r\n|\n|\r", screen):
            shown = ANSI.sub("", raw)
            lone_path = " " not in shown.strip() and "/" in shown
            if len(shown) > 80 and not lone_path:
                wide.append((args[0], len(shown), shown))
    assert not wide, "\n".join(f"{cmd} {n}: {text}" for cmd, n, text in wide)


# --------------------------------------------------------------------------------------------
# 4. Bad input
# --------------------------------------------------------------------------------------------

def _bomb() -> str:
    text = ("---\nkind: concept\nslug: lol\ntitle: L\nupdated_at: 2026-01-01\n"
            "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
    for level in range(1, 10):
        text += f"x{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 9) + "]\n"
    return text + "---\nbody\n"


MALFORMED = {  # name -> (card text, the line its error must be at)
    "tab-indent": ("---\nkind: concept\nslug: tabbed\n\ttitle: Tabs\nupdated_at: 2026-01-01\n"
                   "---\nbody\n", 4),
    "duplicate-key": ("---\nkind: concept\nslug: dup\ntitle: A\ntitle: B\n"
                      "updated_at: 2026-01-01\n---\nbody\n", 5),
    "alias-bomb": (_bomb(), 7),
    "only-dashes": ("---\n", 1),
    "huge-card": ("---\nkind: concept\nslug: huge\ntitle: H\nupdated_at: 2026-01-01\n"
                  "summary: \"" + "layer norm " * 200_000 + "\"\n---\nbody\n", 1),
    "a-list-not-a-mapping": ("---\n- kind: concept\n- slug: listy\n---\nbody\n", 2),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_front_matter_is_one_line_error_and_the_rest_still_linted(
        tmp_path: Path, name: str) -> None:
    text, line = MALFORMED[name]
    root = make_project(tmp_path)
    (root / "wiki" / "bad").mkdir()
    (root / "wiki" / "bad" / "card.md").write_text(text)
    (root / "wiki" / "concepts" / "other.md").write_text(
        CONCEPT.replace("slug: layer-normalization", "slug: other")
        .replace("status: draft", "statu: draft"))
    result = cc(root, "lint")
    assert result.returncode == 1, both(result)
    no_traceback(result)
    errors = [m for m in result.stdout.splitlines() if m.startswith("wiki/bad/card.md:")]
    assert len(errors) == 1 and errors[0].startswith(f"wiki/bad/card.md:{line}:"), result.stdout
    assert "error" in errors[0] and len(errors[0]) < 300
    other = [m for m in result.stdout.splitlines() if m.startswith("wiki/concepts/other.md:8:")]
    assert other and "did you mean 'status'" in other[0], result.stdout


def test_bom_and_crlf_cards_load_and_keep_their_line_numbers(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    concept = CONCEPT.replace("slug: layer-normalization", "slug: crlf")
    (root / "wiki" / "concepts" / "crlf.md").write_bytes(concept.replace("\n", "\r\n")
                                                         .encode("utf-8"))
    (root / "wiki" / "concepts" / "bom.md").write_bytes(
        b"\xef\xbb\xbf" + CONCEPT.replace("slug: layer-normalization", "slug: bom").encode())
    clean = cc(root, "lint")
    assert clean.returncode == 0, both(clean)
    broken = concept.replace("status: draft", "stauts: draft").replace("\n", "\r\n")
    (root / "wiki" / "concepts" / "crlf.md").write_bytes(broken.encode())
    bom = CONCEPT.replace("slug: layer-normalization", "slug: bom").replace("tags:", "tgas:")
    (root / "wiki" / "concepts" / "bom.md").write_bytes(b"\xef\xbb\xbf" + bom.encode())
    out = cc(root, "lint").stdout
    assert any("did you mean 'status'" in m for m in messages_at(out, "wiki/concepts/crlf.md", 8))
    assert any("did you mean 'tags'" in m for m in messages_at(out, "wiki/concepts/bom.md", 6))


def test_wrong_types_are_one_line_errors_that_name_the_type(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "wiki" / "papers" / "typed.md").write_text("""\
---
kind: paper
slug: typed
arxiv: "1607.06451"
title: Typed
authors: Jimmy Ba
year: "2016"
updated_at: 2026-01-01
claims: 5
---
""")
    (root / "wiki" / "concepts" / "numbers.md").write_text("""\
---
kind: concept
slug: numbers
title: [1, 2]
updated_at: 2026-01-01
---
body
""")
    result = cc(root, "lint")
    assert result.returncode == 1
    no_traceback(result)
    out = result.stdout
    assert any("list" in m for m in messages_at(out, "wiki/papers/typed.md", 6)), out
    assert any("integer" in m for m in messages_at(out, "wiki/papers/typed.md", 7)), out
    assert any("list" in m for m in messages_at(out, "wiki/papers/typed.md", 9)), out
    title = messages_at(out, "wiki/concepts/numbers.md", 4)
    # quoting the numbers would not help: a title is one string, not a list
    assert title and any("string" in m for m in title), title
    assert not any('write it in quotes' in m for m in title), title


def test_unknown_keys_at_every_level_get_did_you_mean(tmp_path: Path) -> None:
    extra = """\
  - id: typos
    cite: eq. 3
    basis: implementation
    statment: x
    check: lnorm.checks:mean_is_zero
    args: {widht: 16, batch: 5}
    expect: {at_mots: 1.0e-5}
    catchez: [no-centering]
"""
    root = make_project(tmp_path, extra)
    paper = root / "wiki" / "papers" / "layer-norm.md"
    paper.write_text(paper.read_text().replace("updated_at:", "updatd_at: 2026-12-01\nupdated_at:"))
    result = cc(root, "lint")
    assert result.returncode == 1
    out = result.stdout
    rel = "wiki/papers/layer-norm.md"
    for needle, meant in (("updatd_at", "updated_at"), ("statment", "statement"),
                          ("widht", "width"), ("at_mots", "at_most"), ("catchez", "catches")):
        at = messages_at(out, rel, line_of(paper, needle))
        assert any(f"did you mean '{meant}'" in m for m in at), (needle, out)
