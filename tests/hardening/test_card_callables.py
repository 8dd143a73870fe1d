"""Card-chosen code execution (issue 12 §1): a card may name only functions that opt in.

A pull request that adds only a Markdown card must not run code that was never meant to be
called from a card. Every route a card has to choose a function is tried: a custom ``check``,
a ``params``/``shapes`` model ``factory`` (called with the card's ``kwargs``), a ``timing``
factory (called with ``a_args``/``b_args``), a ``ratio`` whose nested measurement names a
factory, and a ``train`` claim's own ``trainer``. The project's content package holds the bait:
functions that would create a marker file if they ever ran, unmarked, private, marked for
another role, rebound after marking, or lying outside the content package.

One table holds ``lint`` and ``verify`` to each other: for every row, lint's error at the card's
line and verify's reason are the same message, and the marker file never appears.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.engine.conftest import claim, write_project
from tests.inprocess_cli import run_claimcheck
from tests.strictjson import loads_strict

REPO = Path(__file__).resolve().parents[2]
ARXIV = "2101.00012"

BAIT = '''\
"""Functions a card must not be able to call, next to marked ones it may."""
from pathlib import Path

try:
    from claimcheck import claim_check, model_factory, timing_factory
except ImportError:  # a claimcheck without markers: the bait must still be callable there
    claim_check = model_factory = timing_factory = lambda function: function


def _touch(ctx_or_path=None, **kwargs):
    Path(__file__).resolve().parents[1].joinpath("CARD_CODE_RAN").touch()
    return lambda: None


def unmarked(ctx=None, **kwargs):
    return _touch()


@claim_check
def _private_check(ctx):
    return _touch()


@claim_check
def marked_check(ctx):
    return _touch()


@claim_check
def rebound(ctx):
    return None


rebound = unmarked


@timing_factory
def marked_timer(**kwargs):
    return lambda: None


@model_factory
def marked_model(**kwargs):
    import torch

    return torch.nn.Linear(2, 2)
'''

OUTSIDE = '''\
from pathlib import Path

try:
    from claimcheck import claim_check, model_factory
except ImportError:  # a claimcheck without markers
    claim_check = model_factory = lambda function: function


@claim_check
def marked_outside(ctx=None, **kwargs):
    Path(__file__).resolve().parents[1].joinpath("CARD_CODE_RAN").touch()


@model_factory
def model_outside(**kwargs):
    Path(__file__).resolve().parents[1].joinpath("CARD_CODE_RAN").touch()
'''

TINY = {"model": "tiny", "preset": "small"}

# name -> (check, args, substring of the shared message)
HOSTILE: dict[str, tuple[str, dict[str, Any], str]] = {
    "check-unmarked": ("tinymodels.bait:unmarked", {}, "is not marked @claim_check"),
    "check-private": ("tinymodels.bait:_private_check", {}, "is private"),
    "check-private-module": ("tinymodels._hidden:marked_outside", {}, "is private"),
    "check-rebound": ("tinymodels.bait:rebound", {}, "is not marked @claim_check"),
    "check-outside-content": ("helpers.outside:marked_outside", {},
                              "lies outside the content package (tinymodels)"),
    "check-the-tool-itself": ("claimcheck.cli.main:main", {}, "the tool's own package"),
    "check-test-helper": ("tests.engine.conftest:write_project", {},
                          "'tests.engine.conftest:write_project'"),
    "check-stdlib": ("os:system", {}, "standard-library module 'os'"),
    "params-factory-unmarked": ("params", {"factory": "tinymodels.bait:unmarked",
                                           "kwargs": {"x": 1}}, "is not marked @model_factory"),
    "params-factory-outside": ("params", {"factory": "helpers.outside:model_outside"},
                               "lies outside the content package"),
    "shapes-factory-wrong-role": ("shapes", {"factory": "tinymodels.bait:marked_check",
                                             "input": [1, 8]}, "is not marked @model_factory"),
    "timing-a-unmarked": ("timing", {"a": "tinymodels.bait:unmarked", "a_args": {"x": 1},
                                     "b": "tinymodels.bait:marked_timer"},
                          "is not marked @timing_factory"),
    "timing-b-wrong-role": ("timing", {"a": "tinymodels.bait:marked_timer",
                                       "b": "tinymodels.bait:marked_check"},
                            "is not marked @timing_factory"),
    "ratio-nested-factory": ("ratio", {
        "numerator": {"kind": "params", "args": {"factory": "tinymodels.bait:unmarked"}},
        "denominator": {"kind": "params", "args": TINY}}, "is not marked @model_factory"),
    "ratio-deeper-nesting": ("ratio", {
        "numerator": {"kind": "ratio", "args": {
            "numerator": {"kind": "params", "args": TINY},
            "denominator": {"kind": "params", "args": {"factory": "subprocess:run"}}}},
        "denominator": {"kind": "params", "args": TINY}}, "standard-library module"),
    "train-own-trainer": ("train", {"trainer": "tinymodels.bait:unmarked", "model": "tiny",
                                    "preset": "small", "epochs": 1},
                          "is not marked @trainer"),
}
ALLOWED = {
    "marked-model-factory": ("params", {"factory": "tinymodels.bait:marked_model"}),
    "marked-timer": ("timing", {"a": "tinymodels.bait:marked_timer",
                                "b": "tinymodels.bait:marked_timer", "repeats": 1}),
}


def _env(base: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(base),
            "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_claimcheck(root, *args, env=_env(root.parent))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # a custom check's property, or a bound fitting the number a built-in kind measures
    claims = [claim(name, check, {"holds": True} if ":" in check else {"at_least": 0}, args=args)
              for name, (check, args, _) in HOSTILE.items()]
    claims += [claim(name, check, {"at_least": 0}, args=args)
               for name, (check, args) in ALLOWED.items()]
    root = write_project(tmp_path_factory.mktemp("callables") / "project", {ARXIV: claims})
    (root / "tinymodels" / "bait.py").write_text(BAIT, encoding="utf-8")
    (root / "tinymodels" / "_hidden.py").write_text(OUTSIDE, encoding="utf-8")
    (root / "helpers").mkdir()
    (root / "helpers" / "__init__.py").write_text("", encoding="utf-8")
    (root / "helpers" / "outside.py").write_text(OUTSIDE, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def lint_errors(project: Path) -> dict[str, str]:
    """Lint's one error per hostile claim, keyed by claim id (found through its card line)."""
    done = _cli(project, "lint", "wiki", "--format", "json")
    assert done.returncode == 1, done.stderr
    card = (project / "wiki/papers/paper-0.md").read_text("utf-8").splitlines()
    owner: dict[int, str] = {}
    current = ""
    for number, text in enumerate(card, start=1):
        if text.lstrip().startswith("- id: "):
            current = text.split("- id: ", 1)[1].strip()
        owner[number] = current
    errors: dict[str, str] = {}
    for finding in loads_strict(done.stdout):
        assert finding["level"] != "error" or finding["rule"] == "reference", finding
        if finding["level"] == "error":
            name = owner[finding["line"]]
            assert name not in errors, (name, finding)
            errors[name] = finding["message"]
    return errors


