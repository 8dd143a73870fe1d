"""A throw-away project with hostile checks, driven through the CLI in child processes.

The checks live in ``tinymodels/hostile.py`` next to the engine tests' tiny project
(``tests/engine/conftest.py``). They import the markers defensively, so that the same tests can
be run against a claimcheck that predates them (to show that they fail there).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.engine.conftest import claim, write_project
from tests.inprocess_cli import run_claimcheck
from tests.strictjson import loads_strict

REPO = Path(__file__).resolve().parents[2]
ARXIV = "2101.00014"
HEADER = '''\
"""Checks that misbehave on purpose."""
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    from claimcheck import claim_check
except ImportError:  # a claimcheck without markers runs them unmarked
    def claim_check(function):
        return function
try:
    from claimcheck import CheckArgs
except ImportError:  # a claimcheck whose checks declare no args
    CheckArgs = object
    _marked = claim_check

    def claim_check(function=None, *, args=None):
        return _marked(function) if function is not None else _marked
from claimcheck.checks.api import Evidence

'''


def hostile_project(base: Path, claims: list[dict[str, Any]], checks: str) -> Path:
    """The tiny project with ``claims`` and ``checks`` (function definitions) as
    ``tinymodels/hostile.py``."""
    root = write_project(base / "project", {ARXIV: claims})
    (root / "tinymodels" / "hostile.py").write_text(HEADER + checks, encoding="utf-8")
    return root


def cli(root: Path, *args: str, child: bool = False,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``claimcheck ARGS`` in ``root`` with a minimal environment: in this process
    (:mod:`tests.inprocess_cli`), or in a child process when the test is about the process
    (``child=True``; ``timeout`` applies to the child only)."""
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(root.parent),
           "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}
    if not child:
        return run_claimcheck(root, *args, env=env)
    return subprocess.run([sys.executable, "-m", "claimcheck.cli", *args], cwd=root,
                          capture_output=True, text=True, timeout=timeout, env=env)


def verify_rows(root: Path, *extra: str) -> tuple[int, dict[str, dict[str, Any]]]:
    """Run ``verify --format json`` and return its exit code and rows by claim id."""
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json", *extra)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done.returncode, rows(done.stdout)


def rows(text: str) -> dict[str, dict[str, Any]]:
    """Report rows (JSON output of verify or status) by claim id."""
    return {row["claim"].split("/", 1)[1]: row for row in loads_strict(text)}


def stored(root: Path, claim_id: str) -> dict[str, Any]:
    """The stored result file of a claim, read with a strict JSON parser."""
    path = root / ".claimcheck" / "results" / f"{ARXIV}__{claim_id}.json"
    return dict(loads_strict(path.read_text("utf-8")))


__all__ = ["ARXIV", "REPO", "claim", "cli", "hostile_project", "rows", "stored", "verify_rows"]
