"""Where checks run: the :class:`Executor` interface and the local process pool.

Every check runs in a process of its own, forked for it by a worker
(:mod:`claimcheck.engine.worker`), so that a check that hangs, kills its process or changes global
state costs only its own verdict ("timed out after 120 s", "worker died (signal SIGKILL)"). The
interface is small on purpose: a cluster backend (issue 8, Ray) implements :meth:`Executor.run` for
the same :class:`Task` and :class:`Outcome` values and nothing else changes. Executors never write
the results store; the caller, the single writer, does.

A worker is handed its next task as soon as it reports an outcome, before that outcome is
yielded to the caller, so the caller judges and stores one result while the next check runs.

Workers talk to the parent over one pipe each (no shared queue, so a worker killed mid-message
cannot wedge the others): ``("start", key, pid)``, ``("progress", key, message, fraction)`` and
``("done", Outcome)``. A worker enforces its task's timeout itself; the parent keeps a later
deadline of its own (:data:`WORKER_GRACE_S`) for a worker that stops answering, and on timeout,
Ctrl-C or shutdown kills the worker and the check's whole process group.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from claimcheck.engine import processes
from claimcheck.engine.safety_net import wall_limit
from claimcheck.engine.tasks import Listener, Outcome, Task, TaskEvent, describe_exit

STARTUP_TIMEOUT_S = 600.0
"""How long a fresh worker may take to import torch and report a task started."""
WORKER_GRACE_S = 60.0
"""How long past a task's wall-clock backstop the parent waits for its worker to report it."""


@dataclass
class _Slot:
    process: BaseProcess
    connection: Connection
    task: Task | None = None
    sent: float = 0.0
    started: float | None = None  # when the worker reported the task started
    child: int | None = None  # the pid (and process group) of the task's own process

    def deadline(self) -> float | None:
        """When the parent gives up on the worker (its own timeout comes first)."""
        if self.task is None:
            return None
        if self.started is None:
            return self.sent + STARTUP_TIMEOUT_S
        backstop = wall_limit(self.task.timeout_s)
        return None if backstop is None else self.started + backstop + WORKER_GRACE_S


MAX_DEFAULT_JOBS = 4
"""``verify --jobs`` defaults to the CPUs this process may use, at most this many workers (each
holds torch in memory)."""


def default_jobs() -> int:
    """Workers when ``--jobs`` is not given: one per usable CPU, at most the maximum above."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_DEFAULT_JOBS))


def default_start_method() -> str:
    """``forkserver`` where the platform has it (workers fork from a server that has imported
    torch once, so a replaced worker starts in milliseconds), else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@dataclass
