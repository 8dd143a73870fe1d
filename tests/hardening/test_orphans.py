"""Orphaned grandchildren (issue 12 §2): no process a check starts outlives its task.

A check starts ``sleep`` in the background and returns; another does the same in a new session
(``setsid``, out of the check's process group) and returns; a third starts one and then hangs
until its timeout; a fourth is running when verify gets Ctrl-C. Each writes its grandchild's pid
to a file; once verify has exited, none of those processes may still be alive.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hardening.hostile_project import REPO, claim, cli, hostile_project

CHECKS = '''
def _spawn(ctx, **options):
    """The grandchild's pid goes to the project root, the check's working folder (a card never
    chooses where a check writes: claimcheck/trust/data_paths.py)."""
    child = subprocess.Popen(["sleep", "300"], **options)
    Path("grandchild.pid").write_text(str(child.pid))


@claim_check
def leaves_a_child(ctx):
    _spawn(ctx)
    return Evidence(measured=True)


@claim_check
def leaves_a_detached_child(ctx):
    _spawn(ctx, start_new_session=True)
    return Evidence(measured=True)


@claim_check
def hangs_with_a_child(ctx):
    _spawn(ctx, start_new_session=True)
    time.sleep(300)
    return Evidence(measured=True)
'''


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, killed and waiting to be reaped, does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _session(session: int) -> list[int]:
    """The living processes of a session (the forkserver, workers and checks of a run)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) == session and fields[0] != "Z":
                found.append(int(stat.parent.name))
    return found


def _pid(path: Path) -> int:
    deadline = time.monotonic() + 180  # a run starts its worker (and torch) first
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("check", ["leaves_a_child", "leaves_a_detached_child"])
def test_a_grandchild_left_running_is_killed_when_its_task_ends(
    tmp_path: Path, check: str
) -> None:
    root = hostile_project(tmp_path, [claim("c", f"tinymodels.hostile:{check}", {"holds": True})],
                           CHECKS)
    pid_file = root / "grandchild.pid"
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    pid = _pid(pid_file)
    try:
        assert done.returncode == 0, done.stderr[-2000:]
        assert not _alive(pid)
    finally:
        _kill([pid])


def test_a_timed_out_check_takes_its_grandchildren_with_it(tmp_path: Path) -> None:
    root = hostile_project(
        tmp_path, [claim("c", "tinymodels.hostile:hangs_with_a_child", {"holds": True})], CHECKS)
    pid_file = root / "grandchild.pid"
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json", "--timeout", "5")
    pid = _pid(pid_file)
    try:
        assert done.returncode == 1 and "timed out after 5 s" in done.stdout
        assert not _alive(pid)
    finally:
        _kill([pid])


def test_ctrl_c_leaves_no_process_behind(tmp_path: Path) -> None:
    root = hostile_project(
        tmp_path, [claim("c", "tinymodels.hostile:hangs_with_a_child", {"holds": True})], CHECKS)
    pid_file = root / "grandchild.pid"
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.Popen(
        [sys.executable, "-m", "claimcheck.cli", "verify", "wiki", "--device", "cpu"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,
    )
    pid = _pid(pid_file)
    try:
        os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the foreground group
        run.communicate(timeout=60)
        assert run.returncode == 130
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid)
        while _session(run.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _session(run.pid) == []
    finally:
        _kill([pid])
        with contextlib.suppress(OSError):
            os.killpg(run.pid, signal.SIGKILL)
