"""Inside a power task's process: a fork server for one claim's check, or the catalogue's probe.

A power task (:attr:`claimcheck.engine.tasks.Task.power`) runs in a check's own process like any
task (:mod:`claimcheck.engine.child`, which sets the memory limit of the claim's ``resources:``
first, so that every run forked below inherits it, alike). Two kinds:

* **probe** (``{"mode": "probe", "variants": [[name, reference], ...]}``): what each wrong
  variant changes. Each variant is called in a fork of this process and the content modules' and
  classes' namespaces compared before and after (:func:`claimcheck.engine.power_trace.diff`). A
  variant that imports content modules for the first time is called again, in a fork, after this
  process imported them, so that their attributes compare too. Gives ``{"changes": {name: [...]
  or None}}``.
* **bundle** (``{"mode": "bundle", "variants": [{"name", "reference", "listed", "changes"}],
  "run_timeout": s}``): one claim against many variants. The check's module is imported once,
  here; then each run is a fork that starts with it loaded. The first fork runs the check without
  a variant while :class:`~claimcheck.engine.power_trace.Recorder` records the content code it
  executes. Each variant then runs in a fork of its own: a listed one always; an unlisted one
  only when the unvaried run reached what its probe says it changes
  (:func:`~claimcheck.engine.power_trace.reaches`). In the fork the variant is applied, its
  changes found again, and the check run while a
  :class:`~claimcheck.engine.power_trace.Watcher` sees whether the variant calls a function it
  replaced. Each fork runs under the task's safety net of its own (its CPU time) and dies with
  this process. Gives ``{"base": Outcome, "trace": {...}, "runs": {name: {...}}, "unreached":
  [name, ...]}``.

Every fork runs the check through :func:`claimcheck.engine.check_run.run_task` (``limited``: the
limit is this process's), so the seed, the evidence and the errors are those of an ordinary run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from typing import Any

from claimcheck.core.config import ProjectConfig
from claimcheck.engine import processes
from claimcheck.engine.check_run import Send, VariantError, apply_variant, flush_stdio, run_task
from claimcheck.engine.power_trace import Change, Recorder, Trace, Watcher, diff, reaches, snapshot
from claimcheck.engine.safety_net import SafetyNet
from claimcheck.engine.tasks import Outcome, Task, describe_exit

__all__ = ["PROBE_TIMEOUT_S", "run_power_task"]

PROBE_TIMEOUT_S = 60.0
"""The safety net of one variant's call in the probe (a variant only rebinds names)."""


def run_power_task(task: Task, send: Send, config: ProjectConfig) -> Outcome:
    """Run the probe or bundle ``task`` (see the module docstring); never raises."""
    start = time.perf_counter()
    spec = task.power or {}
    places = _places(config)
    if spec.get("mode") == "probe":
        found: dict[str, Any] = {"changes": _probe(spec, config, places)}
        return Outcome(task.key, None, power=found, duration_s=time.perf_counter() - start)
    found = _bundle(task, config, spec, places)
    base: Outcome = found["base"]
    return dataclasses.replace(base, key=task.key, power=found,
                               duration_s=time.perf_counter() - start)


@dataclasses.dataclass(frozen=True)
class _Places:
    """Where content lies (folders), and the catalogue's modules and their files."""

    content: tuple[str, ...]
    catalogue: tuple[str, ...]
    catalogue_files: tuple[str, ...]


def _places(config: ProjectConfig) -> _Places:
    from claimcheck.trust.references import find_module_file

    files = []
    for module in config.variants:
        file = find_module_file(module, config.module_roots, config.root)
        if file is not None:
            files.append(str(file.parent if file.name == "__init__.py" else file))
    return _Places(tuple(str(root.folder) for root in config.module_roots),
                   tuple(config.variants), tuple(files))


def _quiet(message: tuple[Any, ...]) -> None:
    """A fork's progress goes nowhere (the bundle reports as one task)."""


def _bundle(task: Task, config: ProjectConfig, spec: dict[str, Any],
            places: _Places) -> dict[str, Any]:
    from claimcheck.checks.resolve import resolve_check

    base_task = dataclasses.replace(task, power=None, variant=None)
    with contextlib.suppress(BaseException):  # the forks' own run reports any failure
        resolve_check(task.check, config)
    timeout = spec.get("run_timeout")

    def unvaried() -> tuple[Outcome, dict[str, Any]]:
        recorder = Recorder(places.content, places.catalogue)
        recorder.start()
        try:
            outcome = run_task(base_task, _quiet, config, limited=True)
        finally:
            trace = recorder.stop()
        return outcome, trace.to_json()

    got, why = _in_fork(unvaried, timeout)
    if got is None:
        base = Outcome(task.key, None, why, error=why, errored=True)
        trace: Trace | None = None
    else:
        base, traced = got
        trace = Trace.from_json(traced)
    runs: dict[str, dict[str, Any]] = {}
    unreached: list[str] = []
    if base.evidence is None:  # nothing to compare a variant with: every run would be undecided
        return {"base": base, "trace": None, "runs": runs, "unreached": unreached}
    for entry in spec.get("variants", ()):
        name, reference = str(entry["name"]), str(entry["reference"])
        reach = "listed"
        if not entry.get("listed"):
            if trace is None or entry.get("changes") is None:
                continue  # nothing to decide its reach with: an unlisted variant is not run
            changes = [Change.from_json(c) for c in entry["changes"]]
            reach = reaches(changes, trace)
            if not reach:
                unreached.append(name)
                continue
        runs[name] = _varied(base_task, config, reference, places, timeout, reach)
    return {"base": base, "trace": trace.to_json() if trace else None, "runs": runs,
            "unreached": unreached}


