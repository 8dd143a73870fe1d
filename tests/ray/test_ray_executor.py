"""The Ray executor's parts: resources per tier, feasibility, artifacts as bytes, fresh project
modules per task, the install hint; and, on a real Ray instance, progress forwarding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from claimcheck.core.errors import UsageError
from claimcheck.engine.ray_executor import (
    GIB,
    RayExecutor,
    infeasible_reason,
    missing_ray_message,
    ray_installed,
    read_artifacts,
    task_resources,
    task_tier,
    write_artifacts,
)
from claimcheck.engine.tasks import Task, TaskEvent
from tests.engine.conftest import write_project

GPU_NODE = {"CPU": 8.0, "GPU": 1.0}
CPU_NODE = {"CPU": 8.0}


@pytest.mark.parametrize(("tier", "budget", "cluster", "cpus", "gpus"), [
    ("static", "full", [GPU_NODE], 1.0, 0.0),
    ("unit", "smoke", [CPU_NODE], 1.0, 0.0),
    ("bench", "full", [GPU_NODE], 1.0, 0.0),
    ("train", "smoke", [GPU_NODE], 1.0, 0.0),
    ("train", "short", [GPU_NODE], 2.0, 0.0),
    ("train", "full", [CPU_NODE], 2.0, 0.0),
    ("train", "full", [CPU_NODE, GPU_NODE], 2.0, 1.0),
    ("train", "short", [{"CPU": 1.0}], 1.0, 0.0),
])
def test_default_resources_follow_tier_and_budget(
    tier: str, budget: str, cluster: list[dict[str, float]], cpus: float, gpus: float
) -> None:
    assert task_resources(tier, budget, None, cluster) == {"num_cpus": cpus, "num_gpus": gpus}


def test_a_claims_resources_override_each_key_it_sets() -> None:
    options = task_resources("train", "full", {"cpus": 4, "memory_gb": 1.5}, [GPU_NODE])
    assert options == {"num_cpus": 4.0, "num_gpus": 1.0, "memory": 1.5 * GIB}
    assert task_resources("static", "smoke", {"gpus": 0.5, "cpus": None}, [GPU_NODE]) == {
        "num_cpus": 1.0, "num_gpus": 0.5}
    assert task_resources("unit", "smoke", {"cpus": 16}, [{"CPU": 1.0}])["num_cpus"] == 16.0


def test_a_task_no_node_can_hold_is_refused_with_the_reason() -> None:
    nodes = [{"CPU": 2.0, "memory": 8 * GIB}, {"CPU": 1.0, "GPU": 1.0}]
    assert infeasible_reason({"num_cpus": 1.0, "num_gpus": 1.0}, nodes) == ""
    assert infeasible_reason({"num_cpus": 2.0, "num_gpus": 0.0, "memory": 4 * GIB}, nodes) == ""
    assert infeasible_reason({"num_cpus": 2.0, "num_gpus": 1.0}, nodes) == (
        "no node of the Ray cluster has 2 CPUs, 1 GPU for this check")
    assert infeasible_reason({"num_cpus": 1.0, "memory": 16 * GIB}, nodes[:1]) == (
        "no node of the Ray cluster has 1 CPU, 16 GiB for this check")


def test_tier_of_a_task_without_one_comes_from_its_kind(tmp_path: Path) -> None:
    def task(check: str) -> Task:
        return Task("p/x", check, {}, "cpu", "smoke", 0, tmp_path, tmp_path)

    assert [task_tier(task(c)) for c in ("params", "train", "mod:fn", "parms")] == [
        "static", "train", "unit", "unit"]


def test_artifacts_travel_as_bytes_and_stay_inside_the_scratch_folder(tmp_path: Path) -> None:
    source = tmp_path / "worker"
    (source / "sub").mkdir(parents=True)
    (source / "curve.svg").write_bytes(b"<svg/>")
    (source / "sub" / "data.bin").write_bytes(bytes(range(256)))
    files = read_artifacts(source)
    assert files == {"curve.svg": b"<svg/>", "sub/data.bin": bytes(range(256))}
    write_artifacts(files, tmp_path / "driver")
    assert read_artifacts(tmp_path / "driver") == files
    assert read_artifacts(tmp_path / "missing") == {}
    with pytest.raises(ValueError, match="leaves the scratch folder"):
        write_artifacts({"../escape.txt": b"x"}, tmp_path / "driver")


def test_without_ray_the_executor_refuses_with_the_install_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    assert not ray_installed()
    with pytest.raises(UsageError) as raised:
        RayExecutor()
    assert raised.value.one_line() == f"error: {missing_ray_message()}"
    assert missing_ray_message() == "--executor ray needs Ray: pip install 'claimcheck[ray]'"


@pytest.mark.usefixtures("ray_address")
def test_progress_reaches_the_listener(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project", {})
    events: list[TaskEvent] = []
    tasks = [Task(f"p/{name}", f"tinymodels.checks:{name}", {}, "cpu", "smoke", 0,
                  root / "scratch" / name, root, 60.0) for name in ("reports_progress", "holds")]
    outcomes = {o.key: o for o in RayExecutor().run(tasks, events.append)}
    assert all(o.evidence is not None and o.evidence.measured is True for o in outcomes.values())
    started = {e.key for e in events if e.message == "started"}
    assert started == {"p/reports_progress", "p/holds"}
    steps = [e for e in events if e.key == "p/reports_progress" and e.message != "started"]
    assert steps and steps[-1] == TaskEvent("p/reports_progress", "step 3/3", 1.0)
