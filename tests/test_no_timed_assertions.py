"""No test depends on timing or an idle machine (issue 24 §1): no assertion reads a clock.

Performance is measured by benchmarks (``benchmarks/``), never asserted in a test: a bound on
wall-clock time fails on a loaded machine and proves nothing on a fast one. A budget of work
(the process's own CPU time, a count of calls, a simulated clock) is what a test may bound.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CLOCKS = {"perf_counter", "monotonic", "time", "perf_counter_ns", "monotonic_ns", "time_ns"}


def _reads_a_clock(node: ast.AST, tainted: set[str]) -> bool:
    """Whether ``node`` calls a clock, or uses a name that holds a clock's reading."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and (
                isinstance(sub.func.value, ast.Name) and sub.func.value.id == "time"
                and sub.func.attr in CLOCKS):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and (
                sub.func.id in {"perf_counter", "monotonic"}):
            return True
        if isinstance(sub, ast.Name) and sub.id in tainted:
            return True
    return False


def _timed_assertions(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tainted: set[str] = set()
    assignments = [node for node in ast.walk(tree) if isinstance(node, ast.Assign)]
    for _ in range(3):  # a reading passed on through a few names (started -> elapsed)
        for node in assignments:
            if _reads_a_clock(node.value, tainted):
                tainted |= {n.id for t in node.targets for n in ast.walk(t)
                            if isinstance(n, ast.Name)}
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Assert) and _reads_a_clock(node.test, tainted)]


FILES = sorted(path for path in TESTS.rglob("*.py") if "corpus" not in path.parts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_assertion_reads_the_wall_clock(path: Path) -> None:
    lines = _timed_assertions(path)
    assert not lines, f"{path.name}: assertions on wall-clock time at lines {lines}"


def test_the_scan_finds_a_timed_assertion(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import time\nstarted = time.perf_counter()\n"
                      "assert time.perf_counter() - started < 2.0\n"
                      "elapsed = time.monotonic() - started\nassert elapsed < 2.0\n"
                      "count = 3\nassert count < 4\n", encoding="utf-8")
    assert _timed_assertions(sample) == [3, 5]
