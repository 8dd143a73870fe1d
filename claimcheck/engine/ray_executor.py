"""Run checks as Ray tasks: the cluster backend of :class:`~claimcheck.engine.executor.Executor`
(issue 8).

Each :class:`~claimcheck.engine.executor.Task` becomes one Ray task that runs the check exactly as a
local worker does, in a process forked for it alone (:func:`claimcheck.engine.worker.run_isolated`),
so a check sees the same context, seed, isolation and error handling wherever it runs, and a Ray run
gives the same verdicts as a local one. A Ray worker process is reused across tasks; what a check
changes dies with its own process.

* **Resources.** A task asks Ray for the CPUs, GPUs and memory its tier and budget need
  (:func:`~claimcheck.engine.ray_support.task_resources`); a claim's ``resources:`` mapping
  overrides them. A task that no node of the cluster can ever hold comes back unverified at once.
* **Single writer.** A worker runs the check in a private scratch folder and returns the
  :class:`~claimcheck.engine.executor.Outcome` together with the folder's files as bytes; the driver
  puts them into the task's scratch path, and the caller alone writes the results store. No
  shared storage is needed for results, only the project itself at the same path on every node.
* **Failures.** Ray re-runs a task whose worker process or node died up to ``system_retries``
  times. If Ray still reports a failure, the driver submits the task afresh, up to ``attempts``
  submissions in all; after that the claim is unverified with the reason and the others go on.
  A check that raises, or ends its own process, is not retried: that is the check's failure, as
  in a local run.
* **Timeouts** count from the moment a worker starts the task (queueing for a GPU is free). The
  worker enforces them and reports "timed out after N s"; the driver cancels a task that is
  still running :data:`~claimcheck.engine.executor.WORKER_GRACE_S` later
  (``ray.cancel(force=True)``).
* **Progress.** Workers post start and progress messages to a small actor that the driver drains
  between waits and forwards to the same listener as the local pool.

Ray is optional (the ``ray`` extra) and imported only inside :meth:`RayExecutor.run`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import socket
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.core.errors import UsageError
from claimcheck.engine import processes
from claimcheck.engine.executor import WORKER_GRACE_S
from claimcheck.engine.ray_support import (
    _SINKS,
    DEFAULT_ATTEMPTS,
    DEFAULT_SYSTEM_RETRIES,
    GIB,
    Message,
    _failure_summary,
    _probe,
    describe_resources,
    import_ray,
    infeasible_reason,
    missing_ray_message,
    progress_sink,
    ray_installed,
    read_artifacts,
    task_resources,
    task_tier,
    write_artifacts,
)
from claimcheck.engine.safety_net import wall_limit
from claimcheck.engine.tasks import Listener, Outcome, Task, TaskEvent
from claimcheck.engine.worker import run_isolated, warm_up

__all__ = [
    "DEFAULT_ATTEMPTS", "DEFAULT_SYSTEM_RETRIES", "GIB", "RayExecutor", "describe_resources",
    "import_ray", "infeasible_reason", "missing_ray_message", "progress_sink", "ray_installed",
    "read_artifacts", "run_remote", "task_resources", "task_tier", "write_artifacts",
]


def _warm_up(cpus: float) -> None:
    """Import torch and numpy before the task counts as started (start-up never eats a check's
    time) and give torch as many threads as the task holds CPUs."""
    torch = warm_up()
    if torch is None:
        return
    torch.set_num_threads(max(1, int(cpus)))


def run_remote(
    task: Task, sink: Any, token: str, attempt: int, cpus: float
) -> tuple[Outcome, dict[str, bytes]]:
    """The body of one Ray task: run the check in a private scratch folder, return its files.

    Messages to the driver are ``(token, "start", key, attempt)`` and
    ``(token, "progress", key, message, fraction)``.
    """
    ray = import_ray()

    def send(message: Message) -> None:
        if message[0] == "start":  # announced below, with the attempt, before the fork
            return
        with contextlib.suppress(Exception):  # progress is best effort; the result is not
            sink.put.remote((token, *message))

    _warm_up(cpus)
    processes.adopt_orphans()  # what a check leaves running is this worker's to kill
    ray.get(sink.put.remote((token, "start", task.key, attempt)))  # before any result exists
    if not task.root.is_dir():
        reason = f"project folder {task.root} not found on node {socket.gethostname()}"
        return Outcome(task.key, None, reason, error=reason, errored=True), {}
    with tempfile.TemporaryDirectory(prefix="claimcheck-ray-") as folder:
        scratch = Path(folder) / "scratch"
        outcome = run_isolated(dataclasses.replace(task, scratch=scratch), send)
        with contextlib.suppress(Exception):  # every progress message lands before the result
            ray.get(sink.flush.remote())
        return outcome, read_artifacts(scratch)


@dataclass
class _Running:
    task: Task
    options: dict[str, float]
    submitted: float
    attempt: int = 1
    started: float | None = None
    announced: bool = False

    def overdue(self, now: float) -> bool:
        """Past the task's wall-clock backstop and the grace in which its worker reports it."""
        backstop = wall_limit(self.task.timeout_s)
        return (self.started is not None and backstop is not None
                and now > self.started + backstop + WORKER_GRACE_S)


