"""Inside a worker: each check runs in a fresh process, as if it were the only one.

A worker (one per ``--jobs`` slot, or one Ray task) keeps torch imported and runs every task in
a child process forked from its own pristine state (:class:`Isolation`); the child's side is
:mod:`claimcheck.engine.child`. Each child:

* leads its own process group and dies with the worker; the worker is the subreaper of what
  the check starts, and kills every leftover descendant before the next task starts
  (:mod:`claimcheck.engine.processes`);
* starts from the worker's pristine state: working directory (the project root), ``sys.path``,
  ``os.environ``, torch's default dtype, grad mode and threads, the RNGs (seeded with the run's
  seed) and every module's globals. Whatever the check changes dies with the child, so a verdict
  never depends on ``--jobs``, ``--only``, the cache or the claim that ran before it;
* has ``stdin`` from ``/dev/null`` and ``stdout``/``stderr`` in a file: what the check printed
  never reaches verify's own output (``--format json`` stays parseable) and is kept, bounded
  (:data:`OUTPUT_KEEP_CHARS`), with the outcome.

A local worker watches its driver while a check runs: if the driver dies (even by SIGKILL, which
it cannot handle), the worker's connection reads as end of file at once, and the worker kills the
check's group and exits (the check's child dies with it, ``PR_SET_PDEATHSIG``), so nothing of a
killed verify runs on for more than a moment.

Off the critical path. A local worker (:func:`serve`) keeps one *spare* child forked and
waiting on a pipe, its configuration loaded, so a task starts without a fork. When a child
sends its outcome the worker kills its process group at once and sends the outcome on; only
then, while the driver judges and stores the result, does it reap the child, kill and reap
every descendant the check left (:meth:`Isolation.settle`) and fork the next spare
(:meth:`Isolation.prepare`). The next task is read only after that, so nothing of one task
lives while the next runs. A Ray task (:func:`run_isolated`) forks on demand and settles
before it returns.

The worker enforces the task's safety net (:mod:`claimcheck.engine.safety_net`: the check's own CPU
time, so a loaded machine never trips it) from the moment it hands the task to the child, kills
the child's group when it passes, and reports ``timed out after N s ...``; a child that dies
reports ``worker died (signal ...)``. Messages to the parent are ``("start", key, pid)``,
``("progress", key, message, fraction)`` and ``("done", Outcome)``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import signal
import tempfile
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import IO

from claimcheck.engine import processes
from claimcheck.engine.check_run import Send, flush_stdio, warm_up
from claimcheck.engine.child import child_main
from claimcheck.engine.safety_net import SafetyNet
from claimcheck.engine.tasks import Outcome, Task, describe_exit

__all__ = ["OUTPUT_KEEP_CHARS", "Isolation", "run_isolated", "serve", "warm_up"]

OUTPUT_KEEP_CHARS = 4_000
"""How much of what a check printed is kept: the first and last half of this, at most."""


@dataclass
class _Child:
    """A forked check process, before and while it runs its one task."""

    pid: int
    tasks: Connection  # worker -> child: the task
    channel: Connection  # child -> worker: start, progress, done
    capture: IO[bytes]  # what the check prints
    keep: frozenset[int]  # the worker's children that are not this task's to kill

    def close(self) -> None:
        """Close the pipes (a spare that never got a task then exits on its own)."""
        self.tasks.close()
        self.channel.close()


class Isolation:
    """Runs tasks one at a time, each in a fresh child forked from this process."""

    def __init__(self) -> None:
        self._spare: _Child | None = None
        self._done: _Child | None = None  # ran, its group killed, not yet reaped

    def prepare(self, root: Path | None) -> None:
        """Fork the spare child for the next task, preloading ``root``'s configuration."""
        if self._spare is None:
            self._spare = _fork(root)

    def run(self, task: Task, send: Send, driver: Connection | None = None) -> Outcome:
        """Run ``task`` in the spare (or a child forked now); relay its messages to ``send``;
        return its outcome. Never raises for anything the check does. Call :meth:`settle`
        before the next task, or let :meth:`run` do it. ``driver`` is the connection from the
        driver, which sends nothing while a task runs: when it turns readable (the driver died,
        so it reads as end of file) the child's group is killed at once and the task ends."""
        self.settle()
        child = self._spare or _fork(task.root)
        self._spare = None
        net = SafetyNet(task.timeout_s, child.pid)
        with contextlib.suppress(OSError):  # a spare that died: reported as its death below
            child.tasks.send(task)
        send(("start", task.key, child.pid))
        try:
            result = _relay(child.channel, send, net, driver)
        finally:
            child.close()
            processes.kill_group(child.pid)
        if result is not None:
            self._done = child
            return _with_output(result, _read_output(child.capture))
        status = self._reap(child)
        reason = net.reason or _death_reason(status)
        return Outcome(task.key, None, reason, error=reason, errored=True,
                       duration_s=net.elapsed(),
                       output=_read_output(child.capture),
                       device=None if task.device == "auto" else task.device)

    def settle(self) -> None:
        """Reap the last task's child and kill and reap every descendant it left."""
        if self._done is not None:
            self._reap(self._done)
            self._done = None

    def close(self) -> None:
        """Settle, and end the spare."""
        self.settle()
        if self._spare is not None:
            spare, self._spare = self._spare, None
            spare.close()
            processes.kill_group(spare.pid)
            self._reap(spare)

    @staticmethod
    def _reap(child: _Child) -> int:
        _, status = _wait(child.pid)
        processes.kill_descendants(exclude=child.keep)
        return status


