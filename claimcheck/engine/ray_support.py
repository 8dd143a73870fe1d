"""The parts of the Ray backend that need no running cluster: sizing, artifacts, progress.

:func:`task_resources` turns a task's tier, budget and ``resources:`` into Ray options;
:func:`infeasible_reason` says when no node can ever hold a task; :func:`read_artifacts` and
:func:`write_artifacts` carry a check's files from the worker to the driver as bytes (no shared
storage); :class:`ProgressSink` is the actor that holds the workers' start and progress messages
until the driver drains them. Ray is optional (the ``ray`` extra) and never imported here at
module level.
"""

from __future__ import annotations

import importlib
import importlib.util
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from claimcheck.core.errors import CheckReferenceError, UsageError
from claimcheck.engine.tasks import Task

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
