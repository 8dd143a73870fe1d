"""Failures on Ray: a worker killed on its first attempt is retried and then succeeds; a check that
always kills its worker is retried by Ray and resubmitted by the driver a bounded number of times,
then ends unverified with the reason; a check that ends its own process fails like a check that
raises (no retry); a hanging check times out; the other checks go on.

Each check runs in a process of its own, forked by the Ray worker, so "killing the worker" means
killing the check's parent process, as a crashed node would."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.engine.ray_executor import RayExecutor, import_ray, progress_sink
from claimcheck.engine.runner import RunOptions
from tests.engine.conftest import claim
from tests.executor_contract import Observed, run_contract, stored_results, write_contract_project


def _attempts(root: Path, name: str) -> int:
    return len((root / "attempts" / name).read_text().splitlines())


def _run(root: Path, executor: RayExecutor, timeout_s: float = 60.0) -> dict[str, Observed]:
    run_contract(root, executor, RunOptions(device="cpu", timeout_s=timeout_s))
    return stored_results(root)


@pytest.mark.usefixtures("ray_address")
def test_ray_retries_a_worker_that_died(tmp_path: Path) -> None:
    root = write_contract_project(tmp_path, [
        claim("dies-once", "tinymodels.contract:dies_once", {"holds": True},
              args={"name": "dies-once"}),
    ])
    results = _run(root, RayExecutor(system_retries=1, attempts=1))
    assert results["dies-once"].verdict == "verified"
    assert _attempts(root, "dies-once") == 2


@pytest.mark.usefixtures("ray_address")
def test_driver_resubmits_then_gives_up_with_the_reason(tmp_path: Path) -> None:
    root = write_contract_project(tmp_path, [
        claim("always-dies", "tinymodels.contract:kills_worker", {"holds": True}),
        claim("exits", "tinymodels.checks:exits", {"holds": True}),
        claim("hangs", "tinymodels.checks:hangs", {"holds": True}),
        claim("holds", "tinymodels.checks:holds", {"holds": True}),
    ])
    # The timeout counts from the check's own start, so 8 s is a wide margin for the checks
    # that return at once even on a loaded machine, and the only wait is the hanging one's.
    results = _run(root, RayExecutor(system_retries=0, attempts=2), timeout_s=8.0)
    dead = results["always-dies"]
    assert (dead.verdict, dead.errored) == ("unverified", True)
    assert dead.reason.startswith("worker failed after 2 attempt(s): ")
    exited = results["exits"]
    assert (exited.verdict, exited.reason, exited.errored) == (
        "unverified", "worker died (exit code 3)", True)
    hung = results["hangs"]
    assert (hung.verdict, hung.reason, hung.errored) == ("unverified", "timed out after 8 s", True)
    assert results["holds"].verdict == "verified"


@pytest.mark.usefixtures("ray_address")
def test_a_dead_progress_sink_is_replaced_and_the_check_retried(tmp_path: Path) -> None:
    ray = import_ray()
    dead = progress_sink(ray)
    ray.kill(dead)  # as if the sink's worker process had died
    root = write_contract_project(tmp_path, [
        claim("holds", "tinymodels.checks:holds", {"holds": True}),
    ])
    results = _run(root, RayExecutor(system_retries=0, attempts=2))
    assert results["holds"].verdict == "verified"
    assert progress_sink(ray) is not dead