def _fork(root: Path | None) -> _Child:
    """Fork a child that waits for its task (:func:`claimcheck.engine.child.child_main`)."""
    flush_stdio()
    keep = frozenset(processes.children())
    task_reader, task_writer = os.pipe()
    reader, writer = os.pipe()
    capture = tempfile.TemporaryFile(prefix="claimcheck-output-")  # noqa: SIM115 - closed later
    parent = os.getpid()
    gc.freeze()  # the child's collector skips the worker's objects: fewer copy-on-write pages
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(task_writer)
        os.close(reader)
        child_main(Connection(task_reader), parent, Connection(writer), capture.fileno(), root)
    os.close(task_reader)
    os.close(writer)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    return _Child(pid, Connection(task_writer), Connection(reader), capture, keep)


def run_isolated(task: Task, send: Send) -> Outcome:
    """Run ``task`` in a child forked for it now, and reap everything it left before returning
    (what a Ray task does; see the module docstring)."""
    isolation = Isolation()
    try:
        return isolation.run(task, send)
    finally:
        isolation.close()


def _relay(channel: Connection, send: Send, net: SafetyNet,
           driver: Connection | None = None) -> Outcome | None:
    """Forward progress until the child sends its outcome, dies, or passes its safety net, or
    until the driver is gone (``driver`` readable: see :meth:`Isolation.run`)."""
    watched = [channel] if driver is None else [channel, driver]
    while True:
        if net.passed():
            return None
        ready = wait(watched, timeout=net.next_wait())
        if driver is not None and driver in ready:
            raise _DriverGone
        if not ready:
            continue
        try:
            message = channel.recv()
        except (EOFError, OSError):
            return None
        if message[0] == "done":
            outcome: Outcome = message[1]
            return outcome
        send(message)


def _wait(pid: int) -> tuple[int, int]:
    try:
        return os.waitpid(pid, 0)
    except ChildProcessError:
        return pid, 0


def _death_reason(status: int) -> str:
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return f"worker died ({describe_exit(code)})"


def _read_output(capture: IO[bytes]) -> str:
    """What the check printed: all of it, or its first and last :data:`OUTPUT_KEEP_CHARS` / 2."""
    try:
        size = os.fstat(capture.fileno()).st_size
        half = OUTPUT_KEEP_CHARS // 2
        capture.seek(0)
        if size <= OUTPUT_KEEP_CHARS:
            return capture.read().decode("utf-8", "replace")
        head = capture.read(half).decode("utf-8", "replace")
        capture.seek(size - half)
        tail = capture.read(half).decode("utf-8", "replace")
        return f"{head}\n[... {size - 2 * half:,} bytes of output cut ...]\n{tail}"
    except OSError:
        return ""
    finally:
        capture.close()


def _with_output(outcome: Outcome, output: str) -> Outcome:
    return dataclasses.replace(outcome, output=output) if output else outcome


def serve(connection: Connection, threads: int, environ: dict[str, str]) -> None:
    """A local worker: receive tasks, run each in a fresh child, send the messages.

    ``environ`` is the driver's environment when it started the worker: a forkserver keeps the
    one it was started with, and a program that runs verify twice (the API, a notebook) must
    see the variables of the run it asked for (data folders, memory limit, cache). Runs until it
    receives ``None`` or SIGTERM; either way no child or grandchild survives it.
    """
    os.environ.clear()
    os.environ.update(environ)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _stop)
    os.dup2(2, 1)  # nothing this process prints may land in verify's stdout
    processes.adopt_orphans()
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, str(threads))
    torch = warm_up()
    if torch is not None:
        torch.set_num_threads(threads)
    isolation = Isolation()
    try:
        while True:
            task = connection.recv()
            if task is None:
                return
            connection.send(("done", isolation.run(task, connection.send, connection)))
            isolation.settle()
            isolation.prepare(task.root)
    except (EOFError, OSError, SystemExit, _DriverGone):
        return
    finally:
        isolation.close()
        processes.kill_descendants()


class _DriverGone(Exception):
    """The driver's end of a worker's connection turned readable while a task ran: the driver
    died (it sends nothing to a busy worker), so the worker ends the task and itself."""


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
