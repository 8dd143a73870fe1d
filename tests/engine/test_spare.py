"""The worker's spare child: forked before its task, used once, never outliving its task."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from claimcheck.core.config import load_config
from claimcheck.engine import processes
from claimcheck.engine.child import PreloadedConfig
from claimcheck.engine.tasks import Task
from claimcheck.engine.worker import Isolation
from tests.engine.conftest import ProjectFactory


def _task(root: Path, key: str, check: str = "tinymodels.checks:holds") -> Task:
    return Task(key, check, {}, "cpu", "smoke", 0, root / "scratch" / key, root, 30.0)


def test_preloaded_configuration_is_used_only_for_its_unchanged_project(
    make_project: ProjectFactory,
) -> None:
    root = make_project({})
    task = _task(root, "a")
    preloaded = PreloadedConfig.load(root)
    assert preloaded is not None
    assert preloaded.for_task(task) == load_config(root)
    assert preloaded.for_task(dataclasses.replace(task, root=root / "wiki")) is None
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert preloaded.for_task(task) is None
    assert PreloadedConfig.load(root / "wiki") is None  # no pyproject.toml of its own


def test_each_task_runs_in_the_spare_forked_after_the_last_one_ended(
    make_project: ProjectFactory,
) -> None:
    root = make_project({})
    before = set(processes.children())
    started: list[int] = []

    def send(message: tuple[Any, ...]) -> None:
        if message[0] == "start":
            started.append(message[2])

    isolation = Isolation()
    try:
        first = isolation.run(_task(root, "a"), send)
        isolation.settle()
        assert set(processes.children()) == before  # the first task's process is reaped
        isolation.prepare(root)
        spares = set(processes.children()) - before
        assert len(spares) == 1 and started[0] not in spares
        second = isolation.run(_task(root, "b", "tinymodels.checks:raises"), send)
        assert started[1] in spares
    finally:
        isolation.close()
    assert set(processes.children()) == before
    assert first.evidence is not None and first.evidence.measured is True
    assert second.evidence is None and "check raised" in second.reason
    assert os.getcwd() != str(root)  # the task's chdir stayed in its own process
