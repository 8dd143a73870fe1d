"""Inside a check's own process: wait for the task, isolate, run it, send the outcome, exit.

A worker (:mod:`claimcheck.engine.worker`) forks this process *before* it has a task for it (a
spare), so the fork is paid while the driver judges and stores the previous result. Until the task
arrives the process only does what is the same for every task: it leads its own process group,
dies with the worker, ignores Ctrl-C (the driver decides when to stop), reads ``stdin`` from
``/dev/null``, writes ``stdout``/``stderr`` into its capture file, and loads the project's
configuration for the root the worker expects (:class:`PreloadedConfig`, used only if the task
has that root and its ``pyproject.toml`` is unchanged). Nothing of any other task ever runs in
it: it is forked from the worker's pristine state and exits after one task.

Once the task arrives (:func:`child_main`) it moves to the project root, lowers its
address-space limit (:mod:`claimcheck.engine.limits`), resolves ``--device auto``, seeds the RNGs,
runs the check (:func:`run_task`) and normalises the evidence
(:func:`~claimcheck.checks.api.normalise_evidence`) before anything is sent to the worker.
A power run's task names a wrong variant: it is applied after the check is resolved (its module
imported) and right before the check runs (:func:`apply_variant`); the process, and with it
every change the variant made, is discarded afterwards.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from claimcheck.checks.api import CheckContext, DataUnavailable, EvidenceError, normalise_evidence
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import ClaimcheckError
from claimcheck.engine import processes
from claimcheck.engine.limits import (
    MemoryLimitError,
    apply_memory_limit,
    ceiling_above_current,
    memory_limit_bytes,
    memory_limit_for_device,
)
from claimcheck.engine.tasks import Outcome, Task

Send = Callable[[tuple[Any, ...]], None]
CHECK_RAISED = "check raised"
"""How the reason of an outcome whose check raised begins (``check raised ValueError: ...``)."""
PROGRESS_INTERVAL_S = 0.05


@dataclass(frozen=True)
class PreloadedConfig:
    """A project's configuration loaded before its task arrived, with the stamp of the
    ``pyproject.toml`` it was read from (taken before reading, so a change shows)."""

    root: Path
    stamp: tuple[int, int, int]
    config: ProjectConfig

    @classmethod
    def load(cls, root: Path | None) -> PreloadedConfig | None:
        """The configuration of ``root``, or ``None`` where it cannot be preloaded (no
        ``pyproject.toml`` at the root, or it fails to load: the task then loads and reports)."""
        if root is None:
            return None
        from claimcheck.core.config import load_config

        stamp = _stamp(root)
        if stamp is None:
            return None
        try:
            return cls(root, stamp, load_config(root))
        except Exception:
            return None

    def for_task(self, task: Task) -> ProjectConfig | None:
        """The configuration if ``task`` has this root and its ``pyproject.toml`` is unchanged."""
        if task.root != self.root or _stamp(task.root) != self.stamp:
            return None
        return self.config


def _stamp(root: Path) -> tuple[int, int, int] | None:
    try:
        stat = (root / "pyproject.toml").stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


def child_main(tasks: Connection, parent: int, channel: Connection, output_fd: int,
               expected_root: Path | None) -> None:
    """The whole life of a check's process (see the module docstring); never returns."""
    code = 0
    try:
        processes.become_group_leader()
        processes.die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        redirect_stdio(output_fd)
        preloaded = PreloadedConfig.load(expected_root)
        try:
            task: Task = tasks.recv()
        except (EOFError, OSError):  # the worker closed the spare without a task
            os._exit(0)
        os.chdir(task.root)
        config = preloaded.for_task(task) if preloaded is not None else None
        outcome = run_task(task, channel.send, config)
        flush_stdio()  # before "done": the worker reads the output once it has the outcome
        try:
            channel.send(("done", outcome))
        except Exception as exc:
            reason = f"check's outcome could not be sent: {type(exc).__name__}: {exc}"
            channel.send(("done", Outcome(task.key, None, reason, error=reason, errored=True,
                                          duration_s=outcome.duration_s)))
    except BaseException:
        code = 70
    finally:
        flush_stdio()
        os._exit(code)


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