@dataclass
class _Session:
    """One :meth:`RayExecutor.run`: the Ray module, the remote function, the sink, the token."""

    ray: Any
    remote: Any
    sink: Any
    token: str
    pending: dict[Any, _Running] = dataclasses.field(default_factory=dict)

    def submit(self, running: _Running, system_retries: int) -> None:
        running.started = None
        options = {"max_retries": system_retries, **running.options}
        ref = self.remote.options(**options).remote(
            running.task, self.sink, self.token, running.attempt, running.options["num_cpus"]
        )
        self.pending[ref] = running

    def forward(self, listener: Listener) -> None:
        """Hand this run's drained start and progress messages to ``listener``."""
        try:
            messages = self.ray.get(self.sink.drain.remote())
        except self.ray.exceptions.RayActorError:  # the sink's process died: start a new one
            _SINKS.clear()
            self.sink = progress_sink(self.ray)  # tasks that held the old one fail and are retried
            return
        by_key = {running.task.key: running for running in self.pending.values()}
        for token, kind, key, *rest in messages:
            running = by_key.get(key)
            if token != self.token or running is None:
                continue  # another run's message, or a late one of a finished task
            if kind == "start" and rest[0] == running.attempt:
                running.started = time.monotonic()
                if not running.announced:
                    running.announced = True
                    listener(TaskEvent(key, "started"))
            elif kind == "progress":
                listener(TaskEvent(key, rest[0], rest[1]))

    def cancel_all(self) -> None:
        """Stop every task still pending (their workers are killed)."""
        for ref in self.pending:
            with contextlib.suppress(Exception):
                self.ray.cancel(ref, force=True)
        self.pending.clear()


@dataclass
class RayExecutor:
    """Runs tasks on a Ray cluster (``address``: ``auto`` or ``HOST:PORT``) or, with no address,
    on a local Ray instance with ``num_cpus`` CPUs (default: all of this machine's).

    A Ray session this executor starts is shut down when :meth:`run` ends. When this process is
    already connected to Ray (by the caller, or a test fixture), that connection is used as it
    is, whatever ``address`` says, and left open.
    """

    address: str | None = None
    num_cpus: int | None = None
    system_retries: int = DEFAULT_SYSTEM_RETRIES
    attempts: int = DEFAULT_ATTEMPTS
    poll_s: float = 0.25

    def __post_init__(self) -> None:
        if not ray_installed():
            raise UsageError(missing_ray_message())
        if self.attempts < 1 or self.system_retries < 0:
            raise ValueError("attempts must be at least 1 and system_retries at least 0")

    def run(self, tasks: Sequence[Task], listener: Listener) -> Iterator[Outcome]:
        """Submit every task, then yield each outcome as soon as it is known."""
        ray = import_ray()
        started_here = self._connect(ray)
        session: _Session | None = None
        try:
            session = _Session(ray, ray.remote(run_remote), progress_sink(ray), uuid.uuid4().hex)
            nodes = [node["Resources"] for node in ray.nodes() if node.get("Alive")]
            for task in tasks:
                override = getattr(task, "resources", None)
                options = task_resources(task_tier(task), task.budget, override, nodes)
                problem = infeasible_reason(options, nodes)
                if problem:
                    yield Outcome(task.key, None, problem, error=problem, errored=True)
                else:
                    session.submit(_Running(task, options, time.monotonic()), self.system_retries)
            while session.pending:
                yield from self._step(session, listener)
        finally:
            if session is not None:
                session.cancel_all()
            if started_here:
                _SINKS.clear()
                ray.shutdown()

    def _connect(self, ray: Any) -> bool:
        if ray.is_initialized():
            return False
        quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
        try:
            if self.address:
                _probe(self.address)
                ray.init(address=self.address, **quiet)
            else:
                ray.init(num_cpus=self.num_cpus or os.cpu_count() or 1,
                         include_dashboard=False, **quiet)
        except OSError as error:  # ConnectionError included
            where = self.address or "a local instance"
            raise UsageError(f"cannot reach Ray at {where}: {_failure_summary(error)}") from None
        return True

    def _step(self, session: _Session, listener: Listener) -> Iterator[Outcome]:
        now = time.monotonic()
        deadlines = [r.started + backstop + WORKER_GRACE_S
                     for r in session.pending.values()
                     if r.started is not None
                     and (backstop := wall_limit(r.task.timeout_s)) is not None]
        pause = max(0.0, min([self.poll_s, *(deadline - now for deadline in deadlines)]))
        ready, _ = session.ray.wait(list(session.pending), num_returns=1, timeout=pause)
        session.forward(listener)
        for ref in ready:
            running = session.pending.pop(ref)
            outcome = self._finish(session.ray, ref, running)
            if outcome is None:
                session.submit(running, self.system_retries)
            else:
                yield outcome
        now = time.monotonic()
        for ref, running in list(session.pending.items()):
            if running.overdue(now):
                session.ray.cancel(ref, force=True)
                del session.pending[ref]
                reason = (f"timed out after {running.task.timeout_s:g} s (the worker stopped "
                          "answering)")
                yield Outcome(running.task.key, None, reason, error=reason, errored=True,
                              duration_s=now - (running.started or running.submitted))

    def _finish(self, ray: Any, ref: Any, running: _Running) -> Outcome | None:
        """The task's outcome, or ``None`` when it must be submitted again."""
        try:
            result: tuple[Outcome, dict[str, bytes]] = ray.get(ref)
        except ray.exceptions.RayError as error:
            if running.attempt < self.attempts:
                running.attempt += 1
                return None
            reason = (f"worker failed after {running.attempt} attempt(s): "
                      f"{_failure_summary(error)}")
            return Outcome(running.task.key, None, reason, error=str(error), errored=True,
                           duration_s=time.monotonic() - running.submitted)
        outcome, files = result
        write_artifacts(files, running.task.scratch)
        return outcome
