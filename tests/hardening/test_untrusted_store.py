"""A pull request that changes only the results store cannot reach outside the project
(issue 22 §1): links, devices, FIFOs and folders committed in ``.claimcheck/`` are refused with
one located line, and nothing is read, written or deleted through them.

Every attack runs the real CLI in a child process, as CI would.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hardening.hostile_project import ARXIV, REPO, claim, cli, hostile_project, rows
from tests.strictjson import loads_strict

SECRET = "the operator's file\n"
STEM = f"{ARXIV}__kept"


def _project(tmp_path: Path) -> Path:
    return hostile_project(tmp_path, [
        claim("kept", "tinymodels.checks:holds", {"holds": True}),
        claim("other", "tinymodels.checks:holds", {"holds": True}),
    ], "")


def _outside(tmp_path: Path) -> Path:
    """A folder of the operator's, with files and a sub-folder, outside the project."""
    outside = tmp_path / "operator"
    (outside / "sub").mkdir(parents=True)
    (outside / "notes.txt").write_text(SECRET)
    (outside / "sub" / "deep.txt").write_text(SECRET)
    (outside / "sub" / ".x.new").mkdir()  # shaped like one of the store's staging folders
    os.utime(outside / "sub" / ".x.new", (0, 0))
    return outside


def _untouched(outside: Path) -> None:
    assert (outside / "notes.txt").read_text() == SECRET
    assert (outside / "sub" / "deep.txt").read_text() == SECRET
    assert (outside / "sub" / ".x.new").is_dir()
    assert sorted(p.name for p in outside.rglob("*")) == [".x.new", "deep.txt", "notes.txt", "sub"]


def _result_file(root: Path, stem: str = STEM) -> Path:
    return root / ".claimcheck" / "results" / f"{stem}.json"


def _make_stale(root: Path) -> None:
    """Touch the claim's result as a pull request would: a changed fingerprint."""
    path = _result_file(root)
    data = loads_strict(path.read_text())
    data["fingerprint"] = "0" * 64
    path.write_text(json.dumps(data, indent=2))


def test_verify_of_a_stale_claim_never_empties_a_linked_artifacts_folder(tmp_path: Path) -> None:
    root = _project(tmp_path)
    outside = _outside(tmp_path)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    (root / ".claimcheck" / "artifacts").mkdir(exist_ok=True)
    (root / ".claimcheck" / "artifacts" / STEM).symlink_to(outside, target_is_directory=True)
    _make_stale(root)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    _untouched(outside)
    assert rows(done.stdout)["kept"]["verdict"] == "verified"
    assert f".claimcheck/artifacts/{STEM}" in done.stderr and "symbolic link" in done.stderr
    assert loads_strict(_result_file(root).read_text())["fingerprint"] != "0" * 64


