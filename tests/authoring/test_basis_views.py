"""The basis in the exported schema (with its legend, for an editor's hover) and in both formats of
``claimcheck report``: a count of verdicts per basis, and each claim's verdict beside its basis."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from claimcheck.authoring.schema import card_json_schema
from claimcheck.cards.basis import BASIS_LEGEND, BASIS_ORDER
from claimcheck.cards.frontmatter import SourceKind
from claimcheck.cli.main import main
from claimcheck.sources.cache import SourceCache
from tests.sources.paper_fixture import fixture_eprint

ARXIV = "2101.00001"

# (claim id, basis, YAML lines after `basis:`, verdict the report shows)
CLAIMS = [
    ("said", "textual", '    quote: "Ours 2.54"\n', "verified"),
    ("misplaced", "textual", '    quote: "Ours 2.54"\n', "unverified"),
    ("count", "paper-vs-code", "    unverified: not run here\n", "unverified"),
    ("squash", "implementation", "    unverified: not run here\n", "unverified"),
    ("trained", "reproduction", "    unverified: no GPU\n", "unverified"),
    ("ours", "wiki", "    unverified: not run here\n", "unverified"),
]


def _card(digest: str) -> str:
    claims = "".join(
        f"  - id: {name}\n    cite: {'tab. 2' if name != 'misplaced' else 'tab. 3'}\n"
        f"    basis: {basis}\n    statement: Claim {name}.\n{rest}"
        for name, basis, rest, _ in CLAIMS)
    return (f'---\nkind: paper\nslug: tiny-capsules\narxiv: "{ARXIV}"\n'
            f'source: {{version: 2, kind: latex, sha256: "{digest}"}}\ntitle: "Tiny"\n'
            "authors: [Ada Author]\nyear: 2021\nupdated_at: 2026-11-29\nclaims:\n"
            f"{claims}---\nTiny capsules.\n")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "wiki" / "papers").mkdir(parents=True)
    digest = SourceCache(tmp_path / "cache").store(ARXIV, 2, SourceKind.LATEX, "fixture",
                                                   fixture_eprint())
    (tmp_path / "wiki" / "papers" / "tiny.md").write_text(_card(digest), encoding="utf-8")
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_schema_carries_the_basis_with_its_legend() -> None:
    schema = card_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    basis = schema["$defs"]["Basis"]
    assert basis["enum"] == [b.value for b in BASIS_ORDER]
    assert basis["enumDescriptions"] == [BASIS_LEGEND[b] for b in BASIS_ORDER]
    for value in BASIS_ORDER:
        assert f"`{value.value}`: {BASIS_LEGEND[value]}" in basis["description"]
    refs = schema["$defs"]["Claim"]["properties"]["basis"]["anyOf"]
    assert {"$ref": "#/$defs/Basis"} in refs


def _report(fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["report", "--format", fmt]) == 0
    return capsys.readouterr().out


EXPECTED_COUNTS = {  # basis: (verified, contradicted, unverified, stale)
    "paper-vs-code": (0, 0, 1, 0), "implementation": (0, 0, 1, 0),
    "reproduction": (0, 0, 1, 0), "textual": (1, 0, 1, 0), "wiki": (0, 0, 1, 0),
}


def test_the_markdown_report_counts_and_shows_each_basis(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report("markdown", capsys)
    for basis, counts in EXPECTED_COUNTS.items():
        assert f"| {basis} | {' | '.join(map(str, counts))} |" in report, basis
    for name, basis, _, verdict in CLAIMS:
        row = next(line for line in report.splitlines() if line.startswith(f"| `{name}` |"))
        assert f" {verdict} | {basis} |" in row, row


def test_the_html_report_counts_and_shows_each_basis(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report("html", capsys)
    per_basis = report[report.index('id="per-basis"'):report.index('id="every-claim"')]
    rows = {cells[0]: tuple(int(c) for c in cells[1:]) for cells in (
        re.findall(r"<td>([^<]*)</td>", row) for row in re.findall(r"<tr><td>.*?</tr>",
                                                                  per_basis))}
    assert rows == EXPECTED_COUNTS
    every = report[report.index('id="every-claim"'):].replace("<wbr>", "")
    for name, basis, _, verdict in CLAIMS:
        row = every[every.index(f"<code>{ARXIV}/{name}</code>"):].split("</tr>")[0]
        assert f'cc-badge--{verdict}" title="basis: {basis}"' in row, row
