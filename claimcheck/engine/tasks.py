"""What passes between the driver and the processes that run checks: tasks, outcomes, events.

:class:`Task` and :class:`Outcome` are plain picklable values; an :class:`Executor` turns tasks
into outcomes (the local process pool, :mod:`claimcheck.engine.executor`; Ray,
:mod:`claimcheck.engine.ray_executor`), and the worker and the check's own process
(:mod:`claimcheck.engine.worker`, :mod:`claimcheck.engine.child`) speak in them.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from claimcheck.checks.api import Evidence


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
    variant: str | None = None  # a wrong variant's ``module:function``, applied before the check
    power: dict[str, Any] | None = None  # a power bundle or probe (engine/power_child.py)


@dataclass(frozen=True)
class Outcome:
    """What became of a task: evidence, or the reason there is none.

    ``errored`` is true when the check raised, timed out or killed its worker (exit code 1); a
    check that raised :class:`~claimcheck.checks.api.DataUnavailable` has no evidence but did not
    err. ``output`` is what the check printed (bounded); ``device`` the one it ran on.
    """

    key: str
    evidence: Evidence | None
    reason: str = ""
    error: str | None = None
    errored: bool = False
    duration_s: float = 0.0
    output: str = ""
    device: str | None = None
    power: dict[str, Any] | None = None  # what a power task found (engine/power_child.py)


@dataclass(frozen=True)
class TaskEvent:
    """A task started (``message == "started"``, ``fraction is None``) or reported progress."""

    key: str
    message: str
    fraction: float | None = None


Listener = Callable[[TaskEvent], None]


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
