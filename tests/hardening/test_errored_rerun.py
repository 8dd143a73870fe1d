"""A stored result that errored is never current: the next plain ``verify`` runs it again.

A check that raised, timed out or died leaves a result with an error and no measurement. The
planner (:func:`claimcheck.engine.planning.needs_run`) treated it like any fresh result, so a
transient failure (a killed worker, an exhausted machine) stood until someone edited the claim
or passed ``--force``. It now re-runs like a power run without a measurement
(``VariantRun.current``). A check that found its data missing (``DataUnavailable``) did not err:
its unverified result stays current.
"""

from __future__ import annotations

from pathlib import Path

from tests.hardening.hostile_project import claim, hostile_project, stored, verify_rows

CHECKS = '''
from claimcheck import DataUnavailable


@claim_check
def flaky(ctx):
    marker = ctx.root / "ran-once"
    if not marker.exists():
        marker.write_text("x")
        raise RuntimeError("the first run fails")
    return Evidence(measured=True)


@claim_check
def no_data(ctx):
    (ctx.root / "no-data-runs").open("a").write("x")
    raise DataUnavailable("dataset not available here")
'''


def test_an_errored_result_runs_again_and_missing_data_does_not(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("flaky", "tinymodels.hostile:flaky", {"holds": True}),
        claim("nodata", "tinymodels.hostile:no_data", {"holds": True}),
    ], CHECKS)
    code, shown = verify_rows(root)
    assert code == 1 and shown["flaky"]["errored"] and not shown["nodata"]["errored"], shown
    assert stored(root, "flaky")["error"] is not None
    code, shown = verify_rows(root)
    assert code == 0 and shown["flaky"]["ran"] and shown["flaky"]["verdict"] == "verified"
    assert not shown["nodata"]["ran"] and shown["nodata"]["verdict"] == "unverified"
    assert (root / "no-data-runs").read_text() == "x"