def run_task(task: Task, send: Send, config: ProjectConfig | None = None,
             limited: bool = False) -> Outcome:
    """Run one task in this process; exceptions become an :class:`Outcome`, never escape.

    ``config`` is the project's configuration when it was preloaded for this task's root;
    ``limited`` says the memory limit is already set (a power run's fork of a bundle, which
    shares its limit: :mod:`claimcheck.engine.power_child`). A task with ``power`` set is a
    power bundle or probe, run by :func:`claimcheck.engine.power_child.run_power_task`.
    """
    from claimcheck.checks.resolve import resolve_check
    from claimcheck.core.config import load_config

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
        if not limited:
            _limit_memory(task, device)
        _seed(task.seed, device)
        config = config or load_config(task.root)
        if task.power is not None:
            from claimcheck.engine.power_child import run_power_task

            return run_power_task(task, send, config)
        check = resolve_check(task.check, config)
        if task.variant is not None:
            apply_variant(task.variant, config)
        task.scratch.mkdir(parents=True, exist_ok=True)
        context = CheckContext(
            args=task.args, device=device, budget=task.budget, seed=task.seed,
            scratch=task.scratch, root=config.root, config=config, progress=progress,
        )
        return outcome(normalise_evidence(check.function(context)))
    except DataUnavailable as exc:
        return outcome(reason=_one_line(str(exc)) or "data unavailable")
    except VariantError as exc:
        return outcome(reason=exc.message, error=traceback.format_exc())
    except MemoryLimitError as exc:
        return outcome(reason=f"bad memory limit: {exc}", error=str(exc))
    except EvidenceError as exc:
        return outcome(reason=f"check returned unusable evidence: {_one_line(str(exc))}",
                       error=traceback.format_exc())
    except BaseException as exc:  # a check's failure (even SystemExit) is a verdict, not a crash
        text = exc.message if isinstance(exc, ClaimcheckError) else _safe_str(exc)
        message = _one_line(text) or "(no message)"
        return outcome(reason=f"{CHECK_RAISED} {type(exc).__name__}: {message}",
                       error=traceback.format_exc())


class VariantError(ClaimcheckError):
    """A wrong variant could not be loaded or applied: an error of that power run, never a
    caught variant."""


def apply_variant(reference: str, config: ProjectConfig) -> None:
    """Break the model in this process: call the marked zero-argument wrong variant
    ``reference`` (:mod:`claimcheck.trust.variants`), which patches the content modules in place."""
    from claimcheck.checks.resolve import load_callable
    from claimcheck.trust.roles import Role

    try:
        variant = load_callable(reference, config, Role.WRONG_VARIANT)
        if inspect.signature(variant).parameters:
            raise VariantError(f"wrong variant {reference!r} takes arguments; a wrong variant "
                               "is a function of none")
        variant()
    except VariantError:
        raise
    except BaseException as exc:
        text = exc.message if isinstance(exc, ClaimcheckError) else _safe_str(exc)
        raise VariantError(f"wrong variant {reference!r} could not be applied: "
                           f"{type(exc).__name__}: {_one_line(text)}") from exc


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


WARM_MODULES = ("numpy", "numpy.random", "torch", "claimcheck.checks.resolve",
                "claimcheck.checks.builtin")
"""What a worker imports once, so that no check's process pays for it: numpy and torch, and the
tool's own modules that resolve and run a check (no content code: importing it could leave
state in the worker that every later check would inherit)."""


def warm_up() -> Any:
    """Import :data:`WARM_MODULES` in the worker, once; torch's module, or ``None`` where it is
    not installed. ``numpy.random`` is a submodule that numpy imports lazily: left to the first
    seeding, it cost each check's process ~14 ms."""
    for name in WARM_MODULES:
        with contextlib.suppress(ImportError):
            __import__(name)
    return sys.modules.get("torch")


def _limit_memory(task: Task, device: str) -> None:
    """Cap what ``task`` may add to this process's address space (see
    :mod:`claimcheck.engine.limits`: the limit is headroom above what is mapped now, torch's
    libraries included)."""
    memory_gb = (task.resources or {}).get("memory_gb")
    headroom = memory_limit_for_device(device, memory_limit_bytes(memory_gb))
    apply_memory_limit(ceiling_above_current(headroom))


def flush_stdio() -> None:
    """Flush Python's ``stdout`` and ``stderr`` (before a fork, and before exiting)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def redirect_stdio(output_fd: int) -> None:
    """``stdin`` from ``/dev/null``; ``stdout`` and ``stderr`` into ``output_fd``."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
