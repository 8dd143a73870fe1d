"""Inside a worker: each check runs in a fresh process, as if it were the only one.

A worker (one per ``--jobs`` slot, or one Ray task) keeps torch imported and forks a child for
each task (:func:`run_isolated`). The child:

* leads its own process group and dies with the worker; the worker is the subreaper of what
  the check starts, and kills every leftover descendant when the task ends
  (:mod:`claimcheck.processes`);
* starts from the worker's pristine state: working directory (the project root), ``sys.path``,
  ``os.environ``, torch's default dtype, grad mode and threads, the RNGs (seeded with the run's
  seed) and every module's globals. Whatever the check changes dies with the child, so a verdict
  never depends on ``--jobs``, ``--only``, the cache or the claim that ran before it;
* has ``stdin`` from ``/dev/null`` and ``stdout``/``stderr`` in a file: what the check printed
  never reaches verify's own output (``--format json`` stays parseable) and is kept, bounded
  (:data:`OUTPUT_KEEP_CHARS`), with the outcome;
* lowers its address-space limit (:mod:`claimcheck.limits`), resolves ``--device auto``, runs
  the check (:func:`run_task`) and normalises the evidence
  (:func:`~claimcheck.checks.api.normalise_evidence`) before anything is sent to the parent.

The worker enforces the task's timeout from the fork on, kills the child's group when it passes,
and reports ``timed out after N s``; a child that dies reports ``worker died (signal ...)``.
Messages to the parent are ``("start", key, pid)``, ``("progress", key, message, fraction)`` and
``("done", Outcome)``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from typing import Any

from claimcheck import processes
from claimcheck.checks.api import (
    CheckContext,
    DataUnavailable,
    EvidenceError,
    normalise_evidence,
)
from claimcheck.errors import ClaimcheckError
from claimcheck.executor import Outcome, Task, describe_exit
from claimcheck.limits import (
    MemoryLimitError,
    apply_memory_limit,
    ceiling_above_current,
    memory_limit_bytes,
    memory_limit_for_device,
)

Send = Callable[[tuple[Any, ...]], None]
OUTPUT_KEEP_CHARS = 4_000
"""How much of what a check printed is kept: the first and last half of this, at most."""
PROGRESS_INTERVAL_S = 0.05


def resolve_device(requested: str) -> tuple[str, str]:
    """(device, why it is unusable or ""); ``auto`` is cuda when torch sees one, else cpu.

    Called inside the task's own process, so that the driver never imports torch.
    """
    if requested == "cpu":
        return "cpu", ""
    try:
        import torch
    except ImportError:
        return ("cpu", "") if requested == "auto" else (requested, "torch is not installed")
    available = bool(torch.cuda.is_available())
    if requested == "auto":
        return ("cuda" if available else "cpu"), ""
    return requested, "" if available else "device unavailable: torch sees no CUDA device"


def run_task(task: Task, send: Send) -> Outcome:
    """Run one task in this process; exceptions become an :class:`Outcome`, never escape."""
    from claimcheck.checks.resolve import resolve_check
    from claimcheck.config import load_config

    start = time.perf_counter()
    last_sent = 0.0
    device = task.device

    def progress(message: str, fraction: float | None = None) -> None:
        nonlocal last_sent
        now = time.perf_counter()
        if now - last_sent >= PROGRESS_INTERVAL_S or fraction == 1.0:
            last_sent = now
            send(("progress", task.key, str(message)[:500], _fraction(fraction)))

    def outcome(evidence: Any = None, reason: str = "", error: str | None = None) -> Outcome:
        return Outcome(task.key, evidence, reason, error=error, errored=error is not None,
                       duration_s=time.perf_counter() - start, device=device)

    try:
        device, unusable = resolve_device(task.device)
        if unusable:
            return outcome(reason=unusable)
        _limit_memory(task, device)
        _seed(task.seed, device)
        config = load_config(task.root)
        check = resolve_check(task.check, config)
        task.scratch.mkdir(parents=True, exist_ok=True)
        context = CheckContext(
            args=task.args, device=device, budget=task.budget, seed=task.seed,
            scratch=task.scratch, root=config.root, config=config, progress=progress,
        )
        return outcome(normalise_evidence(check.function(context)))
    except DataUnavailable as exc:
        return outcome(reason=_one_line(str(exc)) or "data unavailable")
    except MemoryLimitError as exc:
        return outcome(reason=f"bad memory limit: {exc}", error=str(exc))
    except EvidenceError as exc:
        return outcome(reason=f"check returned unusable evidence: {_one_line(str(exc))}",
                       error=traceback.format_exc())
    except BaseException as exc:  # a check's failure (even SystemExit) is a verdict, not a crash
        text = exc.message if isinstance(exc, ClaimcheckError) else _safe_str(exc)
        message = _one_line(text) or "(no message)"
        return outcome(reason=f"check raised {type(exc).__name__}: {message}",
                       error=traceback.format_exc())


def _fraction(value: Any) -> float | None:
    try:
        return None if value is None else min(1.0, max(0.0, float(value)))
    except (TypeError, ValueError):
        return None


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # an exception whose __str__ raises still names its type
        return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())[:2000]


def _seed(seed: int, device: str) -> None:
    """Seed Python's, numpy's and torch's RNGs with the run's seed.

    A worker has imported numpy and torch already (:func:`warm_up`), so that no check's process
    pays for importing them. On the CPU only torch's CPU generator is seeded: ``torch.manual_seed``
    would also queue a lazy CUDA seeding that records a stack trace, milliseconds per check.
    """
    import random

    random.seed(seed)
    torch = warm_up()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)
    if torch is None:
        return
    if device == "cpu":
        torch.random.default_generator.manual_seed(seed)
    else:
        torch.manual_seed(seed)


def warm_up() -> Any:
    """Import torch and numpy in the worker, once, so that no check's process pays for them;
    torch's module, or ``None`` where it is not installed. ``numpy.random`` is a submodule that
    numpy imports lazily: left to the first seeding, it cost each check's process ~14 ms."""
    for name in ("numpy", "numpy.random", "torch"):
        with contextlib.suppress(ImportError):
            __import__(name)
    return sys.modules.get("torch")


