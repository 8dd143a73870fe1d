"""A second wiki, start to finish (issue 35): a new user's wiki about "Matrix capsules with EM
routing" (OpenReview HJWLfGWRb), with its own model registry, custom check, shapes claim and
training claim, written outside this repository. Lint must resolve what verify will, and each
message must name the fix."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.cli.main import main
from claimcheck.core.exitcodes import ExitCode

PYPROJECT = """\
[tool.claimcheck]
import_roots = ["em"]
model_factory = "em.registry:build_model"
trainer = "em.train:run_training"
"""

REGISTRY = '''\
"""Matrix capsules with EM routing, at the size of a test."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import nn

from claimcheck import model_factory

_MODELS: dict[str, Any] = {}


def register_model(name: str, presets: dict[str, Any]) -> Any:
    def decorate(cls: Any) -> Any:
        _MODELS[name] = (cls, presets)
        return cls
    return decorate


@model_factory
def build_model(name: str, preset: str, **kwargs: Any) -> nn.Module:
    cls, presets = _MODELS[name]
    return cls(replace(presets[preset](), **kwargs))


@dataclass(frozen=True)
class EMConfig:
    A: int = 8
    B: int = 4
    classes: int = 5


PRESETS = {"smallnorb": lambda: EMConfig()}


@register_model("matrix-capsnet", PRESETS)
class MatrixCapsNet(nn.Module):
    def __init__(self, config: EMConfig) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, config.A, 5, stride=2)
        self.primary_caps = nn.Conv2d(config.A, config.B * 17, 1)
        self.class_caps = nn.Linear(config.B * 17, config.classes * 17)
        self.classes = config.classes

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(activations (B, classes), poses (B, classes, 16))."""
        h = self.primary_caps(torch.relu(self.conv1(x))).mean(dim=(2, 3))
        out = self.class_caps(h).view(x.shape[0], self.classes, 17)
        return torch.sigmoid(out[..., 0]), out[..., 1:]
'''

CHECKS = '''\
"""This wiki's custom checks."""
from __future__ import annotations

from dataclasses import dataclass

from claimcheck import CheckArgs, Evidence, claim_check
from claimcheck.checks.api import CheckContext


@dataclass(frozen=True)
class IterationArgs(CheckArgs):
    iterations: int


@claim_check(args=IterationArgs)
def routing_iterations(ctx: CheckContext) -> Evidence:
    """The number of EM iterations the routing runs."""
    return Evidence(measured=IterationArgs.of(ctx).iterations)


@claim_check
def broken(ctx: CheckContext) -> Evidence:
    """A check whose helper raises."""
    return Evidence(measured=_helper())


def _helper() -> int:
    raise ValueError("the routing diverged")
'''

TRAIN = '''\
"""A ten-line trainer: the contract's dict, measured on nothing but arithmetic."""
from __future__ import annotations

from typing import Any

from claimcheck import trainer

SPEC_KEYS = ("model", "preset", "seeds")


@trainer
def run_training(spec: dict[str, Any], ctx: Any) -> dict[str, Any]:
    seeds = list(range(int(spec.get("seeds", 2))))
    return {"metric": "accuracy", "per_seed": [97.0 + s for s in seeds], "seeds": seeds,
            "curves": [], "device": "cpu", "fidelity": "exact", "details": "arithmetic",
            "data": {"name": "none", "split": "-", "size": 0, "origin": "the test"}}
