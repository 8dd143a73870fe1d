"""Faults during ``claimcheck verify`` (issue 9 §4): two runs at once, ``kill -9`` mid-run, a
results store that cannot be written, and a check that allocates until memory runs out.

Every run happens in a child process on a throw-away project (``tests/engine/conftest.py``), so
that a killed or misbehaving run can never take the test process with it.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claimcheck.store.results import Result
from tests.engine.conftest import claim, write_project
from tests.strictjson import loads_strict

REPO = Path(__file__).resolve().parents[2]
ARXIV = "2101.00011"
FAULTY_CHECKS = '''\
"""Checks that misbehave on purpose: one waits, one hogs memory."""
import time
from dataclasses import dataclass
from pathlib import Path

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import Evidence


@dataclass(frozen=True)
class Sleep(CheckArgs):
    started: str
    seconds: float


@dataclass(frozen=True)
class Chunks(CheckArgs):
    chunks: int


@claim_check(args=Sleep)
def slow(ctx):
    (ctx.root / ctx.args["started"]).touch()
    time.sleep(float(ctx.args["seconds"]))
    return Evidence(measured=True, details="slept")


@claim_check(args=Chunks)
def hog(ctx):
    chunks = []
    for _ in range(int(ctx.args["chunks"])):
        chunks.append(bytearray(64 * 1024 * 1024))
    return Evidence(measured=True, details=f"allocated {64 * len(chunks)} MiB unhindered")
'''


def _env(**extra: str) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": "/tmp", **extra}


def _project(base: Path, claims: list[dict[str, Any]]) -> Path:
    root = write_project(base, {ARXIV: claims})
    (root / "tinymodels" / "faulty.py").write_text(FAULTY_CHECKS, encoding="utf-8")
    return root


def _verify_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "claimcheck.cli", "verify", "wiki", "--device", "cpu",
            "--format", "json", *extra]


STARTED = "slow-started"
"""The file the slow check touches in the project root when it starts: a bare name, since a card
may not choose a path outside the configured data roots (claimcheck/trust/data_paths.py)."""


def _slow_claims(seconds: float) -> list[dict[str, Any]]:
    return [
        claim("params", "params", {"at_least": 1}, args={"model": "tiny", "preset": "small"}),
        claim("slow", "tinymodels.faulty:slow", {"holds": True},
              args={"started": STARTED, "seconds": seconds}),
        claim("holds", "tinymodels.checks:holds", {"holds": True}),
    ]


def _wait_for(path: Path, process: subprocess.Popen[str], seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if process.poll() is not None:
            pytest.fail(f"verify ended before its slow check started: {process.stderr.read()}")
        if time.monotonic() > deadline:
            pytest.fail("the slow check never started")
        time.sleep(0.1)


def _every_result_parses(root: Path) -> dict[str, Result]:
    results: dict[str, Result] = {}
    for path in sorted((root / ".claimcheck" / "results").glob("*.json")):
        result = Result.from_json(loads_strict(path.read_text(encoding="utf-8")))
        results[result.claim.split("/", 1)[1]] = result
    return results


def _one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, stderr
    return errors[0]


def test_second_verify_reports_the_running_one_and_both_finish(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", _slow_claims(4.0))
    started = root / STARTED
    first = subprocess.Popen(_verify_command(), cwd=root, env=_env(), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for(started, first)
        second = subprocess.run(_verify_command(), cwd=root, env=_env(), text=True,
                                capture_output=True, timeout=300)
        out, err = first.communicate(timeout=300)
    finally:
        first.kill()
    assert second.returncode != 0
    assert "another claimcheck verify is running" in _one_error_line(second.stderr)
    assert first.returncode == 0, err
    rows = {row["claim"].split("/", 1)[1]: row["verdict"] for row in loads_strict(out)}
    assert rows == {"params": "verified", "slow": "verified", "holds": "verified"}
    assert {k: r.verdict.value for k, r in _every_result_parses(root).items()} == rows
    again = subprocess.run(_verify_command(), cwd=root, env=_env(), text=True,
                           capture_output=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert all(not row["ran"] for row in loads_strict(again.stdout))


def test_kill_9_mid_run_leaves_a_readable_store_and_no_stuck_lock(tmp_path: Path) -> None:
    root = _project(tmp_path / "project", _slow_claims(30.0))
    started = root / STARTED
    run = subprocess.Popen(_verify_command("--jobs", "1"), cwd=root, env=_env(), text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           start_new_session=True)
    try:
        _wait_for(started, run)
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # the run and its workers, as a power cut would
        run.communicate(timeout=60)
    assert run.returncode == -signal.SIGKILL
    before = _every_result_parses(root)
    assert "slow" not in before  # the killed claim left nothing half-written
    status = subprocess.run(
        [sys.executable, "-m", "claimcheck.cli", "status", "wiki", "--format", "json"],
        cwd=root, env=_env(), text=True, capture_output=True, timeout=120,
    )
    assert status.returncode == 0 and "Traceback" not in status.stderr, status.stderr
    started.unlink()
    card = root / "wiki" / "papers" / "paper-0.md"
    card.write_text(card.read_text(encoding="utf-8").replace("seconds: 30.0", "seconds: 0.1"),
                    encoding="utf-8")
    rerun = subprocess.run(_verify_command(), cwd=root, env=_env(), text=True,
                           capture_output=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    after = _every_result_parses(root)
    assert {k: r.verdict.value for k, r in after.items()} == {
        "params": "verified", "slow": "verified", "holds": "verified"}
    assert not list((root / ".claimcheck").rglob("*.tmp"))


def _limit_file_size(size: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


UNWRITABLE = {
    # name -> (how the store is made unwritable, expected words in the one error line)
    "store-is-a-file": ("file", "results store"),
    "store-inside-proc": ("proc", "results store"),
    "store-under-a-file": ("under-file", "results store"),
}


@pytest.mark.parametrize("case", sorted(UNWRITABLE))
def test_unwritable_store_is_one_clear_line_and_non_zero_exit(tmp_path: Path, case: str) -> None:
    """Running as root, ``chmod`` cannot make a folder read-only; these stand in for it.

    ``file``: ``.claimcheck`` is a regular file. ``proc``: the results folder is configured under
    ``/proc``, where nothing can be created. ``under-file``: under ``pyproject.toml``.
    """
    how, expected = UNWRITABLE[case]
    root = _project(tmp_path / "project", [claim("holds", "tinymodels.checks:holds",
                                                 {"holds": True})])
    pyproject = root / "pyproject.toml"
    if how == "file":
        (root / ".claimcheck").write_text("not a folder\n", encoding="utf-8")
    elif how in ("proc", "under-file"):
        target = "/proc/claimcheck-hardening" if how == "proc" else "pyproject.toml/store"
        text = pyproject.read_text(encoding="utf-8")
        pyproject.write_text(text.replace('results = ".claimcheck"', f'results = "{target}"'),
                             encoding="utf-8")
    result = subprocess.run(
        _verify_command(), cwd=root, env=_env(), text=True, capture_output=True, timeout=300,
    )
    assert result.returncode != 0
    assert expected in _one_error_line(result.stderr)


def test_full_disk_keeps_the_old_result_whole(tmp_path: Path) -> None:
    """A full disk, simulated with ``RLIMIT_FSIZE``: writes past 200 bytes fail with EFBIG as
    they would with ENOSPC (Python ignores SIGXFSZ). The store exists from an earlier run, so the
    failure hits the result write itself; the earlier result must survive byte for byte."""
    root = _project(tmp_path / "project", [claim("holds", "tinymodels.checks:holds",
                                                 {"holds": True})])
    first = subprocess.run(_verify_command(), cwd=root, env=_env(), text=True,
                           capture_output=True, timeout=300)
    assert first.returncode == 0, first.stderr
    (stored,) = (root / ".claimcheck" / "results").glob("*.json")
    before = stored.read_bytes()
    assert len(before) > 200
    full = subprocess.run(
        _verify_command("--force"), cwd=root, env=_env(), text=True, capture_output=True,
        timeout=300, preexec_fn=lambda: _limit_file_size(200),
    )
    assert full.returncode != 0
    assert "cannot write the results store" in _one_error_line(full.stderr)
    assert stored.read_bytes() == before
    assert not list((root / ".claimcheck").rglob("*.tmp"))


@pytest.mark.parametrize(("environment", "claim_gb"), [("2", None), ("0", 2)],
                         ids=["limit-from-environment", "limit-from-claim-resources"])
def test_memory_hog_is_stopped_by_the_per_check_limit_and_others_go_on(
    tmp_path: Path, environment: str, claim_gb: int | None
) -> None:
    """The hog asks for 48 x 64 MiB = 3 GiB of address space (never touched, so harmless
    without a limit too); with a 2 GiB ceiling, from the environment or from the claim's
    ``resources.memory_gb`` (which wins over ``0``, no limit), it fails inside its own worker."""
    extra = {"resources": {"memory_gb": claim_gb}} if claim_gb is not None else {}
    root = _project(tmp_path / "project", [
        claim("hog", "tinymodels.faulty:hog", {"holds": True}, args={"chunks": 48}, **extra),
        claim("holds", "tinymodels.checks:holds", {"holds": True}),
        claim("params", "params", {"at_least": 1}, args={"model": "tiny", "preset": "small"}),
    ])
    result = subprocess.run(_verify_command(), cwd=root, text=True, capture_output=True,
                            env=_env(CLAIMCHECK_MEMORY_LIMIT_GB=environment), timeout=300)
    assert "Traceback" not in result.stderr
    rows = {row["claim"].split("/", 1)[1]: row for row in loads_strict(result.stdout)}
    assert rows["hog"]["verdict"] == "unverified"
    assert "MemoryError" in rows["hog"]["reason"]
    assert rows["holds"]["verdict"] == "verified"
    assert rows["params"]["verdict"] == "verified"
