"""Non-finite and oversized numbers (issue 12 §2).

``nan`` and ``inf`` in an expectation are lint errors (and never judged). A measured NaN or
infinity is stored as strict JSON that any parser reads. An integer too large for a float is
incomparable: unverified with the reason, never a traceback. ``--timeout`` must be a finite,
positive number.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening.hostile_project import claim, cli, hostile_project, stored, verify_rows

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
    verify_rows(root)
    nan = stored(root, "nan")
    assert nan["measured"] == "NaN" and nan["timings"]["rate"] == "Infinity"
    assert stored(root, "minus-inf")["measured"] == "-Infinity"
    status = cli(root, "status", "wiki", "--format", "json")
    rows = {row["claim"].split("/")[1]: row for row in json.loads(status.stdout)}
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
    errors = [f for f in json.loads(lint.stdout) if f["level"] == "error"]
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
