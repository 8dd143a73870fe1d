"""Resume: SIGKILL the ``claimcheck verify --executor ray`` driver mid-run, start it again, and
the results it had finished are kept untouched while only the rest run.

That falls out of the fingerprints (a stored, fresh result is not planned again) and of the single
writer's atomic writes (a killed driver leaves no half-written result). The checks log every run
in the project, so a check that ran to completion before the kill must have run exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.engine.conftest import claim
from tests.executor_contract import ARXIV, write_contract_project
from tests.strictjson import loads_strict

NAPS = 6
NAP_S = 1.0


def _verify_command(root: Path, address: str) -> list[str]:
    return [sys.executable, "-m", "claimcheck.cli", "verify", str(root / "wiki"),
            "--executor", "ray", "--ray-address", address, "--device", "cpu",
            "--format", "json"]


def _stored(results: Path) -> dict[str, tuple[int, str]]:
    """Stored result files: name -> (mtime in ns, the timestamp written inside)."""
    stored = {}
    for path in results.glob("*.json"):
        stored[path.name] = (path.stat().st_mtime_ns, loads_strict(path.read_text())["timestamp"])
    return stored


def test_killed_driver_resumes_where_it_stopped(ray_address: str, tmp_path: Path) -> None:
    root = write_contract_project(tmp_path / "project", [
        claim(f"nap-{i}", "tinymodels.contract:naps", {"at_least": 0},
              args={"name": f"nap-{i}", "seconds": NAP_S})
        for i in range(NAPS)
    ])
    results = root / ".claimcheck" / "results"
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    first = subprocess.Popen(_verify_command(root, ray_address), cwd=root, env=environment,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not _stored(results) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    _, errors = first.communicate(timeout=30)
    assert first.returncode == -signal.SIGKILL, errors.decode()
    before = _stored(results)
    assert 1 <= len(before) < NAPS, "the driver was not killed mid-run"
    time.sleep(0.05)  # a rewrite of a kept result would show in its mtime

    second = subprocess.run(_verify_command(root, ray_address), cwd=root, env=environment,
                            capture_output=True, timeout=180, check=False)
    assert second.returncode == 0, second.stderr.decode()
    rows = loads_strict(second.stdout)
    assert {row["claim"] for row in rows} == {f"{ARXIV}/nap-{i}" for i in range(NAPS)}
    assert all(row["verdict"] == "verified" for row in rows)

    after = _stored(results)
    assert len(after) == NAPS
    assert {name: after[name] for name in before} == before
    for name in before:
        claim_id = name.removesuffix(".json").split("__", 1)[1]
        assert (root / "runs" / claim_id).read_text() == "ran\n", f"{claim_id} ran again"
