"""The local executor on its own: progress forwarding, outcomes, early close."""

from __future__ import annotations

from pathlib import Path

from claimcheck.engine.executor import LocalExecutor
from claimcheck.engine.tasks import Task, TaskEvent, describe_exit
from tests.engine.conftest import ProjectFactory


def _task(root: Path, key: str, check: str, timeout: float | None = 30.0) -> Task:
    return Task(key, check, {}, "cpu", "smoke", 0, root / "scratch" / key.replace("/", "_"),
                root, timeout)


def test_progress_is_forwarded_and_outcomes_arrive(make_project: ProjectFactory) -> None:
    root = make_project({})
    events: list[TaskEvent] = []
    tasks = [_task(root, "p/progress", "tinymodels.checks:reports_progress"),
             _task(root, "p/holds", "tinymodels.checks:holds")]
    outcomes = {o.key: o for o in LocalExecutor(jobs=1).run(tasks, events.append)}
    assert set(outcomes) == {"p/progress", "p/holds"}
    assert all(o.evidence is not None and o.evidence.measured is True for o in outcomes.values())
    started = [e.key for e in events if e.message == "started"]
    assert started == ["p/progress", "p/holds"]
    messages = [e.message for e in events if e.key == "p/progress" and e.message != "started"]
    assert messages and messages[-1] == "step 3/3"


def test_unknown_reference_is_an_outcome_not_a_crash(make_project: ProjectFactory) -> None:
    root = make_project({})
    [outcome] = LocalExecutor().run([_task(root, "p/x", "tinymodels.checks:nope")], print)
    assert outcome.evidence is None and outcome.errored
    assert outcome.reason.startswith("check raised CheckReferenceError")


def test_closing_early_stops_the_workers(make_project: ProjectFactory) -> None:
    root = make_project({})
    executor = LocalExecutor(jobs=2)
    tasks = [_task(root, "p/holds", "tinymodels.checks:holds"),
             _task(root, "p/hangs", "tinymodels.checks:hangs")]
    run = executor.run(tasks, lambda event: None)
    first = next(run)
    assert first.key == "p/holds"
    processes = [slot.process for slot in executor._slots]
    run.close()
    assert processes and not any(process.is_alive() for process in processes)


def test_describe_exit() -> None:
    assert describe_exit(-9) == "signal SIGKILL"
    assert describe_exit(3) == "exit code 3"
