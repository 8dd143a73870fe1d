"""The executor contract: local with 1 job, local with 2 jobs and Ray store the same results."""

from __future__ import annotations

import pytest

from claimcheck.engine.executor import LocalExecutor
from claimcheck.engine.ray_executor import RayExecutor
from claimcheck.engine.tasks import Executor
from tests.executor_contract import (
    EXPECTED,
    NOTE,
    Observed,
    run_contract,
    stored_results,
    write_contract_project,
)

EXECUTORS = ["local-1", "local-2", "ray"]
Run = tuple[str, int, dict[str, Observed]]
_RUNS: dict[str, Run] = {}


def _executor(name: str, request: pytest.FixtureRequest) -> Executor:
    if name == "ray":
        request.getfixturevalue("ray_address")  # skips without Ray
        return RayExecutor()
    return LocalExecutor(jobs=int(name.split("-")[1]))


def _observe(name: str, request: pytest.FixtureRequest, factory: pytest.TempPathFactory) -> Run:
    """One verify run per executor on a fresh project, remembered for the whole module."""
    if name not in _RUNS:
        root = write_contract_project(factory.mktemp(f"contract-{name}"))
        ran = run_contract(root, _executor(name, request))
        _RUNS[name] = (name, ran, stored_results(root))
    return _RUNS[name]


@pytest.fixture(scope="module", params=EXECUTORS)
def observed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """(executor name, checks run, stored results by claim id)."""
    return _observe(request.param, request, tmp_path_factory)


def test_every_claim_ran_and_was_stored(observed: Run) -> None:
    _, ran, results = observed
    assert ran == len(EXPECTED)
    assert set(results) == set(EXPECTED)


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_result_matches_the_contract(observed: Run, claim_id: str) -> None:
    name, _, results = observed
    result = results[claim_id]
    verdict, measured, reason, errored = EXPECTED[claim_id]
    assert (result.verdict, result.measured, result.errored) == (verdict, measured, errored), name
    if reason is None:
        assert result.reason, f"{name}: a contradiction without a reason"
    else:
        assert result.reason == reason, name
    assert result.fidelity == (None if measured is None else "exact")


def test_same_results_as_local_with_one_job(
    observed: Run, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, _, reference = _observe("local-1", request, tmp_path_factory)
    assert observed[2] == reference


def test_artifacts_come_back_byte_for_byte(observed: Run) -> None:
    _, _, results = observed
    assert results["note"].artifacts == {"note": NOTE.encode()}
    assert all(not r.artifacts for key, r in results.items() if key != "note")
