"""The engine's cost per check, against pytest's cost per test, measured interleaved.

Generates the engine tests' tiny project with N claims whose check returns at once
(``tinymodels.checks:holds``) and a pytest file with N tests that pass at once, then times, in
alternating rounds, whole-process runs of

* ``claimcheck verify wiki --force --jobs 1 --device cpu --format json`` (every check in a
  process of its own, stdout captured, evidence normalised, result judged and stored), and
* ``python -m pytest -q test_trivial.py``,

each once with N items and once with 1 item. The cost per item is the marginal one,
``(T(N) - T(1)) / (N - 1)``, so that interpreter and pool start-up (and torch's import) are not
spread over the items. Prints the medians, their ratio, and the load average before and after:
on a shared machine read the ratio, not the seconds.

Also prints the floor that isolation sets: one ``fork``, ``_exit`` and ``waitpid`` of a process
that has imported torch (what a worker is), per item, measured in the same rounds.

Usage: ``python benchmarks/check_overhead.py [--items 1000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.engine.conftest import claim, write_project  # noqa: E402


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _project(folder: Path, items: int) -> Path:
    claims = [claim(f"c{i}", "tinymodels.checks:holds", {"holds": True}) for i in range(items)]
    root = write_project(folder, {"2101.00001": claims})
    tests = "\n".join(f"def test_{i}():\n    assert True\n" for i in range(items))
    (root / "test_trivial.py").write_text(tests, encoding="utf-8")
    return root


def _timed(command: list[str], cwd: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-800:]}")
    return wall


FORK_FLOOR = """
import os, sys, time
import numpy, torch
count = int(sys.argv[1])
start = time.perf_counter()
for _ in range(count):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print((time.perf_counter() - start) / count)
"""


def _fork_floor(items: int) -> float:
    """Seconds per bare fork of a process that imported torch, like a worker."""
    done = subprocess.run([sys.executable, "-c", FORK_FLOOR, str(items)], capture_output=True,
                          text=True, check=True)
    return float(done.stdout)


VERIFY = [sys.executable, "-m", "claimcheck.cli", "verify", "wiki", "--force", "--jobs", "1",
          "--device", "cpu", "--format", "json"]
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_trivial.py"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    ns = parser.parse_args()
    print(f"load average before: {_loadavg()}")
    times: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="claimcheck-overhead-") as folder:
        roots = {n: _project(Path(folder) / f"p{n}", n) for n in (1, ns.items)}
        for round_ in range(ns.rounds):
            for n in (ns.items, 1):
                for name, command in (("verify", VERIFY), ("pytest", PYTEST)):
                    times.setdefault((name, n), []).append(_timed(command, roots[n]))
            times.setdefault(("fork", 1), []).append(_fork_floor(min(ns.items, 200)))
            print(f"round {round_ + 1}: " + ", ".join(
                f"{name} N={n} {values[-1]:.2f} s" for (name, n), values in times.items()))
    per_item = {}
    for name in ("verify", "pytest"):
        many = statistics.median(times[(name, ns.items)])
        one = statistics.median(times[(name, 1)])
        per_item[name] = (many - one) / (ns.items - 1)
        print(f"{name:6s}: T(1) {one:6.2f} s, T({ns.items}) {many:7.2f} s, "
              f"{per_item[name] * 1e3:6.2f} ms per item (median of {ns.rounds})")
    print(f"verify / pytest per item: {per_item['verify'] / per_item['pytest']:.2f}x")
    fork = statistics.median(times[("fork", 1)])
    print(f"floor: one fork + exit + wait of a torch process {fork * 1e3:.2f} ms, "
          f"{fork / per_item['pytest']:.2f}x pytest's per item; verify / floor "
          f"{per_item['verify'] / fork:.2f}x")
    print(f"load average after: {_loadavg()}")


if __name__ == "__main__":
    main()
