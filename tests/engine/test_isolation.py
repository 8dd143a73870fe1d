"""Failure isolation: a check that raises, hangs or kills its process costs only its own verdict."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.core.exitcodes import ExitCode
from claimcheck.store.results import ResultStore
from tests.engine.conftest import REPO, claim, write_project
from tests.strictjson import loads_strict

ARXIV = "2101.00002"
GOOD = {"model": "tiny", "preset": "small"}
Outcome = tuple[Path, int, dict[str, dict[str, Any]]]


def _claims() -> list[dict[str, Any]]:
    return [
        claim("good-before", "params", {"at_least": 1}, args=GOOD),
        claim("raises", "tinymodels.checks:raises", {"holds": True}),
        claim("hangs", "tinymodels.checks:hangs", {"holds": True}),
        claim("exits", "tinymodels.checks:exits", {"holds": True}),
        claim("kills-itself", "tinymodels.checks:kills_itself", {"holds": True}),
        claim("no-data", "tinymodels.checks:no_data", {"holds": True}),
        claim("good-after", "tinymodels.checks:holds", {"holds": True}),
        {"id": "by-design", "cite": "§2", "statement": "Not checkable yet.",
         "unverified": "the paper gives no number"},
    ]


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    root = write_project(tmp_path_factory.mktemp("isolation"), {ARXIV: _claims()})
    out = io.StringIO()
    # The timeout counts from each check's own fork; 10 s leaves the checks that return at once
    # a wide margin on a loaded machine, and only the hanging one waits for it.
    with contextlib.redirect_stdout(out):
        code = main(["verify", str(root / "wiki"), "--timeout", "10", "--jobs", "2",
                     "--format", "json", "--device", "cpu"])
    rows = {row["claim"].split("/", 1)[1]: row for row in loads_strict(out.getvalue())}
    return root, code, rows


def test_errors_give_exit_code_1(outcome: Outcome) -> None:
    assert outcome[1] == ExitCode.CHECK_ERRORS


@pytest.mark.parametrize("claim_id", ["good-before", "good-after"])
def test_other_claims_still_verify(outcome: Outcome, claim_id: str) -> None:
    assert outcome[2][claim_id]["verdict"] == "verified"


@pytest.mark.parametrize(
    ("claim_id", "reason"),
    [
        ("raises", "check raised RuntimeError: boom in the check"),
        ("hangs", "timed out after 10 s"),
        ("exits", "worker died (exit code 3)"),
        ("kills-itself", "worker died (signal SIGKILL)"),
    ],
)
def test_failures_are_unverified_with_a_reason(
    outcome: Outcome, claim_id: str, reason: str
) -> None:
    row = outcome[2][claim_id]
    assert (row["verdict"], row["reason"], row["errored"]) == ("unverified", reason, True)


def test_traceback_is_kept_in_the_result_file(outcome: Outcome) -> None:
    result = ResultStore(load_config(outcome[0]).results).read(f"{ARXIV}/raises")
    assert result is not None and result.error is not None
    assert "Traceback" in result.error and "boom in the check" in result.error


def test_missing_data_is_unverified_but_not_an_error(outcome: Outcome) -> None:
    row = outcome[2]["no-data"]
    assert (row["verdict"], row["reason"], row["errored"]) == (
        "unverified", "dataset not available: tiny-blobs", False
    )


def test_unverified_by_design_is_reported_and_never_run(outcome: Outcome) -> None:
    row = outcome[2]["by-design"]
    assert (row["verdict"], row["reason"], row["ran"]) == (
        "unverified", "the paper gives no number", False
    )
    assert ResultStore(load_config(outcome[0]).results).read(f"{ARXIV}/by-design") is None


def test_store_is_intact(outcome: Outcome) -> None:
    stored = ResultStore(load_config(outcome[0]).results).read_all()
    checked = {key for key, row in outcome[2].items() if key != "by-design"}
    assert {key.split("/", 1)[1] for key in stored} == checked
    assert not list((load_config(outcome[0]).results / "results").glob("*.tmp"))


def test_ctrl_c_keeps_finished_results(tmp_path: Path) -> None:
    root = write_project(tmp_path, {ARXIV: [
        claim("quick", "tinymodels.checks:holds", {"holds": True}),
        claim("slow", "tinymodels.checks:hangs", {"holds": True}),
    ]})
    script = (
        "import sys\nfrom claimcheck.cli.main import main\n"
        f"sys.exit(main(['verify', {str(root / 'wiki')!r}, '--format', 'json']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    store = ResultStore(load_config(root).results)
    deadline = time.monotonic() + 120
    while store.read(f"{ARXIV}/quick") is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # the hanging check is running now
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == ExitCode.INTERRUPTED, err
    assert "interrupted: 1 result(s) finished and kept" in err
    assert store.read(f"{ARXIV}/quick") is not None
    assert store.read(f"{ARXIV}/slow") is None
    assert loads_strict(out)[1]["reason"].startswith("never run")
