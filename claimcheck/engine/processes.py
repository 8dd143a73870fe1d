"""Process groups and descendants: so that nothing a check starts outlives its task.

Each check runs in a child process that leads its own process group (:func:`become_group_leader`)
and dies with the worker that forked it (:func:`die_with_parent`). The worker is a *subreaper*
(:func:`adopt_orphans`): a grandchild that a check left running, even one that moved to a
session of its own, is re-parented to the worker when the check's process ends, and
:func:`kill_descendants` kills and reaps every one of them before the next task starts.

``prctl`` exists on Linux only; elsewhere these are no-ops apart from the process-group kill,
and a grandchild that leaves its group can survive (docs/reliability.md says so).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_LINUX = sys.platform.startswith("linux")
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MAX_SWEEPS = 100
"""Rounds of :func:`kill_descendants`: each round kills the orphans the previous one made."""


def _prctl(option: int, value: int) -> bool:
    if not _LINUX:
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def adopt_orphans() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux); whether it worked."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when ``parent`` exits (Linux); exit now if it has."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def become_group_leader() -> None:
    """Lead a new process group, so that one signal reaches everything the check starts."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)


def kill_group(group: int) -> None:
    """SIGKILL every process of process group ``group`` (gone already: nothing to do)."""
    with contextlib.suppress(OSError):
        os.killpg(group, signal.SIGKILL)


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds (user + system, every thread) that process ``pid`` has used so far, from
    ``/proc``; ``None`` where that cannot be read (not Linux, or the process is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) ", the comm may hold spaces
    try:
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (IndexError, ValueError):
        return None


def children() -> list[int]:
    """The pids of this process's living children (``/proc``; empty where there is none)."""
    found: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            found += [int(pid) for pid in (task / "children").read_text().split()]
    return found


def kill_descendants(exclude: frozenset[int] = frozenset()) -> int:
    """Kill and reap every child of this process but ``exclude``, and the orphans each death
    re-parents here (this process must be a subreaper); the number killed."""
    killed = 0
    for _ in range(MAX_SWEEPS):
        targets = [pid for pid in children() if pid not in exclude]
        if not targets:
            break
        for pid in targets:
            kill_group(pid)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in targets:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)
        killed += len(targets)
    reap_zombies()
    return killed


def reap_zombies() -> None:
    """Collect every child that has already exited, without waiting for the living."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
