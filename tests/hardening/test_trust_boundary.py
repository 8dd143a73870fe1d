"""The trust boundary (issue 9 §1): a card may only name checks in the project's own code.

``os:system``, ``subprocess:run``, an installed package (``yaml:safe_load``), a path that climbs
out of the root, and a module that is importable but lies outside the import roots are each a lint
error, and ``verify`` never calls them. The last case proves it: the outside module would create a
marker file if it ever ran, and it is importable in the very environment ``verify`` runs in.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.engine.conftest import claim, write_project
from tests.strictjson import loads_strict

REPO = Path(__file__).resolve().parents[2]
ARXIV = "2101.00009"
UNTRUSTED = {
    "stdlib-os": ("os:system", "standard-library module 'os'"),
    "stdlib-subprocess": ("subprocess:run", "standard-library module 'subprocess'"),
    "site-packages": ("yaml:safe_load", "installed package 'yaml'"),
    "climbs-out": ("../outside:fn", "is a file path"),
    "outside-roots": ("hardening_outside:touch_marker", "lies outside the content package"),
}
OUTSIDE_MODULE = '''\
from pathlib import Path

MARKER = Path(__file__).with_name("OUTSIDE_CODE_RAN")


def touch_marker(ctx):
    MARKER.touch()
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("trust")
    claims = [claim(name, check, {"holds": True}) for name, (check, _) in UNTRUSTED.items()]
    claims.append(claim("trusted", "tinymodels.checks:holds", {"holds": True}))
    root = write_project(base / "project", {ARXIV: claims})
    outside = base / "outside"
    outside.mkdir()
    (outside / "hardening_outside.py").write_text(OUTSIDE_MODULE, encoding="utf-8")
    env = {"PYTHONPATH": f"{REPO}:{outside}", "PATH": "/usr/bin:/bin", "HOME": str(base),
           "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}
    return root, outside, env


def _cli(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claimcheck.cli", *args], cwd=root, capture_output=True,
        text=True, timeout=300, env=env,
    )


def test_outside_module_is_importable_where_verify_runs(
    project: tuple[Path, Path, dict[str, str]],
) -> None:
    """The control: without the boundary, ``hardening_outside:touch_marker`` would resolve."""
    root, _, env = project
    probe = subprocess.run(
        [sys.executable, "-c", "import hardening_outside; print(hardening_outside.__file__)"],
        cwd=root, capture_output=True, text=True, timeout=60, env=env,
    )
    assert probe.returncode == 0, probe.stderr


def test_lint_reports_each_untrusted_reference(
    project: tuple[Path, Path, dict[str, str]],
) -> None:
    root, _, env = project
    result = _cli(root, env, "lint", "wiki", "--format", "json")
    assert result.returncode == 1, result.stderr
    findings = loads_strict(result.stdout)
    errors = [f for f in findings if f["level"] == "error"]
    for check, expected in UNTRUSTED.values():
        matching = [f for f in errors if repr(check) in f["message"]]
        assert len(matching) == 1, (check, errors)
        assert expected in matching[0]["message"]
        assert matching[0]["path"] == "wiki/papers/paper-0.md" and matching[0]["line"] > 1
    assert len(errors) == len(UNTRUSTED)


def test_verify_refuses_untrusted_checks_and_runs_the_rest(
    project: tuple[Path, Path, dict[str, str]],
) -> None:
    root, outside, env = project
    result = _cli(root, env, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert "Traceback" not in result.stderr
    assert result.returncode != 0
    rows: dict[str, dict[str, Any]] = {
        row["claim"].split("/", 1)[1]: row for row in loads_strict(result.stdout)
    }
    assert rows["trusted"]["verdict"] == "verified"
    for name, (_, expected) in UNTRUSTED.items():
        assert rows[name]["verdict"] == "unverified"
        assert expected in rows[name]["reason"]
    assert not (outside / "OUTSIDE_CODE_RAN").exists()


def test_symlink_out_of_the_root_is_not_trusted(tmp_path: Path) -> None:
    """A project file that is a symlink to code outside the root does not count as project code."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "linked.py").write_text(OUTSIDE_MODULE, encoding="utf-8")
    root = write_project(tmp_path / "project", {
        ARXIV: [claim("linked", "tinymodels.linked:touch_marker", {"holds": True})],
    })
    (root / "tinymodels" / "linked.py").symlink_to(outside / "linked.py")
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    lint = _cli(root, env, "lint", "wiki")
    assert lint.returncode == 1
    assert "tinymodels.linked:touch_marker" in lint.stdout
    verify = _cli(root, env, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert "Traceback" not in verify.stderr
    (row,) = loads_strict(verify.stdout)
    assert row["verdict"] == "unverified"
    assert not (outside / "OUTSIDE_CODE_RAN").exists()


def test_references_inside_args_of_built_in_kinds_are_refused_too(tmp_path: Path) -> None:
    """``params`` takes a model ``factory`` and ``timing`` takes factories ``a``/``b``: both
    are called with keyword arguments from the card, so they pass the same boundary."""
    # A bare file name: a card's path-like value would be refused by the data-roots rule first
    # (claimcheck/trust/data_paths.py), and this test is about the trust boundary's own refusal.
    marker = "ARGS_CODE_RAN"
    root = write_project(tmp_path / "project", {ARXIV: [
        claim("factory", "params", {"at_least": 1}, args={
            "factory": "subprocess:run", "kwargs": {"args": ["touch", marker]}}),
        claim("timing", "timing", {"at_least": 0}, args={
            "a": "subprocess:getoutput", "a_args": {"cmd": f"touch {marker}"},
            "b": "tinymodels.timers:sleeper", "b_args": {"seconds": 0.001}}),
    ]})
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    lint = _cli(root, env, "lint", "wiki")
    assert lint.returncode == 1
    assert lint.stdout.count("standard-library module 'subprocess'") == 2, lint.stdout
    verify = _cli(root, env, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert "Traceback" not in verify.stderr
    rows = {row["claim"].split("/", 1)[1]: row for row in loads_strict(verify.stdout)}
    assert {name: row["verdict"] for name, row in rows.items()} == {
        "factory": "unverified", "timing": "unverified"}
    assert all("standard-library module 'subprocess'" in row["reason"] for row in rows.values())
    assert not list(tmp_path.rglob(marker))
