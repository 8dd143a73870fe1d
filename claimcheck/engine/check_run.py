"""Run one task in this process: resolve the device, limit memory, seed, run the check.

The part of a check's process (:mod:`claimcheck.engine.child`) that a power run's forks
(:mod:`claimcheck.engine.power_child`) share: :func:`run_task` runs a task and turns every
failure into an :class:`~claimcheck.engine.tasks.Outcome`, and :func:`apply_variant` applies a
wrong variant right before the check runs. Both of those modules import this one; it imports
neither (a power task's runner is handed to :func:`run_task`).
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from claimcheck.checks.api import CheckContext, DataUnavailable, EvidenceError, normalise_evidence
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import ClaimcheckError
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


PowerRunner = Callable[[Task, Send, ProjectConfig], Outcome]
"""Runs a power bundle or probe once the process is prepared
(:func:`claimcheck.engine.power_child.run_power_task`, handed down by the process that takes
tasks, :mod:`claimcheck.engine.child`, so that this module imports nothing above it)."""


def run_task(task: Task, send: Send, config: ProjectConfig | None = None,
             limited: bool = False, power: PowerRunner | None = None) -> Outcome:
    """Run one task in this process; exceptions become an :class:`Outcome`, never escape.

    ``config`` is the project's configuration when it was preloaded for this task's root;
    ``limited`` says the memory limit is already set (a power run's fork of a bundle, which
    shares its limit: :mod:`claimcheck.engine.power_child`). A task with ``power`` set is a
    power bundle or probe, run by ``power`` (:data:`PowerRunner`) once the device is resolved,
    the memory limit set and the RNGs seeded; without one it is an error of that task.
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
            if power is None:
                raise ClaimcheckError("a power task reached a process that runs no power task")
            return power(task, send, config)
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
