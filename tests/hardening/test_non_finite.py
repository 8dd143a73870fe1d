"""Non-finite and oversized numbers (issue 12 §2).

``nan`` and ``inf`` in an expectation are lint errors (and never judged). A measured NaN or
infinity is stored as strict JSON that any parser reads. An integer too large for a float is
incomparable: unverified with the reason, never a traceback. ``--timeout`` must be a finite,
positive number.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening.hostile_project import claim, cli, hostile_project, stored, verify_rows
from tests.strictjson import loads_strict

CHECKS = '''
@dataclass(frozen=True)
class Told(CheckArgs):
    value: Any


@claim_check(args=Told)
def measures(ctx):
    value = ctx.args["value"]
    measured = {"nan": float("nan"), "inf": float("inf"), "-inf": -float("inf"),
                "huge": 10 ** 400, "huge-list": [1, 10 ** 400], "pair": [1, 1]}.get(value, value)
    return Evidence(measured=measured, timings={"rate": float("inf")})
'''


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_project(tmp_path_factory.mktemp("finite"), [
        claim("nan", "tinymodels.hostile:measures", {"at_most": 1}, args={"value": "nan"}),
        claim("inf", "tinymodels.hostile:measures", {"at_least": 1}, args={"value": "inf"}),
        claim("minus-inf", "tinymodels.hostile:measures", {"at_most": 1},
              args={"value": "-inf"}),
        claim("huge", "tinymodels.hostile:measures", {"approx": 1e10, "rel_tol": 0.1},
              args={"value": "huge"}),
        claim("huge-at-most", "tinymodels.hostile:measures", {"at_most": 1.5},
              args={"value": "huge"}),
        claim("huge-list", "tinymodels.hostile:measures", {"equals": [1, 2.5]},
              args={"value": "huge-list"}),
    ], CHECKS)


def test_non_finite_and_huge_measurements_are_unverified_with_a_reason(root: Path) -> None:
    code, rows = verify_rows(root)
    assert code == 0
    for name in ("nan", "inf", "minus-inf"):
        assert rows[name]["verdict"] == "unverified"
        assert "not a finite number" in rows[name]["reason"]
    for name in ("huge", "huge-at-most", "huge-list"):
        assert rows[name]["verdict"] == "unverified", rows[name]
        assert "too large to compare" in rows[name]["reason"]


def test_every_result_file_is_strict_json(root: Path) -> None:
    """Non-finite numbers are written as null with the reason beside them (issue 22 §6)."""
    verify_rows(root)
    nan = stored(root, "nan")
    assert nan["measured"] is None and nan["measured_non_finite"] == "NaN"
    assert nan["timings"]["rate"] is None and nan["timings"]["rate_non_finite"] == "Infinity"
    assert stored(root, "minus-inf")["measured_non_finite"] == "-Infinity"
    status = cli(root, "status", "wiki", "--format", "json")
    rows = {row["claim"].split("/")[1]: row for row in loads_strict(status.stdout)}
    assert rows["nan"]["verdict"] == "unverified"
    assert "not a finite number" in rows["nan"]["reason"]


def test_non_finite_expectations_are_lint_errors(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("a", "tinymodels.hostile:measures", {"approx": float("nan"), "rel_tol": 0.1},
              args={"value": 1}),
        claim("b", "tinymodels.hostile:measures", {"at_most": float("inf")}, args={"value": 1}),
        claim("c", "tinymodels.hostile:measures", {"between": [float("-inf"), 0]},
              args={"value": 1}),
        claim("d", "tinymodels.hostile:measures", {"equals": [1, float("nan")]},
              args={"value": "pair"}),
    ], CHECKS)
    lint = cli(root, "lint", "wiki", "--format", "json")
    assert lint.returncode == 1
    errors = [f for f in loads_strict(lint.stdout) if f["level"] == "error"]
    messages = sorted(f["message"] for f in errors if f["rule"] == "non-finite")
    assert len(messages) == 4, errors
    assert all("an expectation must be a finite number" in m for m in messages)
    _, rows = verify_rows(root)
    assert {rows[name]["verdict"] for name in "abcd"} == {"unverified"}
    assert all("not a finite number" in rows[name]["reason"] for name in "abcd")


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "0", "1e999"])
def test_timeout_must_be_finite_and_positive(root: Path, value: str) -> None:
    done = cli(root, "verify", "wiki", "--timeout", value)
    assert done.returncode == 2
    assert "--timeout" in done.stderr and "Traceback" not in done.stderr


def test_reports_are_strict_json_with_the_reason_beside_each_null(root: Path) -> None:
    """``verify --format json`` printed ``NaN``, which ``jq`` and ``JSON.parse`` refuse."""
    for command in (("verify", "wiki", "--device", "cpu", "--format", "json", "--force"),
                    ("status", "wiki", "--format", "json")):
        done = cli(root, *command)
        report = {row["claim"].split("/")[1]: row for row in loads_strict(done.stdout)}
        assert report["nan"]["measured"] is None, command
        assert report["nan"]["measured_non_finite"] == "NaN", command
        assert report["minus-inf"]["measured_non_finite"] == "-Infinity", command


def test_a_stored_non_finite_measurement_reads_back_as_the_float() -> None:
    import math

    from claimcheck.core.strict_json import dumps, restore
    from claimcheck.store.result import Result
    from claimcheck.verdicts.verdict import Verdict

    data = {"measured": [1.0, float("nan"), [float("-inf")]], "t": {"rate": float("inf")},
            "ok": 2.0}
    text = dumps(data)
    written = loads_strict(text)
    assert written["measured"] == [1.0, None, [None]]
    assert written["measured_non_finite"] == {"1": "NaN", "2/0": "-Infinity"}
    back = restore(written)
    assert math.isnan(back["measured"][1]) and back["measured"][2] == [-math.inf]
    assert back["t"] == {"rate": math.inf} and back["ok"] == 2.0
    result = Result(claim="2101.00014/x", card="wiki/p.md", line=1, statement="S.", cite=["§1"],
                    check="c", tier="unit", budget="smoke", verdict=Verdict.UNVERIFIED,
                    reason="not a finite number", measured=float("nan"), expected=None,
                    fidelity="exact", fingerprint="f", timings={"rate": float("inf")})
    again = Result.from_json(loads_strict(result.to_text()))
    assert math.isnan(again.measured) and again.timings == {"rate": math.inf}
