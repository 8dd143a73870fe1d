"""A task's safety net, counted in the check's own CPU time so that a loaded machine never trips it.

A budget is an amount of work, and the time limit of a task (``Task.timeout_s``) only catches a
check that runs away or hangs. Wall-clock time is the wrong measure for that: on a laptop where
another CPU-bound process runs, the same work takes two or three times as long, and a wall-clock
net would turn a healthy run into an error. So, where ``/proc`` tells a process's CPU time
(Linux), a task passes its limit when:

* its process has used ``timeout_s`` seconds of CPU (user + system, every thread), reported as
  ``timed out after N s of CPU time``; or
* it is idle, a hang rather than slow work: ``timeout_s`` of wall-clock time have passed and it
  has used less than :data:`IDLE_SHARE` of them on the CPU (a check asleep or deadlocked);
  reported as ``timed out after N s``; or
* the backstop: :data:`WALL_BACKSTOP` × ``timeout_s`` of wall-clock time have passed, whatever
  its CPU use (so that a check which busy-waits on a starved machine still ends).

Elsewhere the net is ``timeout_s`` of wall-clock time, as the reason says. The parent's own
deadline for a worker that stops answering (:mod:`claimcheck.engine.executor`) allows for the
backstop.
"""

from __future__ import annotations

import time

from claimcheck.engine import processes

__all__ = ["IDLE_SHARE", "POLL_S", "WALL_BACKSTOP", "SafetyNet", "wall_limit"]

WALL_BACKSTOP = 4.0
"""How many times its CPU limit a task may take in wall-clock time, however busy the machine."""
IDLE_SHARE = 0.05
"""Below this share of the CPU over its whole wall-clock limit, a task counts as hung."""
POLL_S = 0.5
"""How often the worker reads a running check's CPU time."""


def wall_limit(timeout_s: float | None) -> float | None:
    """The longest wall-clock time a task with limit ``timeout_s`` may run (the backstop)."""
    return None if timeout_s is None else timeout_s * WALL_BACKSTOP


class SafetyNet:
    """The limit of one task, started when its check process received the task."""

    def __init__(self, timeout_s: float | None, pid: int) -> None:
        self.timeout_s = timeout_s
        self.pid = pid
        self.started = time.perf_counter()
        self.counts_cpu = processes.cpu_seconds(pid) is not None
        self.reason: str | None = None

    def elapsed(self) -> float:
        """Wall-clock seconds since the task started."""
        return time.perf_counter() - self.started

    def next_wait(self) -> float | None:
        """How long the worker may wait for a message before looking at the net again."""
        if self.timeout_s is None:
            return None
        if not self.counts_cpu:
            return max(0.0, self.timeout_s - self.elapsed())
        return POLL_S

    def passed(self) -> bool:
        """Whether the task has run past its limit; :attr:`reason` then says how."""
        if self.timeout_s is None:
            return False
        limit, elapsed = self.timeout_s, self.elapsed()
        if not self.counts_cpu:
            if elapsed >= limit:
                self.reason = f"timed out after {limit:g} s"
            return self.reason is not None
        used = processes.cpu_seconds(self.pid)
        if used is None:  # gone: its death is reported by the pipe's end, unless out of time
            if elapsed >= limit * WALL_BACKSTOP:
                self.reason = f"timed out after {limit * WALL_BACKSTOP:g} s of wall-clock time"
        elif used >= limit:
            self.reason = f"timed out after {limit:g} s of CPU time"
        elif elapsed >= limit and used < IDLE_SHARE * elapsed:
            self.reason = f"timed out after {limit:g} s"
        elif elapsed >= limit * WALL_BACKSTOP:
            self.reason = (f"timed out after {limit * WALL_BACKSTOP:g} s of wall-clock time "
                           f"({WALL_BACKSTOP:g}x its {limit:g} s CPU limit)")
        return self.reason is not None
