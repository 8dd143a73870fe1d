"""Run checks as Ray tasks: the cluster backend of :class:`~claimcheck.executor.Executor` (issue 8).

Each :class:`~claimcheck.executor.Task` becomes one Ray task that calls the same
:func:`~claimcheck.executor.run_task` as a local worker, so a check sees the same context, seed
and error handling wherever it runs, and a Ray run gives the same verdicts as a local one.

* **Resources.** A task asks Ray for the CPUs, GPUs and memory its tier and budget need
  (:func:`task_resources`); a claim's ``resources:`` mapping overrides them. A task that no node
  of the cluster can ever hold is not queued forever: it comes back unverified at once.
* **Single writer.** A worker runs the check in a private scratch folder and returns the
  :class:`~claimcheck.executor.Outcome` together with the folder's files as bytes; the driver
  puts them into the task's scratch path, and the caller alone writes the results store. No
  shared storage is needed for results, only the project itself at the same path on every node.
* **Failures.** Ray re-runs a task whose worker process or node died up to ``system_retries``
  times. If Ray still reports a failure, the driver submits the task afresh, up to ``attempts``
  submissions in all; after that the claim is unverified with the reason and the others go on.
  A check that *raises* is not retried: that is a deterministic verdict, as in a local run.
* **Timeouts** count from the moment a worker starts the task (queueing for a GPU is free); an
  overdue task is cancelled with ``ray.cancel(force=True)``, which kills its worker.
* **Progress.** Workers post start and progress messages to a small actor that the driver drains
  between waits and forwards to the same listener as the local pool.

Ray is optional (the ``ray`` extra) and imported only inside :meth:`RayExecutor.run`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import logging
import os
import site
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.errors import CheckReferenceError, UsageError
from claimcheck.executor import Listener, Outcome, Task, TaskEvent, run_task

DEFAULT_SYSTEM_RETRIES = 2
"""Ray-level re-runs of a task whose worker process or node died (Ray's ``max_retries``)."""
DEFAULT_ATTEMPTS = 2
"""Driver-level submissions of a task in all, for failures Ray itself gave up on."""
GIB = 1024**3
Message = tuple[Any, ...]


def missing_ray_message() -> str:
    """The one line printed when ``--executor ray`` is asked for without Ray installed."""
    return "--executor ray needs Ray: pip install 'claimcheck[ray]'"


def ray_installed() -> bool:
    """Whether ``import ray`` would find the real package (without paying for the import).

    A folder named ``ray`` on ``sys.path`` (this repository's ``tests/ray``) is a namespace
    package with no origin; it does not count.
    """
    if "ray" in sys.modules:  # imported already, or blocked with None
        return getattr(sys.modules["ray"], "__file__", None) is not None
    spec = importlib.util.find_spec("ray")
    return spec is not None and spec.origin is not None


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`UsageError` carrying :func:`missing_ray_message`."""
    if not ray_installed():
        raise UsageError(missing_ray_message())
    return importlib.import_module("ray")


def task_tier(task: Task) -> str:
    """The task's tier: its ``tier`` attribute, else the built-in kind's, else ``unit``."""
    tier = getattr(task, "tier", None)
    if tier:
        return str(getattr(tier, "value", tier))
    if ":" in task.check:
        return "unit"
    from claimcheck.checks.api import get_builtin

    try:
        return get_builtin(task.check).tier.value
    except CheckReferenceError:
        return "unit"  # the worker reports the unknown kind as the check's failure


def task_resources(
    tier: str,
    budget: str,
    override: Mapping[str, float | None] | None,
    cluster: Sequence[Mapping[str, float]],
) -> dict[str, float]:
    """Ray options (``num_cpus``, ``num_gpus``, ``memory`` in bytes) for one check.

    Defaults: one CPU for ``static``, ``unit`` and ``bench`` checks and for ``train`` at the
    ``smoke`` budget; two CPUs for ``train`` at ``short`` and ``full``, plus one GPU at ``full``
    when a node of the ``cluster`` (each node's total resources) has one. A default never asks
    for more CPUs than the largest node has (a one-CPU local instance still trains). ``override``
    is a claim's ``resources:`` (``cpus``, ``gpus``, ``memory_gb``): each key it sets wins, and
    is a demand, never shrunk.
    """
    heavy = tier == "train" and budget in ("short", "full")
    largest = max((node.get("CPU", 0.0) for node in cluster), default=1.0)
    has_gpus = any(node.get("GPU", 0.0) > 0 for node in cluster)
    options = {
        "num_cpus": max(1.0, min(2.0 if heavy else 1.0, largest)),
        "num_gpus": 1.0 if tier == "train" and budget == "full" and has_gpus else 0.0,
    }
    wanted = dict(override or {})
    cpus, gpus, memory_gb = (wanted.get(key) for key in ("cpus", "gpus", "memory_gb"))
    if cpus is not None:
        options["num_cpus"] = float(cpus)
    if gpus is not None:
        options["num_gpus"] = float(gpus)
    if memory_gb is not None:
        options["memory"] = int(float(memory_gb) * GIB)
    return options


def describe_resources(options: Mapping[str, float]) -> str:
    """``2 CPUs, 1 GPU, 4 GiB`` for a task's Ray options."""
    parts = [f"{options['num_cpus']:g} CPU" + ("s" if options["num_cpus"] != 1 else "")]
    if options.get("num_gpus"):
        parts.append(f"{options['num_gpus']:g} GPU" + ("s" if options["num_gpus"] != 1 else ""))
    if options.get("memory"):
        parts.append(f"{options['memory'] / GIB:g} GiB")
    return ", ".join(parts)


def infeasible_reason(options: Mapping[str, float], nodes: Sequence[Mapping[str, float]]) -> str:
    """Why no node (``nodes``: each alive node's total resources) can run a task, or ``""``."""
    for node in nodes:
        if (node.get("CPU", 0.0) >= options["num_cpus"]
                and node.get("GPU", 0.0) >= options.get("num_gpus", 0.0)
                and node.get("memory", float("inf")) >= options.get("memory", 0.0)):
            return ""
    return f"no node of the Ray cluster has {describe_resources(options)} for this check"


def read_artifacts(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder``, by its POSIX path relative to ``folder``."""
    if not folder.is_dir():
        return {}
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*")) if path.is_file()
    }


def write_artifacts(files: Mapping[str, bytes], folder: Path) -> None:
    """Recreate :func:`read_artifacts`' files under ``folder`` (names never leave it)."""
    base = folder.resolve()
    for name, data in files.items():
        target = (folder / name).resolve()
        if base not in target.parents:
            raise ValueError(f"artifact name {name!r} leaves the scratch folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


class ProgressSink:
    """A Ray actor holding the workers' messages until the driver drains them.

    One sink serves every run of a driver process (an actor costs a worker process to start);
    each message carries its run's token so that a run never sees another's messages.
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []

    def put(self, message: Message) -> None:
        """Keep one message."""
        self._messages.append(message)

    def flush(self) -> None:
        """Nothing: a caller that waits for this knows its earlier messages have arrived (an
        actor runs one caller's calls in the order they were made)."""

    def drain(self) -> list[Message]:
        """Every message since the last drain, oldest first."""
        messages, self._messages = self._messages, []
        return messages


_SINKS: dict[str, Any] = {}
"""The progress sink of each Ray job (driver connection) of this process, by job id."""


def progress_sink(ray: Any) -> Any:
    """This driver's :class:`ProgressSink` actor, created on first use."""
    job = str(ray.get_runtime_context().get_job_id())
    if job not in _SINKS:
        _SINKS.clear()  # sinks of earlier connections died with them
        _SINKS[job] = ray.remote(ProgressSink).options(num_cpus=0).remote()
    return _SINKS[job]


@contextlib.contextmanager
def project_modules_forgotten(root: Path) -> Iterator[None]:
    """Forget the project modules a task imports, and restore ``sys.path``, when it ends.

    Ray reuses worker processes across tasks, runs and projects: without this, a worker would
    keep running the check code it imported first even after the file changed.
    """
    path_before, modules_before = list(sys.path), set(sys.modules)
    try:
        yield
    finally:
        roots = [root.resolve()] + [Path(p).resolve() for p in set(sys.path) - set(path_before)]
        # Installed packages stay, even from a virtual environment inside the project folder.
        installed = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, site.USER_SITE)
                     if p}
        sys.path[:] = path_before
        for name in set(sys.modules) - modules_before:
            file = getattr(sys.modules.get(name), "__file__", None)
            if name.partition(".")[0] == "claimcheck" or not file:
                continue
            where = Path(file).resolve()
            if _inside(where, roots) and not _inside(where, installed):
                del sys.modules[name]
        importlib.invalidate_caches()


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(folder == path or folder in path.parents for folder in folders)


def _warm_up(cpus: float) -> None:
    """Import torch before the task counts as started (start-up never eats a check's time) and
    give it as many threads as the task holds CPUs."""
    try:
        import torch
    except ImportError:
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
        with contextlib.suppress(Exception):  # progress is best effort; the result is not
            sink.put.remote((token, *message))

    _warm_up(cpus)
    ray.get(sink.put.remote((token, "start", task.key, attempt)))  # before any result exists
    if not task.root.is_dir():
        reason = f"project folder {task.root} not found on node {socket.gethostname()}"
        return Outcome(task.key, None, reason, error=reason, errored=True), {}
    with tempfile.TemporaryDirectory(prefix="claimcheck-ray-") as folder:
        scratch = Path(folder) / "scratch"
        with project_modules_forgotten(task.root):
            outcome = run_task(dataclasses.replace(task, scratch=scratch), send)
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
        timeout = self.task.timeout_s
        return self.started is not None and timeout is not None and now > self.started + timeout


def _probe(address: str, timeout_s: float = 10.0) -> None:
    """Fail fast on a ``HOST:PORT`` nobody listens on (``ray.init`` would retry for minutes)."""
    host, _, port = address.rpartition(":")
    if address == "auto" or "://" in address or not host or not port.isdigit():
        return
    with socket.create_connection((host, int(port)), timeout=timeout_s):
        pass


def _failure_summary(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[0] if lines else "(no message)"
    return f"{type(error).__name__}: {text[:200]}"


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
        deadlines = [r.started + r.task.timeout_s for r in session.pending.values()
                     if r.started is not None and r.task.timeout_s is not None]
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
                reason = f"timed out after {running.task.timeout_s:g} s"
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
