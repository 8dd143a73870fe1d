"""``claimcheck init DIR`` writes a project that lint, verify and the strict site build pass
(issue 24 §4), without anything of this repository's own content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimcheck.authoring.project_init import PACKAGE
from claimcheck.cli.main import main
from claimcheck.core.exitcodes import ExitCode

REPO = Path(__file__).resolve().parents[1]


def _run(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("CLAIMCHECK_")}
    env.update(NO_MKDOCS_2_WARNING="1", PYTHONDONTWRITEBYTECODE="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run([sys.executable, "-m", *command], cwd=folder, capture_output=True,
                          text=True, timeout=600, env=env)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``claimcheck init my-wiki``, relative, as the README writes it, from another folder."""
    elsewhere = tmp_path_factory.mktemp("init")
    here = Path.cwd()
    os.chdir(elsewhere)
    try:
        assert main(["init", "my-wiki"]) == ExitCode.OK
    finally:
        os.chdir(here)
    return elsewhere / "my-wiki"


def test_init_writes_the_minimal_project(project: Path) -> None:
    written = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()}
    assert {"pyproject.toml", "mkdocs.yml", ".ci/run", "wiki/concepts/multi-head-attention.md",
            "wiki/papers/attention-is-all-you-need.md", f"{PACKAGE}/attention.py",
            f"{PACKAGE}/training.py", f"{PACKAGE}/registry.py", f"{PACKAGE}/variants.py",
            f"{PACKAGE}/data/blobs.csv", f"{PACKAGE}/__init__.py", ".gitignore",
            "wiki/index.md"} == written
    assert not (project / "my-wiki").exists()
    pyproject = (project / "pyproject.toml").read_text(encoding="utf-8")
    for key in ("import_roots", "trainer", "variants", "model_factory"):
        assert f"\n{key} = " in pyproject and f"# {key}:" in pyproject
    assert os.access(project / ".ci" / "run", os.X_OK)
    script = (project / ".ci" / "run").read_text(encoding="utf-8")
    assert all(step in script for step in ("claimcheck lint", "claimcheck verify",
                                           "mkdocs build --strict"))
    assert "@claim_check(args=" in (project / PACKAGE / "attention.py").read_text("utf-8")


def test_init_into_an_absolute_folder_and_the_current_one(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "a")]) == ExitCode.OK
    assert (tmp_path / "a" / "wiki" / "index.md").is_file()
    here = Path.cwd()
    (tmp_path / "b").mkdir()
    os.chdir(tmp_path / "b")
    try:
        assert main(["init", "."]) == ExitCode.OK
    finally:
        os.chdir(here)
    assert (tmp_path / "b" / "wiki" / "index.md").is_file()


def test_lint_verify_and_the_strict_site_build_pass_right_after_init(project: Path) -> None:
    lint = _run(project, "claimcheck.cli", "lint", "--strict", "wiki/")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert "error" not in lint.stdout and "warning" not in lint.stdout
    verify = _run(project, "claimcheck.cli", "verify", "wiki/", "--format", "json")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rows = json.loads(verify.stdout)
    assert [row for row in rows if row["errored"]] == []
    assert {row["verdict"] for row in rows} == {"verified"}, [
        (row["claim"], row["reason"]) for row in rows]
    assert any(row["tier"] == "train" for row in rows)
    assert {row["tier"] for row in rows} >= {"static", "bench", "train", "unit"}
    assert verify.stderr.strip().splitlines()[-1].startswith(
        f"ran {len(rows)}, up to date 0: verified {len(rows)}")
    site = _run(project, "mkdocs", "build", "--strict")
    assert site.returncode == 0, site.stdout + site.stderr
    page = project / "site" / "concepts" / "multi-head-attention.html"
    assert "cc-badge" in page.read_text(encoding="utf-8")


def test_init_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mkdocs.yml").write_text("mine\n", encoding="utf-8")
    assert main(["init", str(tmp_path)]) == ExitCode.USAGE
    assert "already has mkdocs.yml" in capsys.readouterr().err
    assert (tmp_path / "mkdocs.yml").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "wiki").exists()


def test_the_readme_says_how_to_start_a_wiki_in_five_lines_or_fewer() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Start your own wiki\n", 1)[1].split("\n#", 1)[0].strip()
    assert "claimcheck init" in section
    assert len(section.splitlines()) <= 5
