"""Hostile result files (issue 9 §4): results are committed, so a pull request can edit them.

Whatever a file under ``.claimcheck/results/`` holds, reading the store gives the result or skips
the file with a warning; it never raises anything else, and ``claimcheck status`` never shows a
traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from claimcheck.store.results import Result, ResultStore, StoreWarning
from claimcheck.verdicts.verdict import Verdict
from tests.engine.conftest import claim, write_project

REPO = Path(__file__).resolve().parents[2]
CLAIM = "2101.00013/c1"
FILE = "2101.00013__c1.json"


def _valid() -> dict[str, Any]:
    return Result(
        claim=CLAIM, card="wiki/p.md", line=3, statement="S.", cite=["tab. 1"], check="params",
        tier="static", budget="smoke", verdict=Verdict.VERIFIED, reason="", measured=1,
        expected={"equals": 1}, fidelity="exact", fingerprint="f",
    ).to_json()


json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=20)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=10), children, max_size=3)),
    max_leaves=10,
)


@st.composite
def edited_result(draw: st.DrawFn) -> bytes:
    """A valid result file with a few fields dropped or replaced by arbitrary JSON."""
    data = _valid()
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(sorted(data)))
        if draw(st.booleans()):
            data.pop(name, None)
        else:
            data[name] = draw(json_value)
    return json.dumps(data).encode()


def _read(folder: Path, data: bytes) -> Result | None:
    store = ResultStore(folder / ".claimcheck")
    store.results_dir.mkdir(parents=True, exist_ok=True)
    (store.results_dir / FILE).write_bytes(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = store.read(CLAIM)
        everything = store.read_all()
    if result is None:
        assert any(issubclass(w.category, StoreWarning) for w in caught), data[:200]
        assert everything == {}
    else:
        assert everything == {CLAIM: result}
    return result


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(edited_result(), st.binary(max_size=200), json_value.map(
    lambda value: json.dumps(value).encode())))
@example(json.dumps({**_valid(), "claim": "../../etc/passwd"}).encode())
@example(json.dumps({**_valid(), "claim": "2101.00013/other"}).encode())
def test_any_result_file_reads_back_or_is_skipped_with_a_warning(
    tmp_path: Path, data: bytes
) -> None:
    _read(tmp_path, data)


DEEP = {"array": b"[" * 100_000 + b"]" * 100_000,
        "object": b'{"claim": ' * 50_000 + b"1" + b"}" * 50_000}


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_deeply_nested_result_file_is_skipped_with_a_warning(tmp_path: Path, shape: str) -> None:
    assert _read(tmp_path, DEEP[shape]) is None


def test_untouched_result_reads_back(tmp_path: Path) -> None:
    result = _read(tmp_path, json.dumps(_valid()).encode())
    assert result is not None and result.claim == CLAIM


def test_status_survives_a_hostile_result_file(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project", {
        "2101.00013": [claim("c1", "tinymodels.checks:holds", {"holds": True})],
    })
    results = root / ".claimcheck" / "results"
    results.mkdir(parents=True)
    (results / FILE).write_bytes(DEEP["array"])
    status = subprocess.run(
        [sys.executable, "-m", "claimcheck.cli", "status", "wiki"], cwd=root, text=True,
        capture_output=True, timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert "Traceback" not in status.stderr, status.stderr[-800:]
    assert status.returncode == 0
    assert f".claimcheck/results/{FILE}" in status.stderr


def test_artifact_paths_in_a_result_cannot_leave_the_store(tmp_path: Path) -> None:
    """The site copies artifacts named by results; a committed result must not name, say,
    ``~/.ssh/id_rsa``, by ``..`` or by a symlink placed in the artifacts folder."""
    secret = tmp_path / "secret.txt"
    secret.write_text("private\n", encoding="utf-8")
    store = ResultStore(tmp_path / "project" / ".claimcheck")
    folder = store.artifacts_dir / "2101.00013__c1"
    folder.mkdir(parents=True)
    (folder / "curve.svg").write_text("<svg/>", encoding="utf-8")
    (folder / "link.svg").symlink_to(secret)
    result = Result.from_json({**_valid(), "artifacts": {
        "inside": "artifacts/2101.00013__c1/curve.svg",
        "climbs": "../../secret.txt",
        "absolute": str(secret),
        "symlink": "artifacts/2101.00013__c1/link.svg",
        "folder": "artifacts/2101.00013__c1",
    }})
    assert store.artifact_path(result, "inside") == (folder / "curve.svg").resolve()
    for name in ("climbs", "absolute", "symlink", "folder", "missing"):
        assert store.artifact_path(result, name) is None, name
