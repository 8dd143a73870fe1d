"""Nothing of a verify outlives its driver (issue 33 item 6).

``kill -9`` of ``claimcheck verify`` cannot be handled by the driver itself. Its workers kept
running their check until it finished or passed its safety net (about 20 s in the red team's
case, 600 s for the check below). A worker now watches its connection to the driver while a
check runs: the connection reads as end of file the moment the driver dies, and the worker kills
the check's process group and exits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hardening.hostile_project import REPO, claim, hostile_project

CHECKS = '''
@claim_check
def sleeps(ctx):
    marker = Path(ctx.root) / "pids.txt"
    marker.write_text(f"{os.getpid()} {os.getppid()}\\n")
    time.sleep(600)
    return Evidence(measured=True)
'''
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups, /proc")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(predicate: object, limit_s: float) -> bool:
    """Poll ``predicate`` until it holds or ``limit_s`` passed (a bound, not a measurement)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return bool(predicate())  # type: ignore[operator]


def test_workers_and_checks_end_when_the_driver_is_killed(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:sleeps", {"holds": True})],
                           CHECKS)
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(root.parent),
           "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}
    driver = subprocess.Popen([sys.executable, "-m", "claimcheck.cli", "verify", "wiki",
                               "--device", "cpu"], cwd=root, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    marker = root / "pids.txt"
    try:
        assert _wait_for(lambda: marker.exists() and marker.read_text().endswith("\n"), 240)
        check, worker = (int(pid) for pid in marker.read_text().split())
        assert _alive(check) and _alive(worker)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    try:  # the check sleeps 600 s: only the worker's watch can end it this soon
        assert _wait_for(lambda: not _alive(check) and not _alive(worker), 10), (check, worker)
    finally:
        for pid in (check, worker):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
