"""The safety net counts the check's own CPU time: a starved check is not an error, a hung one is.

The rules are tested on a simulated process whose CPU time grows at a chosen share of the wall
clock (:class:`Simulated`), so that the verdicts do not depend on how busy the machine running
the tests is; one real process shows that the CPU time of a live process is read at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

import claimcheck.engine.safety_net as safety_net
from claimcheck.engine import processes
from claimcheck.engine.safety_net import WALL_BACKSTOP, SafetyNet, wall_limit

SPIN = "import time\nend = time.process_time() + {seconds}\nwhile time.process_time() < end: pass\n"
LINUX = sys.platform.startswith("linux") and hasattr(os, "sched_setaffinity")
STEP = 0.05


class Simulated:
    """A check process on a simulated clock: ``share`` of each wall-clock second on the CPU,
    until it has used ``work`` seconds of CPU (then it ends)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, share: float, work: float,
                 startup: float = 0.0) -> None:
        self.wall, self.cpu = 0.0, startup
        self.share, self.work = share, work
        monkeypatch.setattr(safety_net, "time", SimpleNamespace(perf_counter=lambda: self.wall))
        monkeypatch.setattr(safety_net.processes, "cpu_seconds",
                            lambda pid: self.cpu if not self.ended else None)

    @property
    def ended(self) -> bool:
        return self.cpu >= self.work

    def watch(self, net: SafetyNet, until: float = 600.0) -> str | None:
        """Advance the clock as the worker polls, until the check ends or passes the net."""
        while not self.ended and self.wall < until:
            self.wall += STEP
            self.cpu = min(self.work, self.cpu + self.share * STEP)
            if not self.ended and net.passed():
                return net.reason
        return None


@pytest.mark.parametrize("share", [1 / 3, 1 / 2, 1.0])
def test_a_starved_check_that_needs_less_cpu_than_its_limit_finishes(
    monkeypatch: pytest.MonkeyPatch, share: float
) -> None:
    run = Simulated(monkeypatch, share=share, work=0.6)
    net = SafetyNet(1.0, pid=1)
    assert run.watch(net) is None and run.ended
    assert net.elapsed() == pytest.approx(0.6 / share, abs=2 * STEP)


def test_a_check_that_spins_past_its_limit_is_stopped_by_its_cpu_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = Simulated(monkeypatch, share=1 / 2, work=30.0)
    net = SafetyNet(1.0, pid=1)
    assert run.watch(net) == "timed out after 1 s of CPU time"
    assert net.elapsed() == pytest.approx(2.0, abs=2 * STEP)


def test_a_check_starved_below_the_backstop_share_is_stopped_by_the_backstop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = Simulated(monkeypatch, share=1 / 10, work=30.0)
    net = SafetyNet(1.0, pid=1)
    assert run.watch(net) == (f"timed out after {WALL_BACKSTOP:g} s of wall-clock time "
                              f"({WALL_BACKSTOP:g}x its 1 s CPU limit)")


def test_a_sleeping_check_is_stopped_at_its_limit_in_wall_clock_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = Simulated(monkeypatch, share=0.0, work=30.0, startup=0.03)
    net = SafetyNet(1.0, pid=1)
    assert run.watch(net) == "timed out after 1 s"
    assert net.elapsed() == pytest.approx(1.0, abs=STEP)


@pytest.mark.skipif(not LINUX, reason="CPU time is read from /proc (Linux)")
def test_cpu_seconds_reads_a_live_process_and_none_for_a_gone_one() -> None:
    process = subprocess.Popen([sys.executable, "-c", SPIN.format(seconds=0.3)])
    process.wait()
    assert processes.cpu_seconds(os.getpid()) is not None
    assert processes.cpu_seconds(process.pid) is None


def test_the_backstop_bounds_wall_clock_time() -> None:
    assert wall_limit(None) is None
    assert wall_limit(10.0) == 10.0 * WALL_BACKSTOP
