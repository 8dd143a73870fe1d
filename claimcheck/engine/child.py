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
runs the check (:func:`claimcheck.engine.check_run.run_task`) and normalises the evidence
(:func:`~claimcheck.checks.api.normalise_evidence`) before anything is sent to the worker.
A power run's task names a wrong variant: it is applied after the check is resolved (its module
imported) and right before the check runs
(:func:`~claimcheck.engine.check_run.apply_variant`); the process, and with it
every change the variant made, is discarded afterwards.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from claimcheck.core.config import ProjectConfig
from claimcheck.engine import processes
from claimcheck.engine.check_run import flush_stdio, run_task
from claimcheck.engine.power_child import run_power_task
from claimcheck.engine.tasks import Outcome, Task


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
        outcome = run_task(task, channel.send, config, power=run_power_task)
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


def redirect_stdio(output_fd: int) -> None:
    """``stdin`` from ``/dev/null``; ``stdout`` and ``stderr`` into ``output_fd``."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
