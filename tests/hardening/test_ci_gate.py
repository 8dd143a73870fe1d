"""CI is the gate: ``.ci/run`` fails on a pull request that commits a forged result.

The real ``.ci/run`` and ``.ci/recheck-base`` run on a tiny project (the engine tests' one), in
a shallow clone with no ``origin``: the worst case for finding the base, where CI must re-make
everything rather than nothing. ``CLAIMCHECK_CI_SKIP`` leaves out the install, linters and test
suite, which belong to the repository, not to the tiny project.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.conftest import claim, write_project
from tests.strictjson import loads_strict

REPO = Path(__file__).resolve().parents[2]
ARXIV = "2101.00015"
CLAIMS = [
    claim("params", "params", {"at_least": 1}, args={"model": "tiny", "preset": "small"}),
    claim("holds", "tinymodels.checks:holds", {"holds": True}),
]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "user.name=t",
                           "-c", "user.email=t@example.org", *args],
                          check=True, capture_output=True, text=True)
    return done.stdout


def _claimcheck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimcheck.cli", *args], cwd=root,
                          capture_output=True, text=True, timeout=300, env=_env(root))


def _env(root: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(root.parent),
            "PYTHONPATH": str(REPO), "CLAIMCHECK_MEMORY_LIMIT_GB": "0",
            "CLAIMCHECK_CI_SKIP": "install ruff mypy tests"}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose main holds an honest results store, with ``.ci/`` as the repository's."""
    root = write_project(tmp_path_factory.mktemp("gate") / "upstream", {ARXIV: CLAIMS})
    shutil.copytree(REPO / ".ci", root / ".ci")
    done = _claimcheck(root, "verify", "wiki", "--device", "cpu")
    assert done.returncode == 0, done.stderr[-2000:]
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "honest results")
    return root


def _shallow_clone_without_origin(upstream: Path, target: Path, ref: str) -> Path:
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", ref,
                    f"file://{upstream}", str(target)], check=True, capture_output=True)
    _git(target, "remote", "remove", "origin")
    assert _git(target, "rev-parse", "--is-shallow-repository").strip() == "true"
    return target


def _ci(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", ".ci/run"], cwd=root, capture_output=True, text=True,
                          timeout=600, env=_env(root))


def _forge(upstream: Path, branch: str, claim_id: str, change: dict[str, object]) -> None:
    _git(upstream, "checkout", "-q", "-b", branch, "main")
    path = upstream / ".claimcheck" / "results" / f"{ARXIV}__{claim_id}.json"
    data = loads_strict(path.read_text("utf-8"))
    path.write_text(json.dumps({**data, **change}, indent=2), encoding="utf-8")
    _git(upstream, "commit", "-q", "-am", f"forge {claim_id}")
    _git(upstream, "checkout", "-q", "main")


def test_ci_passes_an_honest_store_on_a_shallow_clone_with_no_origin(
    upstream: Path, tmp_path: Path
) -> None:
    clone = _shallow_clone_without_origin(upstream, tmp_path / "clone", "main")
    done = _ci(clone)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "no remote origin; comparing with the empty tree" in done.stderr


@pytest.mark.parametrize(("claim_id", "change"), [
    ("holds", {"verdict": "contradicted", "measured": False}),  # consistent with itself
    ("params", {"verdict": "verified", "measured": 3}),          # meets at_least 1 too
])
def test_ci_fails_on_a_forged_result_on_a_shallow_clone_with_no_origin(
    upstream: Path, tmp_path: Path, claim_id: str, change: dict[str, object]
) -> None:
    """Each forgery agrees with its own measurement, so re-judging on read cannot see it; only
    the re-make can, and the gate must then fail the run."""
    branch = f"forged-{claim_id}"
    _forge(upstream, branch, claim_id, change)
    clone = _shallow_clone_without_origin(upstream, tmp_path / "clone", branch)
    done = _ci(clone)
    assert done.returncode == 4, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"gate: FAILED: {ARXIV}/{claim_id}: committed" in done.stderr
    assert os.path.exists(clone / ".claimcheck")
