"""A newcomer's second wiki, written from scratch: "Squeeze-and-Excitation Networks"
(arXiv 1709.01507), with its own content package ``sewiki`` (a model zoo whose models return a
tensor, a tuple, a dataclass, a NamedTuple and a dict; a custom check; a check whose helper
raises; a trainer). Every test asserts what a demanding user expects: lint resolves everything
verify will, every message is located and names its fix, bad input never gives a traceback,
and ``claimcheck init`` works for any folder a user may type."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shlex
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
import yaml

from tests.inprocess_cli import run_claimcheck

PYPROJECT = """\
[tool.claimcheck]
wiki = "wiki"
results = ".claimcheck"
import_roots = ["sewiki"]
model_factory = "sewiki.zoo:make"
trainer = "sewiki.fit:fit"
"""

ZOO = '''\
"""Squeeze-and-excitation models, at the size of a test."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import torch
from torch import nn

from claimcheck import model_factory

_ZOO: dict[str, Any] = {}


def register_model(name: str, presets: dict[str, Any]) -> Any:
    def put(cls: Any) -> Any:
        _ZOO[name] = (cls, presets)
        return cls
    return put


@model_factory
def make(name: str, preset: str, **kwargs: Any) -> nn.Module:
    cls, presets = _ZOO[name]
    return cls(replace(presets[preset](), **kwargs))


@dataclass(frozen=True)
class SEConfig:
    channels: int = 12
    reduction: int = 4


@dataclass
class SEOut:
    scaled: torch.Tensor
    gates: torch.Tensor


class Parts(NamedTuple):
    pooled: torch.Tensor
    weights: torch.Tensor


@register_model("se-block", {"c12": lambda: SEConfig()})
class SEBlock(nn.Module):
    """Squeeze (global average), excite (bottleneck MLP), scale: a dataclass out."""

    def __init__(self, config: SEConfig) -> None:
        super().__init__()
        hidden = config.channels // config.reduction
        self.squeeze = nn.Linear(config.channels, hidden)
        self.excite = nn.Linear(hidden, config.channels)

    def forward(self, x: torch.Tensor) -> SEOut:
        g = torch.sigmoid(self.excite(torch.relu(self.squeeze(x.mean(dim=(2, 3))))))
        return SEOut(x * g[:, :, None, None], g)


@register_model("se-pair", {"c12": lambda: SEConfig()})
class SEPair(nn.Module):
    """No annotation: a tuple literal."""

    def __init__(self, config: SEConfig) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, config.channels, 3, padding=1)
        self.gate = nn.Linear(config.channels, config.channels)

    def forward(self, x):
        h = self.stem(x)
        return h, torch.sigmoid(self.gate(h.mean(dim=(2, 3))))


@register_model("se-named", {"c12": lambda: SEConfig()})
class SENamed(nn.Module):
    def __init__(self, config: SEConfig) -> None:
        super().__init__()
        self.fc = nn.Linear(config.channels, config.channels)

    def forward(self, x: torch.Tensor) -> Parts:
        p = x.mean(dim=(2, 3))
        return Parts(p, torch.sigmoid(self.fc(p)))


@register_model("se-dict", {"c12": lambda: SEConfig()})
class SEDict(nn.Module):
    def __init__(self, config: SEConfig) -> None:
        super().__init__()
        self.fc = nn.Linear(config.channels, config.channels)

    def forward(self, x):
        p = x.mean(dim=(2, 3))
        return {"pooled": p, "weights": torch.sigmoid(self.fc(p))}


