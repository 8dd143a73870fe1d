"""Lint warns where the site would show a statement's TeX raw (outside ``$...$`` and code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.cli.main import main

PAPER = """---
kind: paper
slug: sample-paper
arxiv: "2101.12491"
title: Sample
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: raw
    cite: eq. 2
    statement: The output length is 1 − e^{−‖s‖}.
    unverified: a test
  - id: maths
    cite: eq. 2
    statement: The output length is $1 - e^{-\\lVert s \\rVert}$, in `squash_exp`.
    unverified: a test
  - id: command
    cite: eq. 3
    statement: The prediction is \\hat{u} = W u.
    unverified: a test
---
Body [arxiv:2101.12491 eq. 2 #maths].
"""


@pytest.mark.parametrize(("claim", "line"), [("raw", 12), ("command", 20)])
def test_tex_outside_maths_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    claim: str, line: int,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "sample.md").write_text(PAPER)
    monkeypatch.chdir(tmp_path)
    assert main(["lint", "wiki"]) == 0
    lines = [text for text in capsys.readouterr().out.splitlines() if "TeX" in text]
    assert len(lines) == 2
    assert any(text.startswith(f"wiki/sample.md:{line}:16: warning: claim '{claim}': its "
                               "statement holds TeX outside $...$") for text in lines), lines
