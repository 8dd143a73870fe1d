"""Report formats and the progress display, on hand-made rows (no checks run)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ElementTree
from dataclasses import replace

from rich.console import Console

from claimcheck.cli.verify import ProgressDisplay
from claimcheck.engine.tasks import TaskEvent
from claimcheck.reports.formats import OutputFormat, github_lines, junit_xml, render
from claimcheck.reports.rows import ClaimRow
from tests.strictjson import loads_strict

ROW = ClaimRow(
    claim="2101.00001/x", card="wiki/papers/a,b.md", line=7, statement="S.",
    verdict="contradicted", reason="measured 3, expected at most 2", measured=3,
    expected={"at_most": 2}, fidelity="exact", stale=False, duration_s=0.5, tier="static",
    budget="smoke", device="cpu",
)
ERRORED = replace(ROW, claim="2101.00001/y", verdict="unverified", measured=None,
                  reason="check raised ValueError: 100% wrong\nsecond line",
                  error="Traceback ...", fidelity=None)
PLAIN = replace(ROW, claim="2101.00001/z", verdict="unverified", reason="no code")
FRESH = replace(ROW, claim="2101.00001/ok", verdict="verified", reason="")


def test_github_lines_are_exact_and_escaped() -> None:
    assert github_lines([ROW, ERRORED, PLAIN, FRESH]) == [
        "::error file=wiki/papers/a%2Cb.md,line=7::2101.00001/x: contradicted: "
        "measured 3, expected at most 2",
        "::error file=wiki/papers/a%2Cb.md,line=7::2101.00001/y: errored: "
        "check raised ValueError: 100%25 wrong\\nsecond line",  # a stored line break shown
        "::warning file=wiki/papers/a%2Cb.md,line=7::2101.00001/z: unverified: no code",
    ]


def test_stale_verified_claims_are_warnings() -> None:
    [line] = github_lines([replace(FRESH, stale=True)])
    assert line.startswith("::warning ") and "verified (stale)" in line


def test_junit_counts() -> None:
    suite = ElementTree.fromstring(junit_xml([ROW, ERRORED, PLAIN, FRESH]).split("\n", 1)[1])
    assert [suite.get(k) for k in ("tests", "failures", "errors", "skipped")] == [
        "4", "1", "1", "1"
    ]
    error = suite.find("testcase[@name='2101.00001/y']/error")
    assert error is not None and error.text == "Traceback ..."


def test_json_rows_carry_the_contract() -> None:
    out = io.StringIO()
    render([ROW, ERRORED], OutputFormat.JSON, out)
    first, second = loads_strict(out.getvalue())
    assert first["expected"] == {"at_most": 2} and first["errored"] is False
    assert second["errored"] is True and second["error"] == "Traceback ..."


def test_progress_display_follows_events() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with ProgressDisplay(console, echo=True) as display:
        display.planned(2, "cpu")
        display.task_event(TaskEvent(ROW.claim, "started"))
        display.task_event(TaskEvent(ROW.claim, "epoch 1/2", 0.5))
        display.task_event(TaskEvent(ROW.claim, "loading data", None))
        assert len(display.progress.tasks) == 2
        display.finished(ROW)
        assert display.running == {}
    assert "2101.00001/x contradicted (0.50 s): measured 3" in out.getvalue()
