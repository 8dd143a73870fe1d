"""Unknown check kinds are refused at planning, before any worker starts (issue 33 item 6)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from claimcheck.authoring.lint import lint_wiki
from claimcheck.cards.wiki import load_wiki
from claimcheck.core.config import load_config
from claimcheck.engine.runner import RunOptions, verify
from claimcheck.engine.tasks import Listener, Outcome, Task
from tests.engine.conftest import ProjectFactory, claim

ARXIV = "2101.00016"


class _Spy:
    """An executor that records what it was handed and runs nothing."""

    def __init__(self) -> None:
        self.handed: list[str] = []

    def run(self, tasks: Sequence[Task], listener: Listener) -> Iterator[Outcome]:
        self.handed += [task.key for task in tasks]
        yield from (Outcome(task.key, None, "not run", error="not run", errored=True)
                    for task in tasks)


def test_an_unknown_kind_never_reaches_a_worker(make_project: ProjectFactory) -> None:
    root = make_project({ARXIV: [
        claim("typo", "parms", {"at_least": 1}),
        claim("fine", "tinymodels.checks:holds", {"holds": True}),
    ]})
    wiki = load_wiki(load_config(root))
    spy = _Spy()
    report = verify(wiki, RunOptions(device="cpu"), executor=spy)
    assert spy.handed == [f"{ARXIV}/fine"]
    row = next(row for row in report.rows if row.claim == f"{ARXIV}/typo")
    assert row.errored and row.reason.startswith("unknown check kind 'parms' (did you mean "
                                                 "'params'?)"), row.reason


def _ratio(numerator: dict[str, object]) -> dict[str, object]:
    return {"numerator": numerator,
            "denominator": {"kind": "params", "args": {"model": "tiny", "preset": "small"}}}


def test_an_unknown_nested_kind_never_reaches_a_worker(make_project: ProjectFactory) -> None:
    """A ``ratio`` side whose ``kind`` is unknown, at any depth (lint itself descends four
    levels), is refused with lint's message (red team K2)."""
    deep: dict[str, object] = {"kind": "nope", "args": {}}
    for _ in range(6):
        deep = {"kind": "ratio", "args": _ratio(deep)}
    root = make_project({ARXIV: [
        claim("nested", "ratio", {"at_least": 0}, args=_ratio({"kind": "parms", "args": {}})),
        claim("deep", "ratio", {"at_least": 0}, args=_ratio(deep)),
        claim("fine", "tinymodels.checks:holds", {"holds": True}),
    ]})
    wiki = load_wiki(load_config(root))
    linted = {f.message for f in lint_wiki(wiki)}
    spy = _Spy()
    report = verify(wiki, RunOptions(device="cpu"), executor=spy)
    assert spy.handed == [f"{ARXIV}/fine"]
    rows = {row.claim.split("/")[1]: row for row in report.rows}
    assert rows["nested"].errored and rows["nested"].reason in linted, rows["nested"].reason
    assert "numerator.kind" in rows["nested"].reason and "'parms'" in rows["nested"].reason
    assert rows["deep"].errored and "'nope'" in rows["deep"].reason, rows["deep"].reason
