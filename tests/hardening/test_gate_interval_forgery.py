"""A custom check over seeds, not declared ``tier: train``, whose committed interval is cut.

The missing-interval rule on read (:func:`claimcheck.store.status._incomplete`) can only know a
claim measures over seeds when its card says so (``tier: train``). A custom check of another tier
that returns a seed interval is judged by that interval; a pull request that deletes the interval
from its committed file (and writes the verdict its mean alone would get) had the gate compare
verdict and mean only. The gate now also fails when the committed file lacks (or invents) the
interval the re-make records (:func:`claimcheck.engine.gate._difference`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project, stored

CHECKS = '''
from claimcheck.checks.stats import seed_interval


@claim_check
def over_seeds(ctx):
    values = [0.2, 1.9, 0.4, 1.7, 0.3]  # mean 0.9, an interval that straddles 1
    interval = seed_interval(values)
    return Evidence(measured=interval.mean, interval=interval.as_record(), fidelity="proxy")
'''

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e.org",
                    *args], check=True, capture_output=True)


def test_a_cut_interval_of_a_custom_seed_check_fails_the_gate(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [claim("seeds", "tinymodels.hostile:over_seeds",
                                            {"at_most": 1.0}, accept_proxy=True)], CHECKS)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    honest = stored(root, "seeds")
    assert honest["interval"] is not None and honest["verdict"] == "unverified", honest
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "honest")
    path = root / ".claimcheck" / "results" / f"{ARXIV}__seeds.json"
    path.write_text(json.dumps({**honest, "interval": None}), encoding="utf-8")
    _git(root, "commit", "-q", "-am", "forged: verdict and mean kept, the interval cut")
    done = cli(root, "verify", "wiki", "--device", "cpu",
               "--recheck-results-changed-since", "HEAD~1")
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"{ARXIV}/seeds: committed none confidence interval, re-made one" in done.stderr