def test_the_ci_recheck_never_empties_a_linked_artifacts_folder(tmp_path: Path) -> None:
    """The documented CI command, on a pull request that adds the link and touches the result."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = _project(tmp_path)
    outside = _outside(tmp_path)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for command in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    (root / ".claimcheck" / "artifacts").mkdir(exist_ok=True)
    (root / ".claimcheck" / "artifacts" / STEM).symlink_to(outside, target_is_directory=True)
    path = _result_file(root)
    data = loads_strict(path.read_text())
    data["details"] = "touched by the pull request"
    path.write_text(json.dumps(data, indent=2))
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json",
               "--recheck-results-changed-since", "HEAD")
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert rows(done.stdout)["kept"]["ran"] is True
    _untouched(outside)


@pytest.mark.parametrize("folder", [".claimcheck", ".claimcheck/results",
                                    ".claimcheck/artifacts", ".claimcheck/cache"])
def test_a_store_folder_linked_out_of_the_project_stops_verify_and_status(
    tmp_path: Path, folder: str
) -> None:
    root = _project(tmp_path)
    outside = _outside(tmp_path)
    (root / folder).parent.mkdir(parents=True, exist_ok=True)
    (root / folder).symlink_to(outside, target_is_directory=True)
    for command in (("status", "wiki"), ("verify", "wiki", "--device", "cpu")):
        done = cli(root, *command)
        assert done.returncode == 2, (command, done.stdout, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
        assert f"{folder}: error: a symbolic link where a folder belongs" in done.stderr, (
            done.stderr)
        assert "must be real folders inside the project" in done.stderr
    _untouched(outside)


def test_a_store_folder_linked_inside_the_project_is_refused_too(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (root / "elsewhere").mkdir()
    (root / ".claimcheck").symlink_to(root / "elsewhere", target_is_directory=True)
    done = cli(root, "status", "wiki")
    assert done.returncode == 2 and ".claimcheck: error: a symbolic link" in done.stderr
    assert list((root / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("lock", [".lock", ".write.lock"])
def test_a_lock_file_linked_out_is_never_opened(tmp_path: Path, lock: str) -> None:
    """A lock is opened for writing and truncated: through a link, the operator's file would be
    emptied."""
    root = _project(tmp_path)
    outside = _outside(tmp_path)
    (root / ".claimcheck").mkdir()
    (root / ".claimcheck" / lock).symlink_to(outside / "notes.txt")
    done = cli(root, "verify", "wiki", "--device", "cpu")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f".claimcheck/{lock}: error: a symbolic link where the lock file belongs" in done.stderr
    _untouched(outside)


def _limited() -> None:
    """Keep a child that reads an endless device from taking the machine with it."""
    limit = 3 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _status_with_open_stdin(root: Path) -> subprocess.CompletedProcess[str]:
    """``claimcheck status`` whose standard input is a pipe that never ends (as a terminal's)."""
    read_end, write_end = os.pipe()
    try:
        env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(root.parent)}
        return subprocess.run(
            [sys.executable, "-m", "claimcheck.cli", "status", "wiki", "--format", "json"],
            cwd=root, stdin=read_end, capture_output=True, text=True, timeout=120, env=env,
            preexec_fn=_limited,
        )
    finally:
        os.close(read_end)
        os.close(write_end)


ENTRIES = {
    "link to /dev/zero": lambda entry, outside: entry.symlink_to("/dev/zero"),
    "link to /dev/stdin": lambda entry, outside: entry.symlink_to("/dev/stdin"),
    "link to a result outside": lambda entry, outside: entry.symlink_to(outside / "r.json"),
    "FIFO": lambda entry, outside: os.mkfifo(entry),
    "folder": lambda entry, outside: (entry / "inner").mkdir(parents=True),
}


@pytest.mark.parametrize("kind", list(ENTRIES))
def test_a_result_entry_that_is_no_file_is_one_warning_and_never_read(
    tmp_path: Path, kind: str
) -> None:
    root = _project(tmp_path)
    outside = _outside(tmp_path)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    entry = _result_file(root)
    entry.rename(outside / "r.json")  # a valid result, now outside the project
    ENTRIES[kind](entry, outside)
    done = _status_with_open_stdin(root)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    warned = [line for line in done.stderr.splitlines() if f"results/{STEM}.json" in line]
    assert len(warned) == 1 and "never run" in warned[0], done.stderr
    shown = rows(done.stdout)
    assert shown["kept"]["reason"].startswith("never run")
    assert shown["other"]["verdict"] == "verified"


def test_verify_refuses_to_store_through_a_folder_and_runs_the_rest(tmp_path: Path) -> None:
    root = _project(tmp_path)
    entry = _result_file(root)
    (entry / "inner").mkdir(parents=True)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    shown = rows(done.stdout)
    assert shown["other"]["verdict"] == "verified"
    assert shown["kept"]["errored"] is True
    assert f"not stored: .claimcheck/results/{STEM}.json is a folder" in shown["kept"]["reason"]
    assert entry.is_dir() and (entry / "inner").is_dir()
    assert _result_file(root, f"{ARXIV}__other").is_file()


@pytest.mark.parametrize("content", ["[" * 100_000, '{"schema": 3, "files": ' * 50_000])
def test_a_hostile_parse_cache_costs_only_time(tmp_path: Path, content: str) -> None:
    root = _project(tmp_path)
    (root / ".claimcheck" / "cache").mkdir(parents=True)
    (root / ".claimcheck" / "cache" / "sources.json").write_text(content)
    done = cli(root, "status", "wiki", "--format", "json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert set(rows(done.stdout)) == {"kept", "other"}
