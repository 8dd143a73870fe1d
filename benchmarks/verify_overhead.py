"""How much time ``claimcheck verify`` spends outside the checks themselves.

Runs on a copy of the project (``pyproject.toml``, ``wiki/``, ``models/``) in a temporary
folder, so the repository's own results store is never touched; if the wiki has no claims it
uses the engine tests' tiny project instead. Three runs:

1. **cold**: a fresh interpreter, an empty store: every check runs (this includes starting the
   worker pool, whose fork server imports torch once);
2. **cached**: a fresh interpreter again, every result fresh: nothing runs, and torch must stay
   out of ``sys.modules`` (target: under 1 s);
3. **warm forced**: in this process, the pool's fork server already running, every non-train
   check re-run with ``--force``: the engine's overhead per check apart from the check's own time.

Usage: ``python benchmarks/verify_overhead.py [--jobs N] [--only PATTERN] [--tiny]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from claimcheck.cards.wiki import load_wiki  # noqa: E402
from claimcheck.core.config import load_config  # noqa: E402
from claimcheck.engine.executor import LocalExecutor  # noqa: E402
from claimcheck.engine.runner import RunOptions, verify  # noqa: E402
from claimcheck.engine.tasks import Listener, Outcome, Task  # noqa: E402

CACHED_RUN = """\
import sys, time
start = time.perf_counter()
from claimcheck.cli.main import main
code = main(['verify', *sys.argv[1:], '--format', 'json'])
print(code, time.perf_counter() - start, 'torch' in sys.modules, file=sys.stderr)
"""


def copy_project(target: Path, tiny: bool) -> tuple[Path, str]:
    """The repository's project, or the engine tests' tiny one (asked for, or the wiki is empty)."""
    if not tiny and load_wiki(load_config(REPO)).claims():
        for name in ("pyproject.toml", "wiki", "models"):
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, target / name)
        return target, "repository wiki"
    from tests.engine.conftest import claim, write_project

    tiny = {"model": "tiny", "preset": "small"}
    claims = [claim(f"params-{i}", "params", {"at_least": 1}, args=tiny) for i in range(20)]
    claims += [claim(f"holds-{i}", "tinymodels.checks:holds", {"holds": True}) for i in range(20)]
    return write_project(target, {"2101.00001": claims}), "tiny test project, 40 checks"


def cli_run(wiki: Path, extra: list[str]) -> tuple[float, list[dict[str, object]]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "claimcheck.cli", "verify", str(wiki), "--format", "json", *extra],
        capture_output=True, text=True, env=env, check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"verify failed ({done.returncode}): {done.stderr.strip()}")
    return wall, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", help="fnmatch pattern, as for verify --only")
    parser.add_argument("--tiny", action="store_true",
                        help="time the engine tests' tiny project instead of the wiki")
    ns = parser.parse_args()
    selection = ["--only", ns.only] if ns.only else []
    with tempfile.TemporaryDirectory(prefix="claimcheck-bench-") as folder:
        root, label = copy_project(Path(folder), ns.tiny)
        wiki = root / "wiki"
        cold_wall, rows = cli_run(wiki, ["--jobs", str(ns.jobs), *selection])
        ran = [row for row in rows if row["ran"]]
        check_time = sum(float(row["duration_s"] or 0) for row in ran)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", CACHED_RUN, str(wiki), *selection],
                              capture_output=True, text=True, env=env, check=False, cwd=root)
        cached_wall = time.perf_counter() - start
        code, inner, torch_loaded = done.stderr.strip().splitlines()[-1].split()

        config = load_config(root)
        keep = {str(row["claim"]) for row in ran if row["tier"] != "train"}
        executor = OnlySome(LocalExecutor(ns.jobs), keep)
        verify(load_wiki(config), RunOptions(force=True, device="cpu"), executor=OnlySome(
            LocalExecutor(ns.jobs), set(sorted(keep)[:1])))  # start the pool's fork server
        start = time.perf_counter()
        report = verify(load_wiki(config), RunOptions(force=True, device="cpu"), executor=executor)
        warm_wall = time.perf_counter() - start
        forced = [row for row in report.rows if row.ran]
        warm_checks = sum(row.duration_s or 0 for row in forced)

    # Worker-seconds not spent inside a check: pool start, planning, judging, storing, and the
    # idle tail of a parallel run; an upper bound of the engine's own cost.
    engine = cold_wall * ns.jobs - check_time
    overhead = (warm_wall * ns.jobs - warm_checks) / max(len(forced), 1)
    print(f"project: {label}; {len(rows)} claims, {len(ran)} checks run, --jobs {ns.jobs}")
    print(f"cold run     {cold_wall:8.2f} s wall, {check_time:8.2f} s inside checks; engine "
          f"{engine:.2f} worker-s = {engine / max(len(ran), 1):.3f} s per check "
          "(includes interpreter and pool start)")
    print(f"cached run   {cached_wall:8.2f} s wall ({float(inner):.2f} s inside main), "
          f"exit {code}, torch imported: {torch_loaded}")
    print(f"warm forced  {warm_wall:8.2f} s wall for {len(forced)} non-train checks, "
          f"{warm_checks:.2f} s inside checks; engine {overhead * 1e3:.1f} ms per check")
    print(f"ratios: cached/cold {cached_wall / cold_wall:.4f}; engine share of the cold run's "
          f"worker time {engine / (cold_wall * ns.jobs):.2f}")
    for row in rows:
        if row.get("errored"):
            print(f"errored: {row['claim']}: {row['reason']}")


class OnlySome:
    """An executor that passes on only the tasks whose claim is in ``keep`` (here: no training)."""

    def __init__(self, inner: LocalExecutor, keep: set[str]) -> None:
        self.inner, self.keep = inner, keep

    def run(self, tasks: Sequence[Task], listener: Listener) -> Iterator[Outcome]:
        return self.inner.run([task for task in tasks if task.key in self.keep], listener)


if __name__ == "__main__":
    main()
