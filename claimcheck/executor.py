"""Where checks run: the :class:`Executor` interface and the local process pool.

Every check runs in a worker process, so that a check that hangs or kills its own process costs
only its own verdict ("timed out after 120 s", "worker died (signal SIGKILL)"). The interface is
small on purpose: a cluster backend (issue 8, Ray) implements :meth:`Executor.run` for the same
:class:`Task` and :class:`Outcome` values and nothing else changes. Executors never write the
results store; the caller, the single writer, does.

Workers talk to the parent over one pipe each (no shared queue, so a worker killed mid-message
cannot wedge the others): ``("start", key)``, ``("progress", key, message, fraction)`` and
``("done", Outcome)``. Before each check a worker lowers its address-space limit
(:mod:`claimcheck.limits`: ``CLAIMCHECK_MEMORY_LIMIT_GB`` or the claim's ``resources.memory_gb``;
none on a GPU), so a check that allocates without bound fails alone with ``MemoryError``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Protocol

from claimcheck.checks.api import CheckContext, DataUnavailable, Evidence
from claimcheck.limits import (
    MemoryLimitError,
    apply_memory_limit,
    memory_limit_bytes,
    memory_limit_for_device,
)


@dataclass(frozen=True)
class Task:
    """One check to run: everything a worker needs, picklable."""

    key: str
    check: str
    args: dict[str, Any]
    device: str
    budget: str
    seed: int
    scratch: Path
    root: Path
    timeout_s: float | None = None
    tier: str | None = None
    resources: dict[str, float | None] | None = None  # the claim's ``resources:``, if any


@dataclass(frozen=True)
class Outcome:
    """What became of a task: evidence, or the reason there is none.

    ``errored`` is true when the check raised, timed out or killed its worker (exit code 1); a
    check that raised :class:`DataUnavailable` has no evidence but did not err.
    """

    key: str
    evidence: Evidence | None
    reason: str = ""
    error: str | None = None
    errored: bool = False
    duration_s: float = 0.0


@dataclass(frozen=True)
class TaskEvent:
    """A task started (``message == "started"``, ``fraction is None``) or reported progress."""

    key: str
    message: str
    fraction: float | None = None


Listener = Callable[[TaskEvent], None]
STARTUP_TIMEOUT_S = 600.0
"""How long a fresh worker may take to import torch and report a task started."""


class Executor(Protocol):
    """Runs tasks and yields each :class:`Outcome` as soon as it is known, in any order.

    Closing the iterator early (or a ``KeyboardInterrupt`` while it waits) must stop every
    running task and leave nothing behind.
    """

    def run(self, tasks: Sequence[Task], listener: Listener) -> Iterator[Outcome]: ...


def describe_exit(exitcode: int | None) -> str:
    """``exit code 3`` or ``signal SIGKILL`` for a dead worker."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def run_task(task: Task, send: Callable[[tuple[Any, ...]], None]) -> Outcome:
    """Run one task in this process; exceptions become an :class:`Outcome`, never escape."""
    from claimcheck.checks.resolve import resolve_check
    from claimcheck.config import load_config

    start = time.perf_counter()
    last_sent = 0.0

    def progress(message: str, fraction: float | None = None) -> None:
        nonlocal last_sent
        now = time.perf_counter()
        if now - last_sent >= 0.05 or fraction == 1.0:
            last_sent = now
            send(("progress", task.key, str(message), fraction))

    try:
        _seed(task.seed)
        config = load_config(task.root)
        check = resolve_check(task.check, config)
        task.scratch.mkdir(parents=True, exist_ok=True)
        context = CheckContext(
            args=task.args, device=task.device, budget=task.budget, seed=task.seed,
            scratch=task.scratch, root=config.root, config=config, progress=progress,
        )
        evidence = check.function(context)
        if not isinstance(evidence, Evidence):
            raise TypeError(f"check returned {type(evidence).__name__}, not Evidence")
        return Outcome(task.key, evidence, duration_s=time.perf_counter() - start)
    except DataUnavailable as exc:
        reason = str(exc) or "data unavailable"
        return Outcome(task.key, None, reason, duration_s=time.perf_counter() - start)
    except BaseException as exc:  # a check's failure (even SystemExit) is a verdict, not a crash
        message = " ".join(str(exc).split()) or "(no message)"
        return Outcome(
            task.key, None, f"check raised {type(exc).__name__}: {message}",
            error=traceback.format_exc(), errored=True, duration_s=time.perf_counter() - start,
        )