@register_model("scaled-gate", {"c12": lambda: SEConfig()})
class ScaledGate(nn.Module):
    """A parameter of its own beside a submodule."""

    def __init__(self, config: SEConfig) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(config.channels))
        self.fc = nn.Linear(config.channels, config.channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.scale
'''

NUMERICS = '''\
"""Helpers of the checks."""
from __future__ import annotations


def unstable(value: int) -> float:
    if value > 0:
        raise ZeroDivisionError("the squeeze produced an empty channel")
    return 0.0
'''

PROBES = '''\
"""This wiki's custom checks."""
from __future__ import annotations

from dataclasses import dataclass

from claimcheck import CheckArgs, Evidence, claim_check
from claimcheck.checks.api import CheckContext
from sewiki import numerics


@dataclass(frozen=True)
class BottleneckArgs(CheckArgs):
    channels: int
    reduction: int


@claim_check(args=BottleneckArgs)
def bottleneck(ctx: CheckContext) -> Evidence:
    """The width of the excitation's bottleneck, C / r."""
    args = BottleneckArgs.of(ctx)
    return Evidence(measured=args.channels // args.reduction)


@claim_check
def fragile(ctx: CheckContext) -> Evidence:
    """A check whose helper raises."""
    return Evidence(measured=numerics.unstable(3))
'''

FIT = '''\
"""The trainer: arithmetic standing in for a training run."""
from __future__ import annotations

from typing import Any

from claimcheck import trainer

SPEC_KEYS = ("model", "preset", "seeds")


@trainer
def fit(spec: dict[str, Any], ctx: Any) -> dict[str, Any]:
    seeds = list(range(int(spec.get("seeds", 3))))
    return {"metric": "accuracy", "per_seed": [95.0 + 0.1 * s for s in seeds], "seeds": seeds,
            "curves": [], "device": "cpu", "fidelity": "exact", "details": "constant",
            "data": {"name": "none", "split": "-", "size": 0, "origin": "the test"}}
'''

PAPER = """\
---
kind: paper
slug: squeeze-excitation
arxiv: "1709.01507"
title: "Squeeze-and-Excitation Networks"
authors: [Jie Hu, Li Shen, Gang Sun]
year: 2018
updated_at: 2026-12-02
claims:
  - id: bottleneck-width
    cite: §3.2
    basis: implementation
    statement: With C = 64 and r = 16 the bottleneck has 4 units.
    check: sewiki.probes:bottleneck
    args: {channels: 64, reduction: 16}
    expect: {equals: 4}
  - id: block-params
    cite: §3.2
    statement: An SE block on 12 channels with r = 4 holds 2 C^2 / r weights and 15 biases, 87.
    check: params
    args: {model: se-block, preset: c12}
    expect: {equals: 87}
  - id: gate-shape
    cite: §3.2
    statement: The excitation emits one gate per channel.
    check: shapes
    args: {model: se-block, preset: c12, input: [3, 12, 5, 7], field: gates}
    expect: {equals: [3, 12]}
  - id: toy-accuracy
    cite: tab. 2
    basis: wiki
    statement: The wiki's toy run reaches 90%.
    check: train
    args: {model: se-block, preset: c12, seeds: 3}
    expect: {at_least: 90}
---
## Method

Squeeze, then excite.
"""

CONCEPT = """\
---
kind: concept
slug: channel-attention
title: Channel attention
summary: >-
  Reweighting channels by a gate computed from their global average.
papers: ["1709.01507"]
updated_at: 2026-12-02
---
The gate has one value per channel [arxiv:1709.01507 §3.2 #gate-shape].
"""

CARD = "wiki/papers/squeeze-excitation.md"
CONCEPT_CARD = "wiki/concepts/channel-attention.md"
EXTRA_CLAIM = """\
  - id: {id}
    cite: §3.2
    basis: {basis}
    statement: {statement}
    check: {check}
    args: {args}
    expect: {expect}
"""
TRACEBACK = "Traceback (most recent call last)"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
                  r"|\x1b[()][0-9A-Za-z]")


# --------------------------------------------------------------------------- helpers

def make_project(root: Path) -> Path:
    files = {"pyproject.toml": PYPROJECT, "sewiki/__init__.py": "", "sewiki/zoo.py": ZOO,
             "sewiki/numerics.py": NUMERICS, "sewiki/probes.py": PROBES, "sewiki/fit.py": FIT,
             CARD: PAPER, CONCEPT_CARD: CONCEPT}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def se(tmp_path: Path) -> Path:
    return make_project(tmp_path / "se-wiki")


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text, (old, text)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def add_claim(root: Path, **fields: str) -> None:
    values = {"basis": "paper-vs-code", "statement": "S.", **fields}
    edit(root, CARD, "  - id: toy-accuracy", EXTRA_CLAIM.format(**values) + "  - id: toy-accuracy")


def line_of(root: Path, name: str, needle: str) -> int:
    lines = (root / name).read_text(encoding="utf-8").splitlines()
    return next(n for n, text in enumerate(lines, 1) if needle in text)


def cc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``claimcheck ARGS`` in ``root``, in this process (fast)."""
    return run_claimcheck(root, *args)


def both(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMCHECK_")}
    env.update(NO_MKDOCS_2_WARNING="1", PYTHONDONTWRITEBYTECODE="1", CLAIMCHECK_OFFLINE="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def child(cwd: Path, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """``claimcheck ARGS`` as a real child process."""
    return subprocess.run([sys.executable, "-m", "claimcheck.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=child_env())


def on_terminal(cwd: Path, *args: str, columns: int = 80, timeout: float = 300) -> tuple[int, str]:
    """``claimcheck ARGS`` on a pseudo-terminal ``columns`` wide: the exit code and the screen
    text (escape sequences removed; of a line rewritten with ``\\r``, its last form)."""
    main_fd, sub_fd = pty.openpty()
    fcntl.ioctl(sub_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = child_env()
    for key in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        env.pop(key, None)
    env["TERM"] = "xterm-256color"
    process = subprocess.Popen([sys.executable, "-m", "claimcheck.cli", *args], cwd=cwd,
                               stdin=sub_fd, stdout=sub_fd, stderr=sub_fd, env=env,
                               close_fds=True)
    os.close(sub_fd)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([main_fd], [], [], timeout)
            if not ready:
                process.kill()
                break
            try:
                data = os.read(main_fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        process.wait(timeout=60)
        os.close(main_fd)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    lines = [line.rstrip("\r").split("\r")[-1] for line in text.split("\n")]
    return process.returncode, "\n".join(lines)


# --------------------------------------------------------------- 1. claimcheck init DIR

def test_init_end_to_end_nested_path_with_spaces_from_another_folder(tmp_path: Path) -> None:
    """init into a nested relative folder with spaces, from another working folder; then lint,
    verify (smoke) and the strict site build of that folder all pass; nothing lands in the
    working folder."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    target = "team notes/ml wiki/v1"
    made = child(cwd, "init", target)
    assert made.returncode == 0, both(made)
    project = cwd / target
    assert (project / "pyproject.toml").is_file() and (project / "wiki").is_dir()
    lint = child(cwd, "lint", target)
    assert lint.returncode == 0, both(lint)
    assert "error" not in lint.stdout and "warning" not in lint.stdout, lint.stdout
    verify = child(cwd, "verify", f"{target}/wiki", "--budget", "smoke", "--device", "cpu",
                   "--jobs", "2", timeout=600)
    assert verify.returncode == 0, both(verify)
    summary = verify.stdout.strip().splitlines()[-1]
    assert re.search(r"verified \d+, contradicted 0, unverified 0, stale 0, errors 0", summary), \
        verify.stdout
    assert any((project / ".claimcheck" / "results").glob("*.json"))
    assert sorted(p.name for p in cwd.iterdir()) == ["team notes"], "wrote into the cwd"
    site = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project,
                          capture_output=True, text=True, timeout=300, env=child_env())
    assert site.returncode == 0, site.stdout + site.stderr
    assert (project / "site" / "index.html").is_file()


@pytest.mark.parametrize("form", ["a/b/c", "./x", "../sibling", "ABSOLUTE/abs wiki"])
def test_init_accepts_every_form_of_folder_and_lint_dir_is_clean(tmp_path: Path,
                                                                 form: str) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    target = form.replace("ABSOLUTE", str(tmp_path))
    made = cc(cwd, "init", target)
    assert made.returncode == 0, both(made)
    project = (cwd / target).resolve()
    assert (project / "pyproject.toml").is_file(), sorted(map(str, tmp_path.rglob("*")))[:20]
    assert (project / "wiki" / "index.md").is_file()
    lint = cc(cwd, "lint", target)
    assert lint.returncode == 0, both(lint)
    assert "error" not in lint.stdout and "warning" not in lint.stdout, lint.stdout


def test_init_prints_a_cd_command_that_works_for_a_path_with_spaces(tmp_path: Path) -> None:
    """The message says ``cd FOLDER``; pasted into a shell it must reach the new project."""
    made = cc(tmp_path, "init", "my notes/ml wiki")
    assert made.returncode == 0, both(made)
    commands = re.findall(r"`(cd [^`]*)`", both(made))
    assert commands, both(made)
    assert shlex.split(commands[0]) == ["cd", "my notes/ml wiki"], commands[0]


def test_init_below_a_file_is_a_one_line_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a folder\n", encoding="utf-8")
    made = cc(tmp_path, "init", "notes.txt/wiki")
    out = both(made)
    assert made.returncode != 0
    assert TRACEBACK not in out, out
    assert "notes.txt" in out and len(out.strip().splitlines()) == 1, out


def test_init_folder_named_with_yaml_specials_gives_a_valid_mkdocs_yml(tmp_path: Path) -> None:
    """The site name comes from the folder name; `ml: notes #2` must not break mkdocs.yml."""
    made = cc(tmp_path, "init", "ml: notes #2")
    assert made.returncode == 0, both(made)
    config = yaml.safe_load((tmp_path / "ml: notes #2" / "mkdocs.yml").read_text("utf-8"))
    assert isinstance(config, dict) and "ml: notes #2" in str(config["site_name"]), config


def test_init_again_refuses_and_keeps_the_users_edits(tmp_path: Path) -> None:
    assert cc(tmp_path, "init", "w").returncode == 0
    index = tmp_path / "w" / "wiki" / "index.md"
    index.write_text("# Mine\n", encoding="utf-8")
    again = cc(tmp_path, "init", "w")
    assert again.returncode != 0 and "overwrite" in both(again), both(again)
    assert index.read_text(encoding="utf-8") == "# Mine\n"


def test_lint_of_a_folder_elsewhere_prints_paths_that_open_from_here(tmp_path: Path) -> None:
    """``claimcheck lint some/where`` from outside the project: an editor (or `vim +LINE
    PATH`) opens the `path:line` it prints from the working folder."""
    make_project(tmp_path / "projects" / "se")
    edit(tmp_path / "projects" / "se", CARD, "args: {model: se-block, preset: c12}\n",
         "args: {model: se-block, preset: c21}\n")
    lint = cc(tmp_path, "lint", "projects/se/wiki")
    assert lint.returncode == 1, both(lint)
    located = re.findall(r"^(\S+?\.md):\d+:\d+: error", lint.stdout, re.M)
    assert located, lint.stdout
    for path in located:
        assert (tmp_path / path).is_file(), f"{path} does not open from {tmp_path}:\n{lint.stdout}"


# ----------------------------------------- 2. lint resolves everything verify will

def test_the_fresh_wiki_lints_clean(se: Path) -> None:
    lint = cc(se, "lint", "--strict", "wiki")
    assert lint.returncode == 0, both(lint)
    assert "error" not in lint.stdout and "warning" not in lint.stdout, lint.stdout


def test_a_train_claim_with_no_trainer_anywhere_names_the_trainer_and_the_fix(se: Path) -> None:
    edit(se, "pyproject.toml", 'trainer = "sewiki.fit:fit"\n', "")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1, both(lint)
    line = line_of(se, CARD, "check: train")
    errors = [x for x in lint.stdout.splitlines() if x.startswith(f"{CARD}:{line}:")]
    assert len(errors) == 1 and ": error: " in errors[0], lint.stdout
    for part in ("toy-accuracy", "No trainer", "`[tool.claimcheck] trainer`", "trainer:",
                 "models.training:run_training"):
        assert part in errors[0], (part, errors[0])


def test_a_configured_trainer_with_a_typo_gets_did_you_mean(se: Path) -> None:
    edit(se, "pyproject.toml", '"sewiki.fit:fit"', '"sewiki.fit:fitt"')
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    assert "'fitt'" in lint.stdout and "did you mean 'fit'?" in lint.stdout, lint.stdout


def test_an_unknown_preset_and_config_field_are_errors_with_did_you_mean(se: Path) -> None:
    edit(se, CARD, "args: {model: se-block, preset: c12}\n",
         "args: {model: se-block, preset: c21, kwargs: {chanels: 8}}\n")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    line = line_of(se, CARD, "preset: c21")
    assert re.search(rf"^{CARD}:{line}:\d+: error: .*unknown preset 'c21'.*did you mean 'c12'",
                     lint.stdout, re.M), lint.stdout
    assert re.search(rf"^{CARD}:{line}:\d+: error: .*'chanels'.*did you mean 'channels'",
                     lint.stdout, re.M), lint.stdout


def test_a_model_registered_in_a_loop_is_never_an_error_when_verify_builds_it(se: Path) -> None:
    """Lint cannot read a registration made in a loop; it must not call a model unknown (an
    error, fatal under CI's --strict) that verify builds and verifies."""
    edit(se, "sewiki/zoo.py", '@register_model("se-named", {"c12": lambda: SEConfig()})\n', "")
    (se / "sewiki" / "zoo.py").write_text(
        (se / "sewiki" / "zoo.py").read_text("utf-8")
        + '\n\nfor _name in ("se-named",):\n'
        '    register_model(_name, {"c12": SEConfig})(SENamed)\n',
        encoding="utf-8")
    add_claim(se, id="named-params", check="params", args="{model: se-named, preset: c12}",
              expect="{equals: 156}")
    lint = cc(se, "lint", "--strict", "wiki")
    verify = cc(se, "verify", "wiki", "--only", "*/named-params", "--device", "cpu",
                "--format", "json")
    assert '"verdict": "verified"' in verify.stdout, both(verify)
    assert lint.returncode == 0, f"lint refuses what verify verifies:\n{both(lint)}"


def test_shapes_on_a_dataclass_output_without_field_names_the_fields(se: Path) -> None:
    edit(se, CARD, "input: [3, 12, 5, 7], field: gates}", "input: [3, 12, 5, 7]}")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    line = line_of(se, CARD, "input: [3, 12, 5, 7]")
    assert re.search(rf"^{CARD}:{line}:\d+: error: .*'se-block'.*field:.*scaled, gates",
                     lint.stdout, re.M), lint.stdout


def test_shapes_on_an_unannotated_tuple_without_field_names_the_indices(se: Path) -> None:
    add_claim(se, id="pair-shape", check="shapes",
              args="{model: se-pair, preset: c12, input: [2, 3, 8, 8]}",
              expect="{equals: [2, 12, 8, 8]}")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    line = line_of(se, CARD, "model: se-pair")
    assert re.search(rf"^{CARD}:{line}:\d+: error: .*'se-pair' returns 2 tensors.*0, 1",
                     lint.stdout, re.M), lint.stdout


@pytest.mark.parametrize("model, field", [("se-pair", "2"), ("se-block", "1"),
                                          ("se-dict", "0"), ("se-named", "7")])
def test_a_field_that_the_output_does_not_have_is_a_lint_error(se: Path, model: str,
                                                               field: str) -> None:
    """Verify refuses these (no such part of the output); lint, which names the parts when
    field: is missing, must refuse them too."""
    add_claim(se, id="bad-field", check="shapes",
              args=f"{{model: {model}, preset: c12, input: [2, 3, 8, 8], field: {field}}}"
              if model == "se-pair" else
              f"{{model: {model}, preset: c12, input: [2, 12, 3, 3], field: {field}}}",
              expect="{equals: [2, 12]}")
    lint = cc(se, "lint", "wiki")
    line = line_of(se, CARD, "field: " + field)
    assert lint.returncode == 1, f"lint passes a field verify refuses:\n{both(lint)}"
    assert re.search(rf"^{CARD}:{line}:\d+: error: .*field", lint.stdout, re.M), lint.stdout


@pytest.mark.parametrize("text, meant", [
    ("[openreview XYZ §3]", "[openreview:XYZ §3]"),
    ("[arxiv 1710.09829 tab 2]", "[arxiv:1710.09829 tab. 2]"),
    ("[arXiv:1710.09829 Table 2]", "[arxiv:1710.09829 tab. 2]"),
    ("[doi 10.1/x fig. 1]", "[doi:10.1/x fig. 1]"),
    ("[ArXiv 1709.01507 tab 2]", "[arxiv:1709.01507 tab. 2]"),
    ("[Bk9zbyZCZ §2]", "[openreview:Bk9zbyZCZ §2]"),
])
def test_a_bracketed_near_citation_is_located_with_did_you_mean(se: Path, text: str,
                                                                meant: str) -> None:
    edit(se, CONCEPT_CARD, "#gate-shape].", f"#gate-shape].\nEarlier work agreed {text}.")
    lint = cc(se, "lint", "wiki")
    line = line_of(se, CONCEPT_CARD, "Earlier work agreed")
    found = [x for x in lint.stdout.splitlines() if x.startswith(f"{CONCEPT_CARD}:{line}:")]
    assert found, f"nothing said about {text}:\n{lint.stdout}"
    assert re.match(rf"{CONCEPT_CARD}:{line}:\d+: (warning|error): ", found[0]), found
    assert any(f"did you mean `{meant}`" in x for x in found), found


def test_placeholders_are_warned_in_every_card_kind(se: Path) -> None:
    assert cc(se, "new", "concept", "gating-functions").returncode == 0
    assert cc(se, "new", "paper", "--offline", "--openreview", "Bk9zbyZCZ").returncode == 0
    edit(se, CARD, "statement: The wiki's toy run reaches 90%.", "statement: TODO")
    edit(se, CARD, "authors: [Jie Hu, Li Shen, Gang Sun]", "authors: [Jie Hu, <second author>]")
    edit(se, CARD, "Squeeze, then excite.", "Squeeze, then excite. FIXME: the equation.")
    edit(se, CONCEPT_CARD, "title: Channel attention", "title: <title>")
    lint = cc(se, "lint", "wiki")
    out = lint.stdout
    expected = [
        (CARD, "statement: TODO"), (CARD, "<second author>"), (CARD, "FIXME"),
        (CONCEPT_CARD, "<title>"),
        ("wiki/concepts/gating-functions.md", "summary:"),
        ("wiki/concepts/gating-functions.md", "Explain the idea"),
    ]
    for name, needle in expected:
        line = line_of(se, name, needle) + (1 if needle == "summary:" else 0)
        assert re.search(rf"^{re.escape(name)}:{line}:\d+: warning: placeholder", out, re.M), \
            (name, line, needle, out)
    new_paper = next((se / "wiki" / "papers").glob("*bk9zbyzcz*.md"))
    rel = new_paper.relative_to(se).as_posix()
    assert re.search(rf"^{re.escape(rel)}:\d+:\d+: warning: placeholder.*TODO", out, re.M), out


def test_a_placeholder_on_a_plain_page_is_warned(se: Path) -> None:
    (se / "wiki" / "index.md").write_text("# SE wiki\n\nTODO: write the landing page.\n",
                                          encoding="utf-8")
    lint = cc(se, "lint", "wiki")
    assert re.search(r"^wiki/index\.md:3:\d+: warning: placeholder", lint.stdout, re.M), \
        lint.stdout


def test_results_of_a_deleted_paper_card_are_mentioned(se: Path) -> None:
    verify = cc(se, "verify", "wiki", "--device", "cpu", "--only", "*/bottleneck-width",
                "--only", "*/block-params")
    assert verify.returncode == 0, both(verify)
    (se / CARD).unlink()
    (se / CONCEPT_CARD).unlink()
    lint = cc(se, "lint", "wiki")
    for claim in ("bottleneck-width", "block-params"):
        assert re.search(rf"^\.claimcheck/results/\S*{claim}\S*\.json:\d+:\d+: warning: .*no card "
                         "claims", lint.stdout, re.M), lint.stdout
    status = cc(se, "status", "wiki")
    assert "no card claims" in both(status), both(status)


def test_every_error_of_one_claim_is_reported(se: Path) -> None:
    edit(se, CARD, """\
  - id: block-params
    cite: §3.2
    statement""", """\
  - id: block-params
    cite: fig 2
    basis: paper-vs-cod
    statement""")
    edit(se, CARD, "args: {model: se-block, preset: c12}\n    expect: {equals: 87}",
         "args: {model: se-block, preset: c21, kwargs: {chanels: 8}, trainable: true}\n"
         "    expect: {equals: \"eighty-seven\"}\n    catches: [no-sqeeze]")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    # each alone is reported; together, none may hide another (a basis typo must not hide
    # that params can never measure a text)
    for expected in ("'fig 2'", "paper-vs-cod", "'c21'", "'chanels'", "'trainable'",
                     "no-sqeeze", "eighty-seven"):
        assert expected in lint.stdout, (expected, lint.stdout)


# ----------------------------------------------------------------------- 3. messages

def test_an_errored_check_names_the_raising_line_and_debug(se: Path) -> None:
    add_claim(se, id="fragile-one", basis="implementation", check="sewiki.probes:fragile",
              args="{}", expect="{equals: 0}")
    verify = cc(se, "verify", "wiki", "--only", "*/fragile-one", "--device", "cpu")
    out = both(verify)
    assert verify.returncode == 1, out
    raising = next(n for n, t in enumerate(NUMERICS.splitlines(), 1) if "raise " in t)
    assert f"sewiki/numerics.py:{raising}" in out, out
    assert "--debug" in out and TRACEBACK not in out, out
    debug = cc(se, "--debug", "verify", "wiki", "--only", "*/fragile-one", "--device", "cpu")
    assert TRACEBACK in both(debug) and "ZeroDivisionError" in both(debug), both(debug)


def test_a_contradicted_count_is_split_by_top_level_submodule(se: Path) -> None:
    add_claim(se, id="gate-params", check="params", args="{model: scaled-gate, preset: c12}",
              expect="{approx: 100, rel_tol: 0.01}")
    verify = cc(se, "verify", "wiki", "--only", "*/gate-params", "--device", "cpu")
    out = " ".join(verify.stdout.split())
    assert "contradicted" in out and "measured 168" in out, out
    assert "by top-level submodule: fc 156, scale 12" in out, out


@pytest.mark.parametrize("given, meant", [
    ("Bk9zbyZCZ", "openreview:Bk9zbyZCZ"),
    ("10.1109/CVPR.2016.90", "doi:10.1109/CVPR.2016.90"),
    ("https://doi.org/10.1109/CVPR.2016.90", "doi:10.1109/CVPR.2016.90"),
    ("https://openreview.net/forum?id=Bk9zbyZCZ", "openreview:Bk9zbyZCZ"),
])
def test_papers_fetch_of_a_bare_id_suggests_the_key(se: Path, given: str, meant: str) -> None:
    fetch = cc(se, "papers", "fetch", given)
    assert fetch.returncode == 2, both(fetch)
    assert f"`{meant}`" in fetch.stderr, fetch.stderr
    assert TRACEBACK not in both(fetch)


def test_papers_fetch_says_each_suggestion_once(se: Path) -> None:
    fetch = cc(se, "papers", "fetch", "10.1109/CVPR.2016.90")
    assert fetch.stderr.count("`doi:10.1109/CVPR.2016.90`") == 1, fetch.stderr


def test_papers_fetch_with_scheme_and_id_as_two_words(se: Path) -> None:
    """`claimcheck papers fetch openreview Bk9zbyZCZ`: the key meant is `openreview:Bk9zbyZCZ`,
    never `openreview:openreview`."""
    fetch = cc(se, "papers", "fetch", "openreview", "Bk9zbyZCZ")
    assert fetch.returncode == 2
    assert "openreview:openreview" not in fetch.stderr, fetch.stderr
    assert "`openreview:Bk9zbyZCZ`" in fetch.stderr, fetch.stderr


@pytest.fixture(scope="module")
def terminal_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    """verify, status and lint of the SE wiki (with a contradicted claim resting on a
    secondary source and an errored one) on an 80-column terminal."""
    root = make_project(tmp_path_factory.mktemp("tty") / "se-wiki")
    add_claim(root, id="fragile-one", basis="implementation", check="sewiki.probes:fragile",
              args="{}", expect="{equals: 0}")
    edit(root, CARD, "    expect: {equals: 87}",
         "    expect: {equals: 90}\n    secondary_source: a blog post's table")
    runs = {"verify": on_terminal(root, "verify", "wiki", "--device", "cpu", "--jobs", "1"),
            "status": on_terminal(root, "status", "wiki")}
    edit(root, "pyproject.toml", 'trainer = "sewiki.fit:fit"\n', "")
    runs["lint"] = on_terminal(root, "lint", "wiki")
    return runs


def _report(screen: str) -> list[str]:
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("claimcheck verdicts"))
    return lines[start:]


def test_verify_explains_every_mark_it_prints(terminal_run: dict[str, tuple[int, str]]) -> None:
    code, screen = terminal_run["verify"]
    assert code == 1, screen
    report = "\n".join(_report(screen))
    for mark, word in (("✓", "verified"), ("✗", "contradicted"), ("?", "unverified")):
        assert re.search(rf"^\s*{re.escape(mark)} {word}\b", report, re.M), (mark, report)
    assert "paper-vs-code†" in report, report
    assert re.search(r"^†: ", report, re.M), report


def test_status_explains_the_secondary_source_mark(terminal_run: dict[str, tuple[int, str]]
                                                   ) -> None:
    _, screen = terminal_run["status"]
    assert "†" in screen and re.search(r"^†: ", screen, re.M), screen


@pytest.mark.parametrize("command", ["verify", "status", "lint"])
def test_output_fits_an_80_column_terminal(terminal_run: dict[str, tuple[int, str]],
                                           command: str) -> None:
    _, screen = terminal_run[command]
    lines = _report(screen) if command == "verify" else screen.splitlines()
    long = [line for line in lines if len(line) > 80]
    assert not long, "\n".join(f"{len(x)}: {x}" for x in long)


def test_verify_and_status_count_alike(se: Path) -> None:
    add_claim(se, id="fragile-one", basis="implementation", check="sewiki.probes:fragile",
              args="{}", expect="{equals: 0}")
    edit(se, CARD, "expect: {equals: 87}", "expect: {equals: 88}")
    verify = cc(se, "verify", "wiki", "--device", "cpu")
    summary = verify.stdout.strip().splitlines()[-1]
    found = re.search(r"verified (\d+), contradicted (\d+), unverified (\d+), stale (\d+)", summary)
    assert found, summary
    v, c, n, s = found.groups()
    assert (v, c, n) == ("3", "1", "1"), summary
    status = cc(se, "status", "wiki")
    assert f"{int(v) + int(c) + int(n)} claim(s): {v} verified, {c} contradicted, {n} unverified; "\
        f"{s} stale" in status.stdout, status.stdout


def test_status_counts_errored_checks_as_verify_does(se: Path) -> None:
    add_claim(se, id="fragile-one", basis="implementation", check="sewiki.probes:fragile",
              args="{}", expect="{equals: 0}")
    verify = cc(se, "verify", "wiki", "--device", "cpu")
    assert "errors 1" in verify.stdout.strip().splitlines()[-1], verify.stdout
    status = cc(se, "status", "wiki")
    summary = "\n".join(x for x in status.stdout.splitlines() if "claim(s):" in x)
    assert re.search(r"\b1 errored\b|errors 1\b", summary), status.stdout


# --------------------------------------------------------------------- 4. bad input

def _bad_yaml(d: Path) -> str:
    (d / "unclosed-quote.md").write_text(
        '---\nkind: concept\nslug: unclosed-quote\ntitle: "Gates\nsummary: S\n---\nBody.\n',
        encoding="utf-8")
    return "unclosed-quote.md"


def _wrong_type(d: Path) -> str:
    (d / "wrong-type.md").write_text(
        "---\nkind: concept\nslug: wrong-type\ntitle: T\nsummary: S\npapers: 1709\n"
        "updated_at: 2026-12-02\n---\nBody.\n", encoding="utf-8")
    return "wrong-type.md"


def _unknown_key(d: Path) -> str:
    (d / "unknown-key.md").write_text(
        "---\nkind: concept\nslug: unknown-key\ntitle: T\nsummary: S\npapers: []\n"
        "updated_at: 2026-12-02\nsumary: twice\n---\nBody.\n", encoding="utf-8")
    return "unknown-key.md"


def _latin1(d: Path) -> str:
    (d / "latin1.md").write_bytes(
        "---\nkind: concept\nslug: latin1\ntitle: Réseaux à portes\nsummary: S\npapers: []\n"
        "---\nBody.\n".encode("latin-1"))
    return "latin1.md"


def _empty(d: Path) -> str:
    (d / "empty.md").write_bytes(b"")
    return "empty.md"


def _directory(d: Path) -> str:
    (d / "folder.md").mkdir()
    return "folder.md"


def _symlink_inside(d: Path) -> str:
    (d / "alias.md").symlink_to(Path("..") / "papers" / "squeeze-excitation.md")
    return "alias.md"


def _symlink_outside(d: Path) -> str:
    outside = d.parents[2] / "outside.md"
    outside.write_text("---\nkind: concept\nslug: outside\ntitle: T\nsummary: S\npapers: []\n"
                       "---\nBody.\n", encoding="utf-8")
    (d / "outside.md").symlink_to(outside)
    return "outside.md"


BAD_CARDS = {"malformed-yaml": _bad_yaml, "wrong-type": _wrong_type, "unknown-key": _unknown_key,
             "not-utf8": _latin1, "empty": _empty, "directory": _directory,
             "symlink-inside": _symlink_inside, "symlink-outside": _symlink_outside}


@pytest.mark.parametrize("kind", list(BAD_CARDS))
def test_a_bad_card_is_one_located_line_and_the_others_are_still_checked(se: Path,
                                                                         kind: str) -> None:
    name = BAD_CARDS[kind](se / "wiki" / "concepts")
    rel = f"wiki/concepts/{name}"
    edit(se, CARD, "args: {model: se-block, preset: c12}\n",
         "args: {model: se-block, preset: c21}\n")
    lint = cc(se, "lint", "wiki")
    out = both(lint)
    assert lint.returncode != 0, out
    assert TRACEBACK not in out, out
    mine = [x for x in out.splitlines() if rel in x]
    assert len(mine) >= 1 and re.match(rf"{re.escape(rel)}:\d+:\d+: error: \S", mine[0]), out
    assert "unknown preset 'c21'" in out, f"the other cards were not checked:\n{out}"


@pytest.mark.parametrize("kind", ["malformed-yaml", "not-utf8"])
def test_verify_of_a_wiki_with_a_bad_card_is_located_and_without_traceback(se: Path,
                                                                           kind: str) -> None:
    name = BAD_CARDS[kind](se / "wiki" / "concepts")
    verify = cc(se, "verify", "wiki", "--device", "cpu")
    out = both(verify)
    assert verify.returncode != 0 and TRACEBACK not in out, out
    assert re.search(rf"^wiki/concepts/{re.escape(name)}:\d+:\d+: error: ", out, re.M), out


def test_verify_of_a_wiki_with_a_card_that_does_not_load_is_a_usage_error(se: Path) -> None:
    """Documented (README, "verify options and exit codes": 2 is a usage error "including a
    card that does not load"): verify names the broken card and runs nothing, so that no
    verdict is recorded against a wiki that does not read as written."""
    name = _bad_yaml(se / "wiki" / "concepts")
    verify = cc(se, "verify", "wiki", "--device", "cpu", "--only", "*/bottleneck-width")
    assert verify.returncode == 2, both(verify)
    assert f"wiki/concepts/{name}:" in verify.stderr, both(verify)
    assert not any((se / ".claimcheck" / "results").glob("*bottleneck-width*.json")), \
        both(verify)


def test_a_misspelt_kind_gets_did_you_mean(se: Path) -> None:
    edit(se, CONCEPT_CARD, "kind: concept", "kind: concpet")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    assert re.search(rf"^{CONCEPT_CARD}:2:\d+: error: .*did you mean 'concept'", lint.stdout,
                     re.M), lint.stdout


def test_an_expect_given_as_a_bare_number_names_the_mapping_form(se: Path) -> None:
    edit(se, CARD, "expect: {equals: 87}", "expect: 87")
    lint = cc(se, "lint", "wiki")
    assert lint.returncode == 1
    line = line_of(se, CARD, "expect: 87")
    found = [x for x in lint.stdout.splitlines() if x.startswith(f"{CARD}:{line}:")]
    assert found and "{equals: 87}" in found[0], lint.stdout
    assert "instance of" not in lint.stdout, lint.stdout
