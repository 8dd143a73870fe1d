"""Lint and verify agree on ambiguous identities, by construction (issue 22 §3).

One table of wikis whose claims two cards could own. For every row, lint reports an error, and
verify refuses exactly the claims of that conflict with lint's message: it never runs them and
never writes their results (``claimcheck/store/conflicts.py`` is the table both read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.engine.conftest import claim, paper_card, write_project
from tests.hardening.hostile_project import cli, rows
from tests.strictjson import loads_strict

PAPER = "2101.00031"
HOLDS = claim("c1", "tinymodels.checks:holds", {"holds": True})
FAILS = claim("c1", "tinymodels.checks:holds", {"holds": True}, args={"value": False})
OTHER = claim("other", "tinymodels.checks:holds", {"holds": True})


def _openreview_card(slug: str, forum: str) -> str:
    text = paper_card("2101.99999", slug, [claim("c1", "tinymodels.checks:holds",
                                                 {"holds": True})])
    return text.replace("arxiv: '2101.99999'", f"openreview: {forum}")


# name -> (extra card files, claims refused, the rule lint names)
TABLE: dict[str, tuple[dict[str, str], set[str], str]] = {
    "second-paper-card": ({"b.md": paper_card(PAPER, "second", [HOLDS])},
                          {f"{PAPER}/c1"}, "duplicate-paper"),
    "repeated-claim-id": ({"b.md": paper_card("2101.00032", "repeats", [HOLDS, FAILS])},
                          {"2101.00032/c1"}, "duplicate-claim"),
    "shared-slug": ({"b.md": paper_card("2101.00033", "paper-0", [HOLDS])},
                    {f"{PAPER}/c1", "2101.00033/c1"}, "duplicate-slug"),
    "ids-differing-by-case": ({"b.md": _openreview_card("upper", "AbCdEf"),
                               "c.md": _openreview_card("lower", "abcdef")},
                              {"openreview:AbCdEf/c1", "openreview:abcdef/c1"},
                              "duplicate-claim"),
}


def _project(tmp_path: Path, extra: dict[str, str]) -> Path:
    root = write_project(tmp_path / "project", {PAPER: [FAILS]})
    (root / "wiki" / "papers" / "paper-1.md").write_text(
        paper_card("2101.00034", "bystander", [OTHER]), encoding="utf-8")
    for name, text in extra.items():
        (root / "wiki" / "papers" / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("name", sorted(TABLE))
def test_verify_refuses_what_lint_reports_as_an_ambiguous_identity(
    tmp_path: Path, name: str
) -> None:
    extra, refused, rule = TABLE[name]
    root = _project(tmp_path, extra)
    linted = cli(root, "lint", "wiki", "--format", "json")
    errors = [f for f in loads_strict(linted.stdout) if f["level"] == "error"]
    assert linted.returncode == 1 and errors and {f["rule"] for f in errors} == {rule}, errors
    messages = {f["message"] for f in errors}
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    shown: list[dict[str, Any]] = loads_strict(done.stdout)
    refused_rows = [row for row in shown if row["claim"] in refused]
    assert refused_rows and {row["claim"] for row in refused_rows} == refused
    for row in refused_rows:
        assert row["errored"] and not row["ran"] and row["reason"] in messages, row
    assert rows(done.stdout)["other"]["verdict"] == "verified"
    stored = {path.name for path in (root / ".claimcheck" / "results").glob("*.json")}
    assert stored == {"2101.00034__other.json"} | (
        set() if f"{PAPER}/c1" in refused else {f"{PAPER}__c1.json"})
    status = cli(root, "status", "wiki", "--format", "json")
    for row in loads_strict(status.stdout):
        if row["claim"] in refused:
            assert row["verdict"] == "unverified" and row["reason"] in messages


def test_removing_the_second_card_never_leaves_its_verdict_behind(tmp_path: Path) -> None:
    """The attack: a second card for a paper runs its own c1 (verified) over the first card's
    contradicted c1; once it is removed, the contradicted claim showed as verified (stale)."""
    root = _project(tmp_path, {"z.md": paper_card(PAPER, "second", [HOLDS])})  # read last
    cli(root, "verify", "wiki", "--device", "cpu")
    (root / "wiki" / "papers" / "z.md").unlink()
    status = rows(cli(root, "status", "wiki", "--format", "json").stdout)
    assert status["c1"]["verdict"] != "verified", status["c1"]
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert rows(done.stdout)["c1"]["verdict"] == "contradicted"


def test_the_site_shows_no_stored_verdict_for_an_ambiguous_claim(tmp_path: Path) -> None:
    from claimcheck.core.config import load_config
    from claimcheck.site.siteindex import build_index

    root = write_project(tmp_path / "project", {PAPER: [HOLDS]})
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    (root / "wiki" / "papers" / "z.md").write_text(paper_card(PAPER, "second", [FAILS]), "utf-8")
    config = load_config(root)
    view = build_index(config, root / "wiki", config.results).views[f"{PAPER}/c1"]
    assert view.verdict == "unverified" and "a second paper card" in view.reason, view