def _varied(base_task: Task, config: ProjectConfig, reference: str, places: _Places,
            timeout: float | None, reach: str) -> dict[str, Any]:
    """One run of the check under the variant ``reference``, in a fork."""

    def varied() -> tuple[Outcome, str]:
        before = snapshot(places.content, places.catalogue)
        try:
            apply_variant(reference, config)
        except VariantError as exc:
            return Outcome(base_task.key, None, exc.message, error=exc.message,
                           errored=True), ""
        changes = diff(before, snapshot(places.content, places.catalogue), places.content)
        watcher = Watcher(changes, places.catalogue_files)
        watcher.start()
        try:
            outcome = run_task(base_task, _quiet, config, limited=True)
        finally:
            called = watcher.stop()
        return outcome, called

    got, why = _in_fork(varied, timeout)
    if got is None:
        return {"outcome": Outcome(base_task.key, None, why, error=why, errored=True),
                "called": "", "reach": reach}
    outcome, called = got
    return {"outcome": outcome, "called": called, "reach": reach}


def _probe(spec: dict[str, Any], config: ProjectConfig,
           places: _Places) -> dict[str, list[list[str]] | None]:
    from claimcheck.checks.resolve import load_callable
    from claimcheck.trust.roles import Role

    variants = [(str(name), str(reference)) for name, reference in spec.get("variants", ())]
    for _, reference in variants:  # the variant's own imports are then loaded before and after
        with contextlib.suppress(BaseException):
            load_callable(reference, config, Role.WRONG_VARIANT)

    def changes(reference: str) -> tuple[list[list[str]], list[str]]:
        loaded = set(sys.modules)
        before = snapshot(places.content, places.catalogue)
        apply_variant(reference, config)
        found = diff(before, snapshot(places.content, places.catalogue), places.content,
                     members=True)
        fresh = [c.owner for c in found if not c.attr]
        return [c.to_json() for c in found], [m for m in fresh if m not in loaded]

    found: dict[str, list[list[str]] | None] = {}
    again: list[tuple[str, str]] = []
    for name, reference in variants:
        got, _ = _in_fork(lambda r=reference: changes(r), PROBE_TIMEOUT_S)  # type: ignore[misc]
        found[name] = None if got is None else got[0]
        if got is not None and got[1]:
            again.append((name, reference))
            for module in got[1]:
                with contextlib.suppress(BaseException):
                    importlib.import_module(module)
    for name, reference in again:
        got, _ = _in_fork(lambda r=reference: changes(r), PROBE_TIMEOUT_S)  # type: ignore[misc]
        found[name] = None if got is None else got[0]
    return found


def _in_fork(work: Callable[[], Any], timeout_s: float | None) -> tuple[Any, str]:
    """``(work()'s result, "")`` from a fork of this process, or ``(None, why not)``.

    The fork leads its own process group, dies with this process, and is killed with its group
    when it passes its safety net (:class:`~claimcheck.engine.safety_net.SafetyNet`) or is done.
    """
    flush_stdio()
    reader, writer = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the fork: never returns
        os.close(reader)
        code = 0
        try:
            processes.become_group_leader()
            processes.die_with_parent(parent)
            channel = Connection(writer)
            try:
                channel.send(("ok", work()))
            except BaseException as exc:  # reported, never raised in a fork
                channel.send(("error", f"{type(exc).__name__}: {exc}"[:2000]))
        except BaseException:
            code = 70
        finally:
            flush_stdio()
            os._exit(code)
    os.close(writer)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    channel = Connection(reader)
    net = SafetyNet(timeout_s, pid)
    message: tuple[Any, ...] | None = None
    try:
        while not net.passed():
            if not wait([channel], timeout=net.next_wait()):
                continue
            with contextlib.suppress(EOFError, OSError):
                message = channel.recv()
            break
    finally:
        channel.close()
        processes.kill_group(pid)
        status = _reap(pid)
    if message is not None and message[0] == "ok":
        return message[1], ""
    if message is not None:
        return None, f"the power run failed: {message[1]}"
    if net.reason:
        return None, net.reason
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return None, f"worker died ({describe_exit(code)})"


def _reap(pid: int) -> int:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0
