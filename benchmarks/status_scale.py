"""``claimcheck status`` of 1,000 claims: the whole command, and what printing rows costs.

Generates the engine tests' tiny project with N claims and a fresh stored result for each (written
through the store's own API, no check runs), then, in alternating rounds, times whole-process runs
of ``claimcheck status wiki`` with stdout to a pipe (plain rows, what CI and scripts see) and of the
same command forced to draw the rich table (run through a wrapper, ``TABLE``, that makes rich's
console and stdout report a terminal). Also reports, in-process, how the time of one status
splits into collecting (reading the store, fingerprints, re-judging) and rendering.

Usage: ``python benchmarks/status_scale.py [--claims 1000] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from claimcheck.cards.wiki import load_wiki  # noqa: E402
from claimcheck.core.config import load_config  # noqa: E402
from claimcheck.engine.recording import stored_row  # noqa: E402
from claimcheck.reports.formats import render_status  # noqa: E402
from claimcheck.store.results import Result, ResultStore  # noqa: E402
from claimcheck.store.status import collect_status  # noqa: E402
from claimcheck.verdicts.verdict import Verdict  # noqa: E402
from tests.engine.conftest import claim, write_project  # noqa: E402

TABLE = """\
import sys
from rich.console import Console


class Terminal:
    def __init__(self, stream):
        self._stream = stream

    def isatty(self):
        return True

    def __getattr__(self, name):
        return getattr(self._stream, name)


Console.is_terminal = property(lambda self: True)
sys.stdout = Terminal(sys.stdout)
from claimcheck.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _project(folder: Path, claims: int) -> Path:
    root = write_project(folder, {"2101.00001": [
        claim(f"c{i}", "tinymodels.checks:holds", {"holds": True}) for i in range(claims)]})
    config = load_config(root)
    store = ResultStore(config.results)
    for status in collect_status(load_wiki(config), store):
        ref = status.ref
        store.write(Result(
            claim=ref.global_id, card="wiki/papers/paper-0.md", line=ref.line,
            statement=ref.claim.statement, cite=ref.claim.locators, check=ref.claim.check,
            tier="unit", budget="smoke", verdict=Verdict.VERIFIED, reason="", measured=True,
            expected={"holds": True}, fidelity="exact", fingerprint=status.fingerprint,
        ))
    return root


def _timed(command: list[str], cwd: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"status failed: {done.stderr[-800:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    ns = parser.parse_args()
    print(f"load average before: {_loadavg()}")
    with tempfile.TemporaryDirectory(prefix="claimcheck-status-") as folder:
        root = _project(Path(folder) / "project", ns.claims)
        plain_cmd = [sys.executable, "-m", "claimcheck.cli", "status", "wiki"]
        table_cmd = [sys.executable, "-c", TABLE, "status", "wiki"]
        plain, table = [], []
        for _ in range(ns.rounds):
            plain.append(_timed(plain_cmd, root))
            table.append(_timed(table_cmd, root))
        config = load_config(root)
        wiki = load_wiki(config)
        start = time.perf_counter()
        rows = [stored_row(s, wiki) for s in collect_status(wiki, ResultStore(config.results))]
        collected = time.perf_counter() - start
        start = time.perf_counter()
        render_status(rows, io.StringIO())
        rendered = time.perf_counter() - start
    p, t = statistics.median(plain), statistics.median(table)
    print(f"{ns.claims} claims, median of {ns.rounds} interleaved runs:")
    print(f"  status to a pipe (plain rows): {p:.2f} s; forced rich table: {t:.2f} s "
          f"(plain/table {p / t:.2f})")
    print(f"  in-process: collect (store, fingerprints, re-judging) {collected:.3f} s, "
          f"plain rows {rendered:.3f} s ({rendered / (collected + rendered):.0%} of the two)")
    print(f"load average after: {_loadavg()}")


if __name__ == "__main__":
    main()