'''

PAPER = """\
---
kind: paper
slug: em-routing
openreview: HJWLfGWRb
title: "Matrix capsules with EM routing"
authors: [Geoffrey Hinton, Sara Sabour, Nicholas Frosst]
year: 2018
updated_at: 2026-12-01
claims:
  - id: iterations
    cite: §3.1
    basis: implementation
    statement: EM routing runs three iterations.
    check: em.checks:routing_iterations
    args: {iterations: 3}
    expect: {equals: 3}
  - id: params
    cite: §4
    statement: The network has 2,000 parameters.
    check: params
    args: {model: matrix-capsnet, preset: smallnorb}
    expect: {approx: 2000, rel_tol: 0.01}
  - id: class-poses
    cite: §4
    statement: Each class capsule holds a 4x4 pose matrix.
    check: shapes
    args: {model: matrix-capsnet, preset: smallnorb, input: [2, 1, 32, 32], field: 1}
    expect: {equals: [2, 5, 16]}
  - id: smallnorb-accuracy
    cite: tab. 1
    statement: A short run reaches at least 90% accuracy.
    check: train
    args: {model: matrix-capsnet, preset: smallnorb, seeds: 2}
    expect: {at_least: 90}
---
## Method
"""

CONCEPT = """\
---
kind: concept
slug: em-routing-idea
title: EM routing
summary: >-
  Routing by agreement, fitted as a mixture of Gaussians.
papers: ["openreview:HJWLfGWRb"]
updated_at: 2026-12-01
---
Routing runs for three iterations [openreview:HJWLfGWRb §3.1].
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def em_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("em") / "em-wiki"
    _write(root, {"pyproject.toml": PYPROJECT, "em/__init__.py": "", "em/registry.py": REGISTRY,
                  "em/checks.py": CHECKS, "em/train.py": TRAIN,
                  "wiki/papers/em-routing.md": PAPER,
                  "wiki/concepts/em-routing-idea.md": CONCEPT})
    return root


@pytest.fixture
def em(em_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh copy of the EM wiki as the working folder (tests change it)."""
    root = tmp_path / "em-wiki"
    shutil.copytree(em_template, root)
    monkeypatch.chdir(root)
    yield root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _lint(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["lint", "wiki", *extra])
    return code, capsys.readouterr().out


def test_the_em_wiki_lints_clean(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _lint(capsys, "--strict")
    assert code == ExitCode.OK, out
    assert "error" not in out and "warning" not in out, out


def test_lint_names_the_missing_trainer(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (em / "em" / "train.py").unlink()
    code, out = _lint(capsys)
    assert code == ExitCode.CHECK_ERRORS
    line = next(n for n, text in enumerate(PAPER.splitlines(), 1) if "check: train" in text)
    assert (f"wiki/papers/em-routing.md:{line}:12: error: claim 'smallnorb-accuracy': No "
            "trainer: set `[tool.claimcheck] trainer` or give `trainer:` in args; "
            "`em.train:run_training`") in out, out


def test_lint_names_the_default_trainer_nobody_configured(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "pyproject.toml", 'trainer = "em.train:run_training"\n', "")
    code, out = _lint(capsys)
    assert code == ExitCode.CHECK_ERRORS
    assert "No trainer: set `[tool.claimcheck] trainer`" in out
    assert "`models.training:run_training` (the default)" in out, out


def test_a_near_miss_citation_is_a_located_warning_with_the_citation_meant(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    concept = em / "wiki" / "concepts" / "em-routing-idea.md"
    _edit(concept, "[openreview:HJWLfGWRb §3.1].", "[openreview:HJWLfGWRb §3.1].\nThe "
          "poses are 4x4 matrices [openreview HJWLfGWRb §3.1]; `[openreview X §1]` is code.")
    for extra in ((), ("--strict",)):
        code, out = _lint(capsys, *extra)
        assert code == ExitCode.OK, out
        assert ("wiki/concepts/em-routing-idea.md:11:28: warning: '[openreview HJWLfGWRb §3.1]' "
                "looks like a citation but is not one") in out, out
        assert "did you mean `[openreview:HJWLfGWRb §3.1]`?" in out
        assert out.count("looks like a citation") == 1


@pytest.mark.parametrize("text, meant", [
    ("[arxv:2101.12491 §3]", "[arxiv:2101.12491 §3]"),
    ("[2101.12491 tab. 2]", "[arxiv:2101.12491 tab. 2]"),
    ("[OpenReview HJWLfGWRb, §3.1]", "[openreview:HJWLfGWRb §3.1]"),
    ("[doi=10.1038/s41598-021-93977-0 fig. 4]", "[doi:10.1038/s41598-021-93977-0 fig. 4]"),
])
def test_near_miss_forms(text: str, meant: str) -> None:
    from claimcheck.cards.citations import scan_citations

    citations, problems = scan_citations(f"Prose {text} and [see p. 3], [arxiv papers].", "x.md")
    assert citations == [] and len(problems) == 1 and problems[0].warning
    assert problems[0].hint == f"did you mean `{meant}`?"


def test_a_shapes_claim_on_a_tuple_output_needs_a_field(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "wiki" / "papers" / "em-routing.md", "input: [2, 1, 32, 32], field: 1}",
          "input: [2, 1, 32, 32]}")
    code, out = _lint(capsys)
    assert code == ExitCode.CHECK_ERRORS
    assert "args: model 'matrix-capsnet' returns 2 tensors: give field:, one of 0, 1" in out


def test_verify_never_measures_element_zero_in_silence(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "wiki" / "papers" / "em-routing.md", "input: [2, 1, 32, 32], field: 1}",
          "input: [2, 1, 32, 32]}")
    main(["verify", "wiki", "--only", "*/class-poses", "--format", "json", "--device", "cpu"])
    row = json.loads(capsys.readouterr().out)[0]
    assert row["verdict"] == "unverified" and row["errored"]
    assert "has 2 tensors: give args.field, one of 0 [2, 5], 1 [2, 5, 16]" in row["reason"]


def test_a_model_nothing_defines_is_reported_without_a_registry(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "em" / "registry.py", '@register_model("matrix-capsnet", PRESETS)\n',
          'NAME = "matrix-capsnet"  # registered by a loop lint cannot read\n')
    _edit(em / "wiki" / "papers" / "em-routing.md", "rel_tol: 0.01}",
          "rel_tol: 0.01}\n  - id: other\n    cite: §4\n    statement: S.\n    check: params"
          "\n    args: {model: matrix-capsule-net, preset: smallnorb}\n    expect: {equals: 1}")
    _, out = _lint(capsys)
    assert "warning: args: model 'matrix-capsule-net' appears nowhere in the model factory's "\
        "source" in out, out
    assert "'matrix-capsnet' appears" not in out  # a string the factory's source holds


def test_a_contradicted_count_and_an_errored_check_name_where_to_look(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "wiki" / "papers" / "em-routing.md", "  - id: smallnorb-accuracy",
          "  - id: broken\n    cite: §3\n    basis: implementation\n    statement: S.\n"
          "    check: em.checks:broken\n    expect: {equals: 1}\n  - id: smallnorb-accuracy")
    code = main(["verify", "wiki", "--only", "*/params", "--only", "*/broken", "--device", "cpu"])
    out = " ".join(capsys.readouterr().out.split())
    assert code == ExitCode.CHECK_ERRORS
    assert "openreview:HJWLfGWRb/params paper-vs-code contradicted" in out
    assert "by top-level submodule: class_caps 5,865, primary_caps 612, conv1 208" in out
    raising = next(n for n, text in enumerate(CHECKS.splitlines(), 1) if "raise " in text)
    assert f"raised at em/checks.py:{raising} (_helper); `--debug` shows the traceback" in out
    assert "The network has 2,000 parameters." not in out  # compact: the card has it
    main(["verify", "wiki", "--only", "*/params", "--verbose"])
    assert "The network has 2,000 parameters." in capsys.readouterr().out


def test_verify_explains_its_marks(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "wiki" / "papers" / "em-routing.md", "    expect: {approx: 2000, rel_tol: 0.01}",
          "    expect: {approx: 2000, rel_tol: 0.01}\n    secondary_source: a blog post")
    main(["verify", "wiki", "--only", "*/params", "--device", "cpu"])
    out = capsys.readouterr().out
    assert "paper-vs-code† contradicted" in " ".join(out.split())
    assert "†: the claim's locator or figure rests on a secondary source" in out


def test_placeholders_in_every_card_kind(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(em / "wiki" / "papers" / "em-routing.md", "year: 2018", "year: 2026  # TODO")
    assert main(["new", "concept", "fresh-idea"]) == ExitCode.OK
    _, out = _lint(capsys)
    assert ("wiki/papers/em-routing.md:7:15: warning: placeholder left by `claimcheck new`: "
            "TODO") in out
    assert "wiki/concepts/fresh-idea.md:6:3: warning: placeholder left by `claimcheck new`: One "\
        "paragraph" in out
    assert "fresh-idea.md:15:1: warning: placeholder left by `claimcheck new`: Explain" in out


def test_a_result_no_card_claims_is_reported(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["verify", "wiki", "--only", "*/iterations", "--device", "cpu"])
    _edit(em / "wiki" / "papers" / "em-routing.md", "id: iterations", "id: em-iterations")
    capsys.readouterr()
    _, out = _lint(capsys)
    assert (".claimcheck/results/openreview-HJWLfGWRb__iterations.json:1:1: warning: a result "
            "that no card claims") in out, out


def test_no_error_hides_another(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A claim that fails validation (an unknown expect key) still has its locator, its check
    reference and its model names judged; a schema error of args hides no model name."""
    _edit(em / "wiki" / "papers" / "em-routing.md", "    cite: §3.1\n",
          "    cite: section 3.1\n")
    _edit(em / "wiki" / "papers" / "em-routing.md", "expect: {equals: 3}", "expect: {eqals: 3}")
    _edit(em / "wiki" / "papers" / "em-routing.md", "check: em.checks:routing_iterations",
          "check: em.checks:routing_iteration")
    _edit(em / "wiki" / "papers" / "em-routing.md", "{model: matrix-capsnet, preset: smallnorb}",
          "{model: matrix-capsnt, preset: smallnorb, exclud: [conv1]}")
    _, out = _lint(capsys)
    for expected in ("malformed claim locator 'section 3.1'", "unknown key 'eqals'",
                     "names function 'routing_iteration', not found",
                     "unknown model 'matrix-capsnt' (did you mean 'matrix-capsnet'?)",
                     "unknown key 'exclud' (did you mean 'exclude'?)"):
        assert expected in out, (expected, out)


def test_papers_fetch_suggests_the_other_schemes(
        em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papers", "fetch", "HJWLfGWRb"]) == ExitCode.USAGE
    assert "did you mean `openreview:HJWLfGWRb`?" in capsys.readouterr().err
    assert main(["papers", "fetch", "10.1038/s41598-021-93977-0"]) == ExitCode.USAGE
    assert "`doi:10.1038/s41598-021-93977-0`" in capsys.readouterr().err


def test_status_and_verify_count_alike(em: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["verify", "wiki", "--device", "cpu", "--only", "*/iterations", "--only", "*/params"])
    verify_summary = capsys.readouterr().out.strip().splitlines()[-1]
    main(["status", "wiki", "--only", "*/iterations", "--only", "*/params"])
    status = capsys.readouterr().out
    assert "verified 1, contradicted 1" in verify_summary
    assert "2 claim(s): 1 verified, 1 contradicted" in status
