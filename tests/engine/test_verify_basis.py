"""``verify`` and ``status`` carry each claim's basis in every format, and a textual claim is
decided by its quote (here without a cached source: unverified, with the reason)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from claimcheck.cli.main import main
from tests.engine.conftest import ProjectFactory, claim

ARXIV = "2101.00004"


def _claims() -> list[dict[str, Any]]:
    return [
        claim("params", "params", {"at_least": 1}, args={"model": "tiny", "preset": "small"}),
        {**claim("holds", "tinymodels.checks:holds", {"holds": True}), "basis": "implementation"},
        {**claim("refuted", "tinymodels.checks:holds", {"holds": True}, args={"value": False}),
         "basis": "wiki"},
        {"id": "later", "cite": "§4", "statement": "Trains well.", "unverified": "no data",
         "basis": "reproduction"},
        {"id": "said", "cite": "§2", "statement": "The paper says so.", "basis": "textual",
         "quote": "as the paper says", "secondary_source": "a blog post"},
    ]


@pytest.fixture
def project(make_project: ProjectFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_project({ARXIV: _claims()})
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(root / "no-cache"))
    return root


def _verify(project: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> str:
    main(["verify", str(project / "wiki"), "--format", fmt, "--device", "cpu"])
    return capsys.readouterr().out


def test_json_rows_carry_basis_quote_and_secondary_source(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {row["claim"].split("/", 1)[1]: row for row in json.loads(
        _verify(project, capsys, "json"))}
    assert {key: row["basis"] for key, row in rows.items()} == {
        "params": "paper-vs-code", "holds": "implementation", "refuted": "wiki",
        "later": "reproduction", "said": "textual",
    }
    said = rows["said"]
    assert said["verdict"] == "unverified"
    assert said["reason"].startswith("quote not checked: the paper's source is not cached")
    assert (said["quote"], said["quote_state"], said["secondary_source"]) == (
        "as the paper says", "no-source", "a blog post")
    assert rows["params"]["quote"] is None and rows["params"]["quote_state"] is None


def test_junit_and_github_name_the_basis(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = ElementTree.fromstring(_verify(project, capsys, "junit"))
    bases = {
        case.get("name", "").split("/", 1)[1]: case.find("properties/property[@name='basis']")
        for case in suite.iter("testcase")
    }
    assert {key: node.get("value") for key, node in bases.items() if node is not None} == {
        "params": "paper-vs-code", "holds": "implementation", "refuted": "wiki",
        "later": "reproduction", "said": "textual",
    }
    lines = _verify(project, capsys, "github").splitlines()
    refuted = next(line for line in lines if f"{ARXIV}/refuted" in line)
    assert refuted.startswith("::error ") and refuted.endswith("(basis: wiki)")
    said = next(line for line in lines if f"{ARXIV}/said" in line)
    assert said.startswith("::warning ")
    assert said.endswith("(basis: textual; from a secondary source: a blog post)")


def test_text_summary_and_status_count_verdicts_per_basis(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _verify(project, capsys, "text")
    counts = "\n".join(line for line in text.splitlines() if line.startswith(("  ✓", "  ✗", "  ?")))
    for basis in ("paper-vs-code", "implementation", "reproduction", "textual", "wiki"):
        assert basis in counts  # each verdict's line counts its claims per basis
    main(["status", str(project / "wiki")])
    status = capsys.readouterr().out
    assert "verified by basis: 1 paper-vs-code, 1 implementation" in status
    assert "textual†" in status and "†: the claim's locator or figure rests on a secondary" \
        in status
