"""``.ci/recheck-base``: the commit CI re-checks result files against, robust in a fresh clone."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / ".ci" / "recheck-base"


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _base(folder: Path) -> str:
    done = subprocess.run([str(SCRIPT)], cwd=folder, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _commit(folder: Path, name: str) -> str:
    (folder / name).write_text(name)
    _git(folder, "add", name)
    _git(folder, "commit", "-q", "-m", name)
    return _git(folder, "rev-parse", "HEAD")


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def test_not_a_repository_and_a_single_commit_have_no_base(tmp_path: Path) -> None:
    """No base: the empty tree, so that CI re-makes every stored file within its budget."""
    assert _base(tmp_path) == EMPTY_TREE
    _git(tmp_path, "init", "-q")
    _commit(tmp_path, "a")
    assert _base(tmp_path) == EMPTY_TREE


def test_without_a_remote_everything_is_rechecked(tmp_path: Path) -> None:
    """Never HEAD~1 of a branch with no known base: a pull request of several commits would hide
    a forged result in its first one."""
    _git(tmp_path, "init", "-q")
    _commit(tmp_path, "a")
    _commit(tmp_path, "b")
    assert _base(tmp_path) == EMPTY_TREE


def test_with_origin_main_the_merge_base(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    _git(upstream, "init", "-q", "-b", "main")
    _commit(upstream, "a")
    fork = _commit(upstream, "b")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(upstream), str(clone))
    _git(clone, "checkout", "-q", "-b", "pr")
    _commit(clone, "c")
    _commit(clone, "d")
    _commit(upstream, "e")  # main moves on; the merge base stays where the branch left it
    _git(clone, "fetch", "-q")
    assert _base(clone) == fork
