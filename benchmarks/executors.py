"""Executors compared: 40 static and unit checks with local ``--jobs 1``, local ``--jobs 2`` and
Ray on a local two-CPU instance.

The checks come from the engine tests' tiny project (20 ``params`` counts of a small network,
20 custom property checks), generated in a temporary folder for every run so that nothing is
cached. Each executor runs the same project twice: **cold** (its first run: its workers start
and import torch) and **warm** (a second run). Starting the local pool's fork server (which
imports torch once, for every local run after it) and starting Ray (``ray.init``) are timed apart,
before the rounds.

Printed per run: the wall time of ``verify`` and the overhead per task, both also as ratios to
local ``--jobs 1`` of the same round. The overhead per task is the worker-slot time a task costs
beyond its own check, ``(wall × slots − Σ check durations) / tasks``, where ``slots`` is the
number of workers (1, 2 and 2).

Usage: ``python benchmarks/executors.py [--checks 40] [--rounds 2]`` (needs ``claimcheck[ray]``
for the Ray rows; without it they are skipped with the install hint).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from claimcheck.cards.wiki import load_wiki  # noqa: E402
from claimcheck.core.config import load_config  # noqa: E402
from claimcheck.engine.executor import LocalExecutor  # noqa: E402
from claimcheck.engine.ray_executor import (  # noqa: E402
    RayExecutor,
    import_ray,
    missing_ray_message,
    ray_installed,
)
from claimcheck.engine.runner import RunOptions, verify  # noqa: E402
from claimcheck.engine.tasks import Executor  # noqa: E402
from tests.engine.conftest import claim, write_project  # noqa: E402

SMALL = {"model": "tiny", "preset": "small"}


@dataclass(frozen=True)
class Measurement:
    """One verify run of one executor."""

    name: str
    slots: int
    tasks: int
    wall_s: float
    checks_s: float

    @property
    def overhead_s(self) -> float:
        """Worker-slot seconds per task spent outside the check itself."""
        return (self.wall_s * self.slots - self.checks_s) / self.tasks


def claims(count: int) -> list[dict[str, Any]]:
    """Half ``params`` (static) and half custom property checks (unit)."""
    static = [claim(f"params-{i}", "params", {"at_least": 1}, args=SMALL)
              for i in range(count // 2)]
    unit = [claim(f"holds-{i}", "tinymodels.checks:holds", {"holds": True})
            for i in range(count - count // 2)]
    return static + unit


def measure(name: str, slots: int, executor: Executor, count: int) -> Measurement:
    """Verify a freshly generated project of ``count`` checks with ``executor``."""
    with tempfile.TemporaryDirectory(prefix="claimcheck-bench-") as folder:
        root = write_project(Path(folder) / "project", {"2101.00040": claims(count)})
        wiki = load_wiki(load_config(root))
        start = time.perf_counter()
        report = verify(wiki, RunOptions(device="cpu"), executor=executor)
        wall = time.perf_counter() - start
    if report.ran != count or any(row.verdict != "verified" for row in report.rows):
        raise SystemExit(f"{name}: expected {count} verified checks, got {report.rows}")
    checks = sum(row.duration_s or 0.0 for row in report.rows)
    return Measurement(name, slots, count, wall, checks)


def print_round(label: str, rows: list[Measurement]) -> None:
    """A table of one round, with ratios to the first row (local --jobs 1)."""
    base = rows[0]
    print(f"\n{label}")
    print(f"{'executor':<16}{'wall s':>9}{'× jobs 1':>10}{'overhead/task ms':>19}{'× jobs 1':>10}")
    for row in rows:
        print(f"{row.name:<16}{row.wall_s:>9.2f}{row.wall_s / base.wall_s:>10.2f}"
              f"{row.overhead_s * 1000:>19.1f}{row.overhead_s / base.overhead_s:>10.2f}")


def main() -> None:
    """Run every executor for the given rounds and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    executors: list[tuple[str, int, Callable[[], Executor]]] = [
        ("local --jobs 1", 1, lambda: LocalExecutor(jobs=1)),
        ("local --jobs 2", 2, lambda: LocalExecutor(jobs=2)),
    ]
    start = time.perf_counter()
    measure("fork server", 1, LocalExecutor(jobs=1), 2)
    print(f"local fork server start (imports torch once): {time.perf_counter() - start:.1f} s")
    if ray_installed():
        ray = import_ray()
        start = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
        print(f"ray.init (local instance, 2 CPUs): {time.perf_counter() - start:.1f} s")
        executors.append(("ray, 2 CPUs", 2, RayExecutor))
    else:
        print(f"Ray rows skipped: {missing_ray_message()}")
    for number in range(args.rounds):
        rows = [measure(name, slots, make(), args.checks) for name, slots, make in executors]
        print_round(f"round {number + 1} ({'cold' if number == 0 else 'warm'})", rows)


if __name__ == "__main__":
    main()
