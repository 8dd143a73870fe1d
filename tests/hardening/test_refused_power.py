"""A claim refused for its identity shows no verdict, power or run date in any published view.

Once a second paper card claims the same arXiv id, its claims are refused
(:func:`claimcheck.store.conflicts.refused_identities`): verify's own report already showed no
power for them, but the site (``claimcheck/site/siteindex.py``) and ``claimcheck report``, which
reads the same index, still showed the stored power ("catches 1 of 1") and the stored run date of
a result neither card can own.
"""

from __future__ import annotations

from pathlib import Path

from claimcheck.core.config import load_config
from claimcheck.site.siteindex import build_index
from tests.engine.conftest import paper_card
from tests.hardening.hostile_project import cli
from tests.power.conftest import power_claim, write_power_project

ARXIV = "2101.00041"


def test_a_refused_claim_shows_no_power_and_no_run_date(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("c1", ["wrong-factor"])]})
    done = cli(root, "verify", "wiki", "--power", "--device", "cpu")
    assert done.returncode == 0, done.stderr[-2000:]
    (root / "wiki" / "papers" / "dup.md").write_text(
        paper_card(ARXIV, "dup", [power_claim("c1", ["wrong-factor"])]), encoding="utf-8")
    config = load_config(root)
    view = build_index(config, config.wiki, config.results).views[f"{ARXIV}/c1"]
    assert view.verdict == "unverified" and "a second paper card" in view.reason, view.reason
    assert (view.power, view.power_entries, view.power_all_caught) == ("", (), None)
    assert view.run_date == "—"
    for style in ("markdown", "html"):
        report = cli(root, "report", "wiki", "--format", style)
        assert report.returncode == 0, report.stderr
        assert "catches 1 of 1" not in report.stdout, report.stdout
    (row,) = [line for line in cli(root, "report", "wiki", "--format", "markdown").stdout
              .splitlines() if line.startswith("| `c1`")]
    assert "? unverified" in row and "✓" not in row and row.endswith("| — |"), row
