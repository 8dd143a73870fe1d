"""Tests generated from the check registry: every built-in kind verifies and contradicts.

A new kind registered without a fixture here fails ``test_every_kind_has_fixtures``; the claims
run through the real engine (worker processes, verdict, store) in one verify run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claimcheck.cards.wiki import load_wiki
from claimcheck.checks.api import builtin_kinds
from claimcheck.core.config import load_config
from claimcheck.engine.runner import RunOptions, verify
from claimcheck.reports.rows import ClaimRow
from claimcheck.store.results import ResultStore
from tests.engine.conftest import claim, write_project

ARXIV = "2101.00001"
SMALL = {"model": "tiny", "preset": "small"}
WIDE = {"model": "tiny", "preset": "wide"}
# Trainable parameters of TinyNet(width) by hand: encoder 9w, head 2w + 2, decoder 24 (the
# frozen layer never counts); without the decoder 11w + 2.
WITHOUT_DECODER_SMALL = 11 * 4 + 2
TRAINABLE_SMALL, TRAINABLE_WIDE = 11 * 4 + 2 + 24, 11 * 16 + 2 + 24

# kind -> (args, expect that verifies, expect that contradicts, extra claim fields)
KIND_FIXTURES: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]] = {
    "params": (
        {**SMALL, "exclude": ["decoder"]},
        {"equals": WITHOUT_DECODER_SMALL}, {"equals": WITHOUT_DECODER_SMALL + 1}, {},
    ),
    "shapes": (
        {**SMALL, "input": [2, 8], "module": "encoder"}, {"equals": [2, 4]}, {"equals": [2, 5]},
        {},
    ),
    "ratio": (
        {"numerator": {"kind": "params", "args": WIDE},
         "denominator": {"kind": "params", "args": SMALL}},
        {"approx": TRAINABLE_WIDE / TRAINABLE_SMALL, "rel_tol": 1e-9}, {"at_most": 1}, {},
    ),
    "timing": (
        {"a": "tinymodels.timers:sleeper", "a_args": {"seconds": 0.05},
         "b": "tinymodels.timers:sleeper", "b_args": {"seconds": 0.001},
         "repeats": 3, "warmup": 1},
        {"at_least": 1.5}, {"at_most": 1}, {},
    ),
    "train": ({"epochs": 2}, {"at_least": 0}, {"at_least": 101}, {"accept_proxy": True}),
    # Two addmm: encoder 3·8·4 and head 3·4·2 multiply-adds, 2 FLOPs each.
    "flops": ({**SMALL, "input": [3, 8]}, {"equals": 240}, {"equals": 241}, {}),
}


def _claims() -> list[dict[str, Any]]:
    claims = []
    for kind, (args, good, bad, extra) in KIND_FIXTURES.items():
        claims.append(claim(f"{kind}-verifies", kind, good, args=args, **extra))
        claims.append(claim(f"{kind}-contradicts", kind, bad, args=args, **extra))
    claims.append(claim("params-all", "params", {"equals": TRAINABLE_SMALL + 6},
                        args={**SMALL, "trainable_only": False}))
    claims.append(claim("params-include", "params", {"equals": 9 * 4},
                        args={**SMALL, "include": ["encoder"]}))
    claims.append(claim("shapes-whole-model", "shapes", {"equals": 2},
                        args={**SMALL, "input": [3, 8], "index": -1, "fill": "zeros",
                              "field": 0}))
    claims.append(claim("shapes-several-tensors", "shapes", {"equals": [3, 2]},
                        args={**SMALL, "input": [3, 8]}))
    claims.append(claim("shapes-field", "shapes", {"equals": [3, 4]},
                        args={**SMALL, "input": [3, 8], "field": 1}))
    claims.append(claim("shapes-bad-field", "shapes", {"equals": [3, 4]},
                        args={**SMALL, "input": [3, 8], "field": "hidden"}))
    claims.append(claim("params-bad-submodule", "params", {"equals": 1},
                        args={**SMALL, "exclude": ["nope"]}))
    claims.append(claim("flops-module", "flops", {"equals": 192},
                        args={**SMALL, "input": [3, 8], "module": "encoder"}))
    claims.append(claim("flops-per-example", "flops", {"equals": 80},
                        args={**SMALL, "input": [3, 8], "per_example": True}))
    claims.append(claim("flops-bad-module", "flops", {"equals": 1},
                        args={**SMALL, "input": [3, 8], "module": "nope"}))
    claims.append(claim("factory-params", "params", {"equals": TRAINABLE_SMALL},
                        args={"factory": "tinymodels.nets:tiny", "kwargs": {"width": 4}}))
    return claims


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ClaimRow]]:
    root = write_project(tmp_path_factory.mktemp("kinds"), {ARXIV: _claims()})
    wiki = load_wiki(load_config(root))
    assert not wiki.load_errors, [error.one_line() for error in wiki.load_errors]
    report = verify(wiki, RunOptions(jobs=2, device="cpu"))
    return root, {row.claim.split("/", 1)[1]: row for row in report.rows}


@pytest.fixture(scope="module")
def rows(project: tuple[Path, dict[str, ClaimRow]]) -> dict[str, ClaimRow]:
    return project[1]


def test_every_kind_has_fixtures() -> None:
    assert set(builtin_kinds()) <= set(KIND_FIXTURES)


@pytest.mark.parametrize("verdict", ["verified", "contradicted"])
@pytest.mark.parametrize("kind", sorted(builtin_kinds()))
def test_kind_fixture(rows: dict[str, ClaimRow], kind: str, verdict: str) -> None:
    suffix = "verifies" if verdict == "verified" else "contradicts"
    row = rows[f"{kind}-{suffix}"]
    assert (row.verdict, row.error) == (verdict, None), row.reason
    assert row.ran and row.fidelity is not None


@pytest.mark.parametrize(
    "claim_id",
    ["params-all", "params-include", "shapes-whole-model", "shapes-field", "factory-params",
     "flops-module", "flops-per-example"],
)
def test_argument_variants(rows: dict[str, ClaimRow], claim_id: str) -> None:
    assert rows[claim_id].verdict == "verified", rows[claim_id].reason


def test_flops_of_a_missing_submodule_is_an_error(rows: dict[str, ClaimRow]) -> None:
    row = rows["flops-bad-module"]
    assert row.verdict == "unverified" and "no submodule 'nope'" in row.reason


def test_tuple_output_has_no_named_field(rows: dict[str, ClaimRow]) -> None:
    row = rows["shapes-bad-field"]
    assert row.verdict == "unverified" and "has no field 'hidden'" in row.reason


def test_an_output_of_several_tensors_needs_a_field(rows: dict[str, ClaimRow]) -> None:
    """Never element 0 in silence: the error names every choice with its shape."""
    row = rows["shapes-several-tensors"]
    assert row.verdict == "unverified"
    assert "has 2 tensors: give args.field, one of 0 [3, 2], 1 [3, 4]" in row.reason


def test_the_details_say_which_part_was_measured(rows: dict[str, ClaimRow]) -> None:
    assert "(field 1 of the tuple output)" in rows["shapes-field"].details


def test_bad_arguments_are_unverified_not_contradicted(rows: dict[str, ClaimRow]) -> None:
    row = rows["params-bad-submodule"]
    assert row.verdict == "unverified"
    assert row.reason == "check raised ValueError: the model has no submodule 'nope'"
    assert row.error is not None and "Traceback" in row.error


def test_ratio_details_show_both_sides(rows: dict[str, ClaimRow]) -> None:
    details = rows["ratio-verifies"].details
    assert f"numerator (params) = {TRAINABLE_WIDE}" in details
    assert f"denominator (params) = {TRAINABLE_SMALL}" in details


def test_timing_reports_spread(rows: dict[str, ClaimRow]) -> None:
    details = rows["timing-verifies"].details
    assert "ratio min" in details and "max" in details and "median a" in details


def test_artifacts_move_into_the_store(project: tuple[Path, dict[str, ClaimRow]]) -> None:
    root, _ = project
    store = ResultStore(load_config(root).results)
    result = store.read(f"{ARXIV}/train-verifies")
    assert result is not None and result.artifacts
    for name in result.artifacts:
        path = store.artifact_path(result, name)
        assert path is not None and path.stat().st_size > 0
