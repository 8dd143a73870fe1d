"""Every read judges a stored result again; the environment is provenance, not staleness."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from claimcheck.cards.wiki import load_wiki
from claimcheck.store.results import Result, ResultStore
from claimcheck.store.status import DISAGREES, collect_status, rejudge
from claimcheck.verdicts.verdict import Verdict

if TYPE_CHECKING:
    from conftest import MiniProject

ResultFactory = Callable[..., Result]
ClaimFactory = Callable[..., Any]
V, C, U = Verdict.VERIFIED, Verdict.CONTRADICTED, Verdict.UNVERIFIED
EXPECT = {"approx": 161000, "rel_tol": 0.005}


@pytest.mark.parametrize(
    ("stored", "measured", "fidelity", "shown", "reason"),
    [
        (V, 161500, "exact", V, ""),
        (C, 200000, "exact", C, "measured 200000"),
        (V, 1, "exact", U, f"{DISAGREES}: the file says verified, but measured 1"),
        (C, 161000, "exact", U, f"{DISAGREES}: the file says contradicted"),
        (V, 161000, "proxy", U, DISAGREES),
        (V, None, None, U, f"{DISAGREES}: the file says verified, but it holds no measurement"),
        (U, None, None, U, "check raised"),
        (V, [1, 2], "exact", U, DISAGREES),
        (V, 161000, "nonsense", U, DISAGREES),
    ],
)
def test_rejudge(
    make_claim: ClaimFactory, make_result: ResultFactory, stored: Verdict, measured: Any,
    fidelity: str | None, shown: Verdict, reason: str,
) -> None:
    result = make_result(verdict=stored, measured=measured, fidelity=fidelity,
                         reason="check raised RuntimeError" if stored is U else "")
    verdict, why = rejudge(make_claim(expect=EXPECT), result)
    assert verdict is shown
    assert why.startswith(reason) if reason else why == ""


def test_an_expect_edited_since_is_judged_against_the_card(
    make_claim: ClaimFactory, make_result: ResultFactory
) -> None:
    result = make_result(verdict=V, measured=161500, expected=EXPECT)
    verdict, why = rejudge(make_claim(expect={"at_most": 1000}), result)
    assert verdict is C and why.startswith("judged again against the card's current expect")


def _store_fresh(project: MiniProject, make_result: ResultFactory, **fields: Any) -> ResultStore:
    wiki = load_wiki(project.config)
    store = ResultStore(project.config.results)
    for status in collect_status(wiki, store):
        if status.ref.claim.id == "alpha-width":
            store.write(make_result(claim=status.ref.global_id, fingerprint=status.fingerprint,
                                    expected={"holds": True}, measured=True, **fields))
    return store


def _alpha(project: MiniProject, store: ResultStore, **options: Any) -> Any:
    wiki = load_wiki(project.config)
    return next(s for s in collect_status(wiki, store, **options)
                if s.ref.claim.id == "alpha-width")


def test_another_torch_is_shown_not_stale(
    card_project: MiniProject, make_result: ResultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store_fresh(card_project, make_result, environment={
        "torch": "2.13.0", "python": "3.11.7", "platform": "Linux-x", "claimcheck": "0.1.0"})
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "2.14.0" if name == "torch" else real(name))
    status = _alpha(card_project, store)
    assert not status.stale
    assert "ran under torch 2.13.0, you have 2.14.0" in status.environment_note
    assert status.result is not None and status.result.verdict is V
    forced = _alpha(card_project, store, rerun_on_environment=True)
    assert forced.stale and "torch 2.13.0" in forced.stale_reason


def test_a_claim_can_ask_to_rerun_on_an_environment_change(
    card_project: MiniProject, make_result: ResultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = card_project.root / "wiki/papers/mini-paper.md"
    text = card.read_text("utf-8").replace(
        "check: models.checks.alpha_checks:width_is_eight\n",
        "check: models.checks.alpha_checks:width_is_eight\n    rerun_on: [torch]\n", 1)
    card.write_text(text, encoding="utf-8")
    store = _store_fresh(card_project, make_result, environment={"torch": "2.13.0"})
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "2.13.0" if name == "torch" else real(name))
    assert not _alpha(card_project, store).stale
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "2.14.0" if name == "torch" else real(name))
    status = _alpha(card_project, store)
    assert status.stale and "you have 2.14.0" in status.stale_reason