def _seed(seed: int) -> None:
    import random

    random.seed(seed)
    try:
        import numpy
        import torch
    except ImportError:
        return
    numpy.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _worker_main(connection: Connection, threads: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, str(threads))
    try:
        import torch

        torch.set_num_threads(threads)
    except ImportError:
        pass
    while True:
        task = connection.recv()
        if task is None:
            return
        connection.send(("start", task.key))
        try:
            _limit_memory(task)
        except MemoryLimitError as exc:
            outcome = Outcome(task.key, None, f"bad memory limit: {exc}", error=str(exc),
                              errored=True)
        else:
            outcome = run_task(task, connection.send)
        connection.send(("done", outcome))


def _limit_memory(task: Task) -> None:
    """Cap this worker's address space for ``task`` (see :mod:`claimcheck.limits`)."""
    memory_gb = (task.resources or {}).get("memory_gb")
    limit = memory_limit_for_device(task.device, memory_limit_bytes(memory_gb))
    apply_memory_limit(limit)


@dataclass
class _Slot:
    process: BaseProcess
    connection: Connection
    task: Task | None = None
    sent: float = 0.0
    started: float | None = None  # when the worker reported the task started

    def deadline(self) -> float | None:
        """When the running task times out (a task still waiting on worker start-up: later)."""
        if self.task is None:
            return None
        if self.started is None:
            return self.sent + STARTUP_TIMEOUT_S
        return None if self.task.timeout_s is None else self.started + self.task.timeout_s


def default_start_method() -> str:
    """``forkserver`` where the platform has it (workers fork from a server that has imported
    torch once, so a replaced worker starts in milliseconds), else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@dataclass
class LocalExecutor:
    """A pool of ``jobs`` worker processes on this machine.

    A worker is reused for the next task while it stays healthy, and replaced after a timeout
    or a death. A task's timeout counts from the moment its worker starts it, so a worker's
    start-up (spawning, importing torch) never eats into a check's time.
    torch threads per worker default to the CPU count divided by ``jobs``.
    """

    jobs: int = 1
    start_method: str = field(default_factory=default_start_method)
    threads: int | None = None
    _slots: list[_Slot] = field(default_factory=list, init=False, repr=False)

    def run(self, tasks: Sequence[Task], listener: Listener) -> Iterator[Outcome]:
        """Run ``tasks`` on up to ``jobs`` workers; yield outcomes as they finish."""
        if self.jobs < 1:
            raise ValueError("jobs must be at least 1")
        context = multiprocessing.get_context(self.start_method)
        if self.start_method == "forkserver":
            # Importing torch does not initialise CUDA, so forked workers may still use it.
            context.set_forkserver_preload(["claimcheck.executor", "torch"])
        threads = self.threads or max(1, (os.cpu_count() or 1) // self.jobs)
        waiting = deque(tasks)
        try:
            while waiting or any(slot.task is not None for slot in self._slots):
                while waiting and (slot := self._idle_slot(context, threads)) is not None:
                    slot.task, slot.sent, slot.started = waiting.popleft(), time.monotonic(), None
                    slot.connection.send(slot.task)
                yield from self._collect(listener)
        finally:
            self._shutdown()

    def _idle_slot(self, context: Any, threads: int) -> _Slot | None:
        for slot in self._slots:
            if slot.task is None:
                return slot
        if len(self._slots) >= self.jobs:
            return None
        parent, child = context.Pipe()
        process = context.Process(
            target=_worker_main, args=(child, threads), name="claimcheck-worker", daemon=True
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
                    reason = f"timed out after {task.timeout_s:g} s"
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
                slot.task = None
                outcome: Outcome = message[1]
                return outcome
            if message[0] == "start":
                slot.started = time.monotonic()
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
        if slot.process.is_alive():
            slot.process.terminate()
            slot.process.join(timeout=2.0)
        if slot.process.is_alive():
            slot.process.kill()
            slot.process.join(timeout=2.0)
        slot.connection.close()

    def _shutdown(self) -> None:
        for slot in self._slots:
            if slot.task is None and slot.process.is_alive():
                with contextlib.suppress(OSError):
                    slot.connection.send(None)
                slot.process.join(timeout=2.0)
            self._stop(slot)
        self._slots.clear()
