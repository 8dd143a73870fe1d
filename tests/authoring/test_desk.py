"""The author's desk (issue 24 §2): one error never hides the others, part of a wiki is linted
in the whole wiki's context, and an offline ``papers fetch`` says that nothing was fetched."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from claimcheck.authoring.lint import Level, lint_selection, lint_wiki
from claimcheck.cards.wiki import load_cards
from claimcheck.cli.main import main
from claimcheck.core.config import load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = load_config(ROOT)

MANY_MISTAKES = """---
kind: paper
slug: many-mistakes
arxiv: 1712.03480
title: "Six mistakes"
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: counted
    cite: tab. 2
    basis: paper-vs-code
    statement: The network has 161K parameters.
    check: params
    args: {model: efficient_capsnet, preset: mnist}
    expect: {approx: 161000, rel_tol: "1%"}
  - id: typed
    cite: tab. 2
    basis: paper-vs-code
    statement: The network has 161,824 parameters.
    check: params
    args: {model: efficient_capsnet, preset: mnsit}
    expect: {equals: "161824"}
  - id: custom
    cite: eq. 3
    basis: implementation
    statement: Couplings sum to one over the parents.
    check: models.checks.dynamic:coupling_over_parents
    args: {iteratons: 3}
    expect: {holds: true}
  - id: misspelt
    cite: tab. 2
    statment: A key with a typo.
    unverified: not checked
---
Body [arxiv:2101.12491 tabel 2].
"""

# (marker of the line, message)
EXPECTED = [
    ("arxiv: 1712.03480", 'write it in quotes: "1712.03480"'),
    ('rel_tol: "1%"', "a tolerance is a number"),
    ("preset: mnsit", "unknown preset 'mnsit'"),
    ('equals: "161824"', "expect.equals is the text '161824'"),
    ("iteratons", "unknown key 'iteratons' (did you mean 'iterations'?)"),
    ("statment:", "unknown key 'statment'"),
    ("tabel 2", "unknown locator 'tabel 2'"),
]


def test_a_card_that_fails_to_load_still_gets_every_finding_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "card.md"
    path.write_text(MANY_MISTAKES, encoding="utf-8")
    errors = [f for f in lint_wiki(load_cards(CONFIG, [path])) if f.level is Level.ERROR]
    lines = MANY_MISTAKES.split("\n")
    for marker, message in EXPECTED:
        line = next(i for i, text in enumerate(lines, 1) if marker in text)
        found = [f for f in errors if message in f.message]
        assert found, (message, [f.as_text() for f in errors])
        assert found[0].line == line, found[0].as_text()


def test_an_unquoted_arxiv_id_never_suggests_the_number_yaml_read(tmp_path: Path) -> None:
    path = tmp_path / "card.md"
    path.write_text(MANY_MISTAKES, encoding="utf-8")
    messages = " ".join(f.message for f in lint_wiki(load_cards(CONFIG, [path])))
    assert '"1712.03480"' in messages
    assert "1712.0348\"" not in messages and "1712.0348 " not in messages


def test_linting_one_card_judges_it_in_the_whole_wiki() -> None:
    card = ROOT / "wiki" / "concepts" / "capsule-network.md"
    findings, named = lint_selection(CONFIG, card)
    assert named == 1
    assert all(f.path == "wiki/concepts/capsule-network.md" for f in findings)
    assert not [f for f in findings if "has no paper card" in f.message]
    assert not [f for f in findings if "no claim registered" in f.message]


def test_linting_a_folder_reports_only_on_that_folder() -> None:
    findings, named = lint_selection(CONFIG, ROOT / "wiki" / "concepts")
    assert named >= 2
    assert all(f.path.startswith("wiki/concepts/") for f in findings)
    assert not [f for f in findings if "has no paper card" in f.message]


@pytest.fixture
def offline_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with socket.socket() as probe:  # a port nothing listens on: every download fails at once
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setenv("CLAIMCHECK_ARXIV_URL", closed)
    monkeypatch.setenv("CLAIMCHECK_ARXIV_API", f"{closed}/api/query")
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(tmp_path / "source-cache"))
    monkeypatch.delenv("CLAIMCHECK_OFFLINE", raising=False)
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "paper.md").write_text(
        '---\nkind: paper\nslug: tiny\narxiv: "2101.12491"\ntitle: T\nauthors: [A]\n'
        "year: 2021\nupdated_at: 2026-11-29\n---\nBody.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_offline_fetch_says_nothing_was_fetched_and_claims_no_cache(
    offline_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["papers", "fetch"]) == 1
    err = capsys.readouterr().err
    assert "cannot connect" in err
    assert "nothing was fetched" in err
    assert "cached in" not in err and "in the cache (" not in err
    assert not (offline_project / "source-cache").exists() or not any(
        (offline_project / "source-cache").rglob("*.tar*"))


def test_fetch_with_claimcheck_offline_set_downloads_nothing(
    offline_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCHECK_OFFLINE", "1")
    assert main(["papers", "fetch"]) == 1
    err = capsys.readouterr().err
    assert "nothing was fetched: CLAIMCHECK_OFFLINE is set" in err