@pytest.fixture(scope="module")
def verify_rows(project: Path) -> dict[str, dict[str, Any]]:
    done = _cli(project, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert "Traceback" not in done.stderr
    assert done.returncode == 1, done.stderr
    return {row["claim"].split("/", 1)[1]: row for row in loads_strict(done.stdout)}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_lint_and_verify_refuse_with_the_same_message(
    name: str, lint_errors: dict[str, str], verify_rows: dict[str, dict[str, Any]]
) -> None:
    expected = HOSTILE[name][2]
    assert expected in lint_errors[name]
    row = verify_rows[name]
    assert row["verdict"] == "unverified" and row["errored"]
    assert row["reason"] == lint_errors[name]
    assert "a card may name only public functions of the content package" in row["reason"]


def test_no_card_chosen_function_ever_ran(
    project: Path, verify_rows: dict[str, dict[str, Any]]
) -> None:
    assert not (project / "CARD_CODE_RAN").exists()
    assert not (project.parent / "CARD_CODE_RAN").exists()


def test_marked_functions_still_run(
    lint_errors: dict[str, str], verify_rows: dict[str, dict[str, Any]]
) -> None:
    assert set(lint_errors) == set(HOSTILE)
    for name in ALLOWED:
        assert verify_rows[name]["verdict"] == "verified", verify_rows[name]


def test_a_rebinding_the_static_scan_misses_is_refused_after_import(tmp_path: Path) -> None:
    """``globals()[...] = ...`` rebinds a marked name where ast cannot see it; the marker on
    the imported object is what verify trusts in the end."""
    root = write_project(tmp_path / "project", {ARXIV: [
        claim("sneaky", "tinymodels.sneaky:looks_marked", {"holds": True})]})
    (root / "tinymodels" / "sneaky.py").write_text(
        "from pathlib import Path\n\nfrom claimcheck import claim_check\n\n\n"
        "@claim_check\ndef looks_marked(ctx):\n    return None\n\n\n"
        "def _run(ctx):\n    Path(__file__).resolve().parents[1].joinpath('RAN').touch()\n\n\n"
        "globals()['looks_marked'] = _run\n", encoding="utf-8")
    done = _cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    (row,) = loads_strict(done.stdout)
    assert row["verdict"] == "unverified"
    assert "is not marked @claim_check once imported" in row["reason"]
    assert not (root / "RAN").exists()
