"""``claimcheck lint``: rules, output formats and exit codes, called in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claimcheck.cli.main import main

ROOT = Path(__file__).resolve().parents[1]

PAPER = """---
kind: paper
slug: sample-paper
arxiv: "2101.12491"
title: Sample
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: small
    cite: tab. 2
    statement: The network is small.
    unverified: not checked in this test
  - id: routing
    cite: eq. 5
    statement: Routing is a softmax.
    unverified: not checked in this test
---
Small [arxiv:2101.12491 tab. 2] and routed [arxiv:2101.12491 eq. 3-6].
"""

CONCEPT = """---
kind: concept
slug: idea
title: Idea
papers: ["2101.12491", "1710.09829"]
related: [nowhere]
updated_at: 2026-11-29
---
Covered [arxiv:2101.12491 eq. 5]. Uncovered [arxiv:2101.12491 §9].
No card [arxiv:2002.04764 §1]. In code `[arxiv:2101.12491 tab. 2]`.
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "wiki" / "papers").mkdir(parents=True)
    (tmp_path / "wiki" / "papers" / "sample.md").write_text(PAPER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_clean_wiki_exits_zero(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "wiki"]) == 0
    assert capsys.readouterr().out == ""


def test_warnings_and_info_do_not_fail(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "wiki" / "idea.md").write_text(CONCEPT)
    assert main(["lint", "wiki"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "wiki/idea.md:9:45: warning: [arxiv:2101.12491 §9]: no claim registered at this " \
           "locator" in lines
    assert "wiki/idea.md:10:9: warning: cites arXiv 2002.04764, which has no paper card" in lines
    assert any("papers: lists arXiv 1710.09829 but the body never cites it" in x for x in lines)
    assert any("the body cites arXiv 2002.04764 but papers: does not list it" in x
               for x in lines)
    assert "wiki/idea.md:6:11: info: related slug 'nowhere' has no card yet" in lines
    assert not any(":8:" in line for line in lines), "a covered citation was reported"


def test_json_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "wiki" / "idea.md").write_text(CONCEPT)
    main(["lint", "wiki", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)
    assert {f["rule"] for f in findings} >= {"uncovered", "no-paper", "papers", "related"}
    assert all({"path", "line", "col", "level", "message"} <= set(f) for f in findings)


def test_github_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "wiki" / "papers" / "sample.md").write_text(PAPER.replace("tab. 2]", "table 2]"))
    assert main(["lint", "wiki", "--format", "github"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "::error file=wiki/papers/sample.md,line=19,col=25::unknown locator 'table 2' "
        "(did you mean `[arxiv:2101.12491 tab. 2]`?)"
    ]


def test_github_format_escapes_like_verify(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "wiki" / "idea.md").write_text(CONCEPT.replace("§9]", "tab. 2%]"))
    main(["lint", "wiki", "--format", "github"])
    out = capsys.readouterr().out.splitlines()
    assert "::notice file=wiki/idea.md,line=6,col=11::related slug 'nowhere' has no card yet" in out
    escaped = [line for line in out if "2%25" in line]
    assert escaped and all("%" not in line.replace("%25", "") for line in escaped)


def test_duplicate_slug_is_an_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "wiki" / "copy.md").write_text(PAPER.replace('"2101.12491"', '"1710.09829"'))
    assert main(["lint", "wiki"]) == 1
    assert "duplicate slug 'sample-paper'" in capsys.readouterr().out


def test_missing_path_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "no-such-folder"]) == 2
    assert capsys.readouterr().err.strip() == "error: no-such-folder: no such file or folder"


def test_unknown_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--no-such-option"]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_repo_wiki_lints_without_importing_torch() -> None:
    code = (
        "import sys; from claimcheck.cli.main import main; "
        "rc = main(['lint', 'wiki']); "
        "print('torch' in sys.modules, rc)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[-2:] == ["False", "0"]
