"""Evidence of the wrong types (issue 12 §2): normalised in the worker, or that claim errs alone.

numpy and torch scalars become Python numbers, tuples (and ``torch.Size``) lists, a ``fidelity``
given as a string is accepted. A measured value the store cannot hold (an array, an object, a
huge list, something that cannot be pickled) makes that claim errored with the reason; the run
finishes and every other claim keeps its result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hardening.hostile_project import claim, hostile_project, stored, verify_rows

CHECKS = '''
def _measured(ctx):
    import numpy
    import torch

    return {
        "numpy-float": numpy.float32(1.5), "numpy-int": numpy.int64(3),
        "numpy-bool": numpy.bool_(True), "torch-scalar": torch.tensor(2.5),
        "torch-int": torch.tensor(7), "tuple": (2, 16), "torch-size": torch.Size([2, 16]),
        "nested-numpy": [numpy.int32(1), (numpy.float64(2.0), 3)],
        "array": numpy.arange(3), "object": object(), "huge-list": list(range(200_000)),
        "lambda": [lambda: None], "set": {1, 2},
    }[ctx.args["what"]]


@dataclass(frozen=True)
class What(CheckArgs):
    what: str
    fidelity: str = "exact"


@claim_check(args=What)
def returns(ctx):
    return Evidence(measured=_measured(ctx), fidelity=ctx.args.get("fidelity", "exact"))


@claim_check
def returns_not_evidence(ctx):
    return {"measured": 1}


@claim_check
def bad_fidelity(ctx):
    return Evidence(measured=1, fidelity="roughly")


@claim_check
def bad_details(ctx):
    return Evidence(measured=1, details=["not", "text"], timings={"t": "slow"})
'''

# claim id -> (args, expect, verdict, substring of the reason or "")
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], str, str]] = {
    "numpy-float": ({"what": "numpy-float"}, {"approx": 1.5, "rel_tol": 1e-6}, "verified", ""),
    "numpy-int": ({"what": "numpy-int"}, {"equals": 3}, "verified", ""),
    "numpy-bool": ({"what": "numpy-bool"}, {"holds": True}, "verified", ""),
    "torch-scalar": ({"what": "torch-scalar"}, {"at_least": 2.5}, "verified", ""),
    "torch-int": ({"what": "torch-int"}, {"equals": 7}, "verified", ""),
    "tuple": ({"what": "tuple"}, {"equals": [2, 16]}, "verified", ""),
    "torch-size": ({"what": "torch-size"}, {"equals": [2, 16]}, "verified", ""),
    "nested-numpy": ({"what": "nested-numpy"}, {"equals": [1, [2.0, 3]]}, "verified", ""),
    "fidelity-string": ({"what": "numpy-int", "fidelity": "proxy"}, {"equals": 3},
                        "unverified", "proxy measurement"),
    "array": ({"what": "array"}, {"equals": [0, 1, 2]}, "unverified", "call .tolist()"),
    "object": ({"what": "object"}, {"holds": True}, "unverified", "cannot hold"),
    "huge-list": ({"what": "huge-list"}, {"holds": True}, "unverified", "more than the"),
    "lambda": ({"what": "lambda"}, {"holds": True}, "unverified", "cannot hold"),
    "set": ({"what": "set"}, {"holds": True}, "unverified", "cannot hold"),
}
OTHERS = {
    "not-evidence": ("tinymodels.hostile:returns_not_evidence", "not Evidence"),
    "bad-fidelity": ("tinymodels.hostile:bad_fidelity", "fidelity must be 'exact' or 'proxy'"),
    "bad-timings": ("tinymodels.hostile:bad_details", "timings['t']"),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, dict[str, Any]]:
    claims = [claim(name, "tinymodels.hostile:returns", expect, args=args)
              for name, (args, expect, _, _) in CASES.items()]
    claims += [claim(name, check, {"holds": True}) for name, (check, _) in OTHERS.items()]
    root = hostile_project(tmp_path_factory.mktemp("evidence"), claims, CHECKS)
    code, rows = verify_rows(root)
    return root, code, rows


@pytest.mark.parametrize("name", sorted(CASES))
def test_evidence_is_normalised_or_refused_with_the_reason(
    run: tuple[Path, int, dict[str, Any]], name: str
) -> None:
    root, _, rows = run
    _, _, verdict, reason = CASES[name]
    row = rows[name]
    assert row["verdict"] == verdict, row
    assert reason in row["reason"]
    if verdict == "unverified" and reason != "proxy measurement":
        assert row["errored"]
        assert "check returned unusable evidence" in row["reason"]
    stored(root, name)  # every result file is strict JSON


def test_a_check_that_returns_nonsense_errs_alone(run: tuple[Path, int, dict[str, Any]]) -> None:
    _, code, rows = run
    assert code == 1
    assert set(rows) == set(CASES) | set(OTHERS)
    for name, (_, reason) in OTHERS.items():
        assert rows[name]["errored"] and reason in rows[name]["reason"], rows[name]