def _limit_memory(task: Task, device: str) -> None:
    """Cap what ``task`` may add to this process's address space (see :mod:`claimcheck.limits`:
    the limit is headroom above what is mapped now, torch's libraries included)."""
    memory_gb = (task.resources or {}).get("memory_gb")
    headroom = memory_limit_for_device(device, memory_limit_bytes(memory_gb))
    apply_memory_limit(ceiling_above_current(headroom))


def run_isolated(task: Task, send: Send) -> Outcome:
    """Run ``task`` in a forked child (see the module docstring); relay its messages to
    ``send``; return its outcome. Never raises for anything the check does."""
    _flush_stdio()
    before = frozenset(processes.children())
    reader, writer = os.pipe()
    capture = tempfile.TemporaryFile(prefix="claimcheck-output-")  # noqa: SIM115 - closed below
    parent = os.getpid()
    gc.freeze()  # the child's collector skips the worker's objects: fewer copy-on-write pages
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reader)
        _child_main(task, parent, Connection(writer), capture.fileno())
    os.close(writer)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    started = time.perf_counter()
    send(("start", task.key, pid))
    channel = Connection(reader)
    try:
        result = _relay(channel, task, send, started)
    finally:
        channel.close()
        processes.kill_group(pid)
        _, status = _wait(pid)
        processes.kill_descendants(exclude=before)
    output = _read_output(capture)
    if result is None:
        reason = _death_reason(status, task, started)
        return Outcome(task.key, None, reason, error=reason, errored=True,
                       duration_s=time.perf_counter() - started, output=output,
                       device=None if task.device == "auto" else task.device)
    return _with_output(result, output)


def _relay(channel: Connection, task: Task, send: Send, started: float) -> Outcome | None:
    """Forward progress until the child sends its outcome, dies, or runs out of time."""
    deadline = None if task.timeout_s is None else started + task.timeout_s
    while True:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            return None
        if not wait([channel], timeout=remaining):
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


def _death_reason(status: int, task: Task, started: float) -> str:
    if task.timeout_s is not None and time.perf_counter() - started >= task.timeout_s:
        return f"timed out after {task.timeout_s:g} s"
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return f"worker died ({describe_exit(code)})"


def _child_main(task: Task, parent: int, channel: Connection, output_fd: int) -> None:
    """The child's whole life: isolate, run, send the outcome, exit without cleanup."""
    code = 0
    try:
        processes.become_group_leader()
        processes.die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _redirect_stdio(output_fd)
        os.chdir(task.root)
        outcome = run_task(task, channel.send)
        _flush_stdio()  # before "done": the parent reads the output once it has the outcome
        try:
            channel.send(("done", outcome))
        except Exception as exc:
            reason = f"check's outcome could not be sent: {type(exc).__name__}: {exc}"
            channel.send(("done", Outcome(task.key, None, reason, error=reason, errored=True,
                                          duration_s=outcome.duration_s)))
    except BaseException:
        code = 70
    finally:
        _flush_stdio()
        os._exit(code)


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _redirect_stdio(output_fd: int) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)


def _read_output(capture: Any) -> str:
    """What the check printed: all of it, or its first and last :data:`OUTPUT_KEEP_CHARS` / 2."""
    try:
        size = os.fstat(capture.fileno()).st_size
        half = OUTPUT_KEEP_CHARS // 2
        capture.seek(0)
        if size <= OUTPUT_KEEP_CHARS:
            return str(capture.read().decode("utf-8", "replace"))
        head = capture.read(half).decode("utf-8", "replace")
        capture.seek(size - half)
        tail = capture.read(half).decode("utf-8", "replace")
        return f"{head}\n[... {size - 2 * half:,} bytes of output cut ...]\n{tail}"
    except OSError:
        return ""
    finally:
        capture.close()


def _with_output(outcome: Outcome, output: str) -> Outcome:
    import dataclasses

    return dataclasses.replace(outcome, output=output) if output else outcome


def serve(connection: Connection, threads: int) -> None:
    """A local worker: receive tasks, run each with :func:`run_isolated`, send the messages.

    Runs until it receives ``None`` or SIGTERM; either way no child or grandchild survives it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    signal.signal(signal.SIGTERM, _stop)
    os.dup2(2, 1)  # nothing this process prints may land in verify's stdout
    processes.adopt_orphans()
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, str(threads))
    torch = warm_up()
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        while True:
            task = connection.recv()
            if task is None:
                return
            connection.send(("done", run_isolated(task, connection.send)))
    except (EOFError, OSError, SystemExit):
        return
    finally:
        processes.kill_descendants()


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
