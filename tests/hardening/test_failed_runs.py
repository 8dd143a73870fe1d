"""A failed run never destroys a better result (issue 12 §4).

* An errored, timed-out or interrupted re-run of a claim with a successful stored result leaves
  that result, and its artifacts, in place; the attempt goes into its history, and ``status``
  shows the last attempt as failed.
* A ``train`` result made at a larger budget is not replaced by one made at a smaller budget.
* A write that fails after the new artifacts were staged leaves the kept result pointing at its
  own, unchanged artifacts (per-generation artifact folders).
* Stored reasons, details and tracebacks hold no absolute path of the machine that ran them.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claimcheck.store.results import Result, ResultStore
from claimcheck.verdicts.verdict import Verdict
from tests.hardening.hostile_project import (
    ARXIV,
    REPO,
    claim,
    cli,
    hostile_project,
    rows,
    stored,
    verify_rows,
)

CHECKS = '''
@claim_check
def flaky(ctx):
    """Draws a curve; once the flag file exists, it fails in the way the flag says."""
    flag = Path(ctx.root) / "FAIL"
    if flag.exists():
        how = flag.read_text().strip()
        if how == "hang":
            Path(ctx.root, "STARTED").touch()
            time.sleep(300)
        if how == "exit":
            os._exit(9)
        raise RuntimeError(f"failing on purpose in {ctx.scratch}")
    (ctx.scratch / "curve.svg").write_text("<svg>the kept curve</svg>")
    return Evidence(measured=True, details="drew a curve", artifacts={"curve_svg": "curve.svg"})
'''
ID = f"{ARXIV}/flaky"


def _project(base: Path) -> Path:
    root = hostile_project(base, [claim("flaky", "tinymodels.hostile:flaky", {"holds": True})],
                           CHECKS)
    code, first = verify_rows(root)
    assert code == 0 and first["flaky"]["verdict"] == "verified"
    return root


def _curve(root: Path) -> str:
    result = stored(root, "flaky")
    return (root / ".claimcheck" / result["artifacts"]["curve_svg"]).read_text()


@pytest.mark.parametrize("how", ["raise", "exit", "hang"])
def test_a_failed_rerun_keeps_the_successful_result(tmp_path: Path, how: str) -> None:
    root = _project(tmp_path)
    kept = stored(root, "flaky")
    (root / "FAIL").write_text(how)
    code, this_run = verify_rows(root, "--force", "--timeout", "5")
    assert code == 1 and this_run["flaky"]["errored"]
    assert "not stored: the earlier verified result" in this_run["flaky"]["reason"]
    now = stored(root, "flaky")
    assert {k: now[k] for k in ("verdict", "measured", "timestamp", "artifacts")} == {
        k: kept[k] for k in ("verdict", "measured", "timestamp", "artifacts")}
    assert _curve(root) == "<svg>the kept curve</svg>"
    attempt = now["history"][-1]
    assert attempt["errored"] and attempt["kept_earlier_result"] == "failed"
    assert now["last_attempt"] == attempt
    status = rows(cli(root, "status", "wiki", "--format", "json").stdout)["flaky"]
    assert status["verdict"] == "verified"
    assert "the last attempt" in status["reason"] and "failed" in status["reason"]


def test_an_interrupted_rerun_keeps_the_successful_result(tmp_path: Path) -> None:
    root = _project(tmp_path)
    kept = stored(root, "flaky")
    (root / "FAIL").write_text("hang")
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.Popen(
        [sys.executable, "-m", "claimcheck.cli", "verify", "wiki", "--force", "--device", "cpu"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not (root / "STARTED").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    run.communicate(timeout=60)
    assert run.returncode == 130
    now = stored(root, "flaky")
    assert now["timestamp"] == kept["timestamp"] and now["verdict"] == "verified"
    assert now["history"][-1]["reason"] == "interrupted before it finished"
    assert _curve(root) == "<svg>the kept curve</svg>"


def _train_result(root: Path, budget: str, measured: float, fingerprint: str) -> Result:
    return Result(
        claim=f"{ARXIV}/trains", card="wiki/papers/paper-0.md", line=1, statement="s",
        cite=["tab. 1"], check="train", tier="train", budget=budget, verdict=Verdict.VERIFIED,
        reason="", measured=measured, expected={"at_least": 0}, fidelity="proxy",
        fingerprint=fingerprint,
    )


def test_a_smaller_budget_never_replaces_a_larger_one(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("trains", "train", {"at_least": 0}, args={"epochs": 1}, accept_proxy=True),
    ], CHECKS)
    status = rows(cli(root, "status", "wiki", "--format", "json").stdout)
    assert status["trains"]["reason"].startswith("never run")
    from claimcheck.cards.wiki import load_wiki
    from claimcheck.core.config import load_config
    from claimcheck.store.status import collect_status

    config = load_config(root)
    fingerprint = collect_status(load_wiki(config), ResultStore(config.results))[0].fingerprint
    ResultStore(config.results).write(_train_result(root, "short", 97.5, fingerprint))
    code, this_run = verify_rows(root, "--budget", "smoke", "--force")
    assert code == 0 and this_run["trains"]["ran"]
    assert "was made at the smaller budget 'smoke'" in this_run["trains"]["reason"]
    now = stored(root, "trains")
    assert (now["budget"], now["measured"]) == ("short", 97.5)
    assert now["history"][-1]["budget"] == "smoke"
    code, again = verify_rows(root, "--budget", "smoke")
    assert not again["trains"]["ran"]


def test_a_failed_write_keeps_the_old_result_and_its_artifacts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ResultStore(tmp_path / ".claimcheck")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "curve.svg").write_text("<svg>old</svg>")
    base = _train_result(tmp_path, "smoke", 1.0, "f" * 64)
    old = store.write(dataclasses.replace(base, artifacts={"curve_svg": "curve.svg"}), scratch)
    (scratch / "curve.svg").write_text("<svg>new</svg>")

    import claimcheck.store.results as store_module

    real_write = store_module.safe_fs.write_atomic

    def failing_write(root: Path, path: Path | str, data: bytes, durable: bool = True) -> None:
        if Path(path).suffix == ".json":
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(root, path, data, durable)

    monkeypatch.setattr(store_module.safe_fs, "write_atomic", failing_write)
    newer = dataclasses.replace(base, measured=2.0, artifacts={"curve_svg": "curve.svg"})
    with pytest.raises(Exception, match="No space left on device"):
        store.write(newer, scratch)
    monkeypatch.setattr(store_module.safe_fs, "write_atomic", real_write)
    kept = store.read(base.claim)
    assert kept is not None and kept.measured == 1.0 and kept.artifacts == old.artifacts
    assert (store.artifact_path(kept, "curve_svg") or Path()).read_text() == "<svg>old</svg>"


def test_stored_text_holds_no_absolute_path(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [claim("flaky", "tinymodels.hostile:flaky", {"holds": True})],
                           CHECKS)
    (root / "FAIL").write_text("raise")
    verify_rows(root)
    result: dict[str, Any] = stored(root, "flaky")
    text = json.dumps({key: result[key] for key in ("reason", "details", "error")})
    assert "Traceback" in text and "tinymodels/hostile.py" in text
    for folder in (str(root), str(tmp_path), str(REPO), sys.prefix, "/tmp/"):
        assert folder not in text, folder
