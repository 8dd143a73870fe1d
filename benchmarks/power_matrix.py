"""What ``claimcheck verify --power`` (the matrix) costs beside ``claimcheck verify --force``.

Runs on a copy of the project (``pyproject.toml``, ``wiki/``, ``models/``) in a temporary folder,
so the repository's own results store is never touched. Each repeat, in the same window (the
machine is shared, so only the ratio is worth comparing across days):

1. ``claimcheck verify wiki/ --force``: every claim re-run (the base);
2. the power store emptied, then ``claimcheck verify wiki/ --power``: nothing is stale, so this is
   the matrix alone (the probe, and per verified claim one bundle: a traced unvaried run and every
   listed or reached variant).

Issue 32 asks that ``verify --power`` on the whole wiki stay within 3x ``verify --force``: the
figure printed is ``(force + power) / force``, wall-clock and CPU seconds (this process's
children: every worker and check), with the load average beside them. It also prints how many
(claim, variant) pairs ran and how many were found unreached.

Usage: ``python benchmarks/power_matrix.py [--repeats 1] [--only PATTERN] [--jobs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COPIED = ("pyproject.toml", "wiki", "models")


def copy_project(to: Path, parts: tuple[str, ...] = COPIED) -> Path:
    """Copy ``parts`` of the repository (files or folders, no ``__pycache__``) into ``to``."""
    for name in parts:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, to / name)
    return to


def _timed(root: Path, *argv: str) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the children, exit code) of one claimcheck command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([_claimcheck(), *argv], cwd=root,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def _claimcheck() -> str:
    """The ``claimcheck`` command of this interpreter's environment."""
    return str(Path(sys.executable).with_name("claimcheck"))


def _pairs(root: Path) -> tuple[int, int]:
    """(variant runs, unreached pairs) in the copy's power store."""
    ran = unreached = 0
    for path in (root / ".claimcheck" / "power").glob("*.json"):
        data = json.loads(path.read_text())
        ran += len(data.get("variants", {}))
        unreached += len(data.get("unreached", {}))
    return ran, unreached


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=None)
    ns = parser.parse_args()
    extra = [arg for pattern in ns.only for arg in ("--only", pattern)]
    if ns.jobs:
        extra += ["--jobs", str(ns.jobs)]
    with tempfile.TemporaryDirectory(prefix="power-matrix-") as tmp:
        root = copy_project(Path(tmp))
        print(f"commit {_commit()}, load average {os.getloadavg()[0]:.1f} at the start")
        for repeat in range(ns.repeats):
            force = _timed(root, "verify", "wiki", "--force", *extra)
            shutil.rmtree(root / ".claimcheck" / "power", ignore_errors=True)
            power = _timed(root, "verify", "wiki", "--power", *extra)
            ran, unreached = _pairs(root)
            print(f"repeat {repeat + 1}: force {force[0]:.0f} s wall / {force[1]:.0f} s CPU "
                  f"(exit {force[2]}); power alone {power[0]:.0f} s wall / {power[1]:.0f} s CPU "
                  f"(exit {power[2]}): {ran} variant runs, {unreached} pairs unreached; "
                  f"verify --power / verify --force = {(force[0] + power[0]) / force[0]:.2f} "
                  f"wall, {(force[1] + power[1]) / max(force[1], 1e-9):.2f} CPU; load average "
                  f"{os.getloadavg()[0]:.1f}")
    return 0


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