class LocalExecutor:
    """A pool of ``jobs`` worker processes on this machine.

    A worker is reused for the next task while it stays healthy (each task still gets a fresh
    process of its own), and replaced when it stops answering or dies. A task's timeout counts
    from the moment its worker starts it, so a worker's start-up (spawning, importing torch)
    never eats into a check's time. Each check runs with ``threads`` torch threads, one by
    default: a reduction split over more threads sums in another order, so the same seed would
    measure a different value on a machine with more cores, and on a loaded machine a thread that
    waits for a descheduled partner stalls the whole check. Parallelism comes from ``jobs``.
    """

    jobs: int = 1
    start_method: str = field(default_factory=default_start_method)
    threads: int = 1
    _slots: list[_Slot] = field(default_factory=list, init=False, repr=False)

    def run(self, tasks: Sequence[Task], listener: Listener) -> Iterator[Outcome]:
        """Run ``tasks`` on up to ``jobs`` workers; yield outcomes as they finish."""
        if self.jobs < 1:
            raise ValueError("jobs must be at least 1")
        context = multiprocessing.get_context(self.start_method)
        if self.start_method == "forkserver":
            # Importing torch does not initialise CUDA, so forked workers may still use it.
            context.set_forkserver_preload(
                ["claimcheck.engine.worker", "numpy", "numpy.random", "torch"])
        waiting = deque(tasks)
        try:
            while waiting or any(slot.task is not None for slot in self._slots):
                self._dispatch(waiting, context)
                finished = list(self._collect(listener))
                self._dispatch(waiting, context)  # they run while the caller stores
                yield from finished
        finally:
            self._shutdown()

    def _dispatch(self, waiting: deque[Task], context: Any) -> None:
        while waiting and (slot := self._idle_slot(context)) is not None:
            slot.task, slot.sent, slot.started = waiting.popleft(), time.monotonic(), None
            slot.connection.send(slot.task)

    def _idle_slot(self, context: Any) -> _Slot | None:
        for slot in self._slots:
            if slot.task is None:
                return slot
        if len(self._slots) >= self.jobs:
            return None
        from claimcheck.engine.worker import serve

        parent, child = context.Pipe()
        process = context.Process(
            target=serve, args=(child, self.threads, dict(os.environ)), name="claimcheck-worker",
            daemon=True,
        )
        process.start()
        child.close()
        slot = _Slot(process, parent)
        self._slots.append(slot)
        return slot

    def _collect(self, listener: Listener) -> Iterator[Outcome]:
        busy = [slot for slot in self._slots if slot.task is not None]
        deadlines = [d for d in (slot.deadline() for slot in busy) if d is not None]
        pause = max(0.0, min(deadlines) - time.monotonic()) if deadlines else 1.0
        ready = wait([slot.connection for slot in busy], timeout=min(pause, 1.0))
        for slot in busy:
            if slot.connection in ready and slot.task is not None:
                outcome = self._receive(slot, slot.task, listener)
                if outcome is not None:
                    yield outcome
        now = time.monotonic()
        for slot in busy:
            task, deadline = slot.task, slot.deadline()
            if task is None:
                continue
            if deadline is not None and now > deadline:
                if slot.started is None:
                    reason = f"worker did not start within {STARTUP_TIMEOUT_S:g} s"
                else:
                    reason = f"timed out after {task.timeout_s:g} s (the worker stopped answering)"
                yield self._fail(slot, task, reason)
            elif not slot.process.is_alive() and not slot.connection.poll():
                died = f"worker died ({describe_exit(slot.process.exitcode)})"
                yield self._fail(slot, task, died)

    def _receive(self, slot: _Slot, task: Task, listener: Listener) -> Outcome | None:
        while slot.connection.poll():
            try:
                message = slot.connection.recv()
            except (EOFError, OSError):
                slot.process.join(timeout=1.0)
                died = f"worker died ({describe_exit(slot.process.exitcode)})"
                return self._fail(slot, task, died)
            if message[0] == "done":
                slot.task, slot.child = None, None
                outcome: Outcome = message[1]
                return outcome
            if message[0] == "start":
                slot.started = time.monotonic()
                slot.child = message[2] if len(message) > 2 else None
                listener(TaskEvent(message[1], "started"))
            else:
                listener(TaskEvent(message[1], message[2], message[3]))
        return None

    def _fail(self, slot: _Slot, task: Task, reason: str) -> Outcome:
        duration = time.monotonic() - (slot.started or slot.sent)
        slot.task = None
        self._stop(slot)
        self._slots.remove(slot)
        return Outcome(task.key, None, reason, error=reason, errored=True, duration_s=duration)

    @staticmethod
    def _stop(slot: _Slot) -> None:
        """Stop a worker: SIGTERM lets it kill its task's process group and every descendant;
        a worker that does not go in time is killed, and the task's group with it."""
        if slot.process.is_alive():
            slot.process.terminate()
            slot.process.join(timeout=2.0)
        if slot.process.is_alive():
            slot.process.kill()
            slot.process.join(timeout=2.0)
        if slot.child is not None:
            processes.kill_group(slot.child)
        slot.connection.close()

    def _shutdown(self) -> None:
        for slot in self._slots:
            if slot.task is None and slot.process.is_alive():
                with contextlib.suppress(OSError):
                    slot.connection.send(None)
                slot.process.join(timeout=2.0)
            self._stop(slot)
        self._slots.clear()
