"""The safety net counts the check's own CPU time: a starved check is not an error, a hung one is.

Load is made for real: the measured process and CPU-bound competitors are pinned to one core, so
the process gets a third of it, as a check does on a busy laptop.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from claimcheck import processes
from claimcheck.safety_net import WALL_BACKSTOP, SafetyNet, wall_limit

SPIN = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass\n"
LINUX = sys.platform.startswith("linux") and hasattr(os, "sched_setaffinity")
pytestmark = pytest.mark.skipif(not LINUX, reason="CPU time is read from /proc (Linux)")


def _start(code: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", code])
    os.sched_setaffinity(process.pid, {min(os.sched_getaffinity(0))})
    return process


@pytest.fixture
def two_competitors() -> Iterator[None]:
    """Two processes that spin on the core the measured process is pinned to."""
    competitors = [_start(SPIN.format(seconds=60)) for _ in range(2)]
    try:
        yield
    finally:
        for competitor in competitors:
            competitor.kill()
            competitor.wait()


def _watch(process: subprocess.Popen[bytes], net: SafetyNet) -> str | None:
    """Poll as the worker does until the process ends or passes the net; the net's reason."""
    while process.poll() is None:
        if net.passed():
            process.kill()
            process.wait()
            return net.reason
        time.sleep(0.05)
    return None


@pytest.mark.usefixtures("two_competitors")
def test_a_starved_check_that_needs_less_cpu_than_its_limit_finishes() -> None:
    process = _start(SPIN.format(seconds=0.6))
    net = SafetyNet(1.0, process.pid)
    assert _watch(process, net) is None
    assert process.returncode == 0
    assert net.elapsed() > 1.0  # a wall-clock limit of 1 s would have made this run an error


def test_a_check_that_spins_past_its_limit_is_stopped_by_its_cpu_time() -> None:
    process = _start(SPIN.format(seconds=30))
    net = SafetyNet(1.0, process.pid)
    assert _watch(process, net) == "timed out after 1 s of CPU time"
    assert net.elapsed() < 1.0 * WALL_BACKSTOP


def test_a_sleeping_check_is_stopped_at_its_limit_in_wall_clock_time() -> None:
    process = _start("import time\ntime.sleep(30)\n")
    net = SafetyNet(1.0, process.pid)
    assert _watch(process, net) == "timed out after 1 s"
    assert 1.0 <= net.elapsed() < 2.0


def test_cpu_seconds_reads_a_live_process_and_none_for_a_gone_one() -> None:
    process = _start(SPIN.format(seconds=0.3))
    process.wait()
    assert processes.cpu_seconds(os.getpid()) is not None
    assert processes.cpu_seconds(process.pid) is None


def test_the_backstop_bounds_wall_clock_time() -> None:
    assert wall_limit(None) is None
    assert wall_limit(10.0) == 10.0 * WALL_BACKSTOP
