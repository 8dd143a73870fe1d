"""Stored status: results with stale markers, derived on every read, without importing torch."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cards.wiki import load_wiki
from claimcheck.store.results import Result, ResultStore
from claimcheck.store.status import collect_status
from tests.strictjson import loads_strict

if TYPE_CHECKING:
    from conftest import MiniProject

REPO = Path(__file__).resolve().parents[2]
ResultFactory = Callable[..., Result]
PythonRunner = Callable[..., "subprocess.CompletedProcess[str]"]


def test_status_marks_exactly_the_edited_dependents_stale(
    card_project: MiniProject, make_result: ResultFactory
) -> None:
    wiki = load_wiki(card_project.config)
    store = ResultStore(card_project.config.results)
    for status in collect_status(wiki, store):
        if status.ref.claim.id in {"alpha-width", "beta-width", "alpha-params"}:
            store.write(make_result(claim=status.ref.global_id, fingerprint=status.fingerprint))
    fresh = {s.ref.claim.id: (s.result is not None, s.stale) for s in collect_status(wiki, store)}
    assert fresh == {
        "alpha-width": (True, False), "beta-width": (True, False), "alpha-params": (True, False),
        "alpha-speed": (False, False), "alpha-accuracy": (False, False), "by-hand": (False, False),
    }
    card_project.append("models/checks/beta_checks.py", "\n# edited\n")
    stale = {s.ref.claim.id for s in collect_status(wiki, store) if s.stale}
    assert stale == {"beta-width"}


def test_status_order_follows_the_wiki(card_project: MiniProject) -> None:
    wiki = load_wiki(card_project.config)
    statuses = collect_status(wiki, ResultStore(card_project.config.results))
    assert [s.ref.global_id for s in statuses] == [ref.global_id for ref in wiki.claims()]


def test_status_and_store_never_import_torch(tmp_path: Path, run_python: PythonRunner) -> None:
    child = run_python(
        """
        import json, sys
        from pathlib import Path
        from claimcheck.core.config import load_config
        from claimcheck.store.fingerprint import claim_fingerprint
        from claimcheck.store.status import collect_status
        from claimcheck.store.results import Result, ResultStore
        from claimcheck.verdicts.verdict import Verdict
        from claimcheck.cards.wiki import load_wiki

        config = load_config(Path(sys.argv[1]))
        wiki = load_wiki(config)
        store = ResultStore(Path(sys.argv[2]))
        refs = wiki.claims()
        for ref in refs[:3]:
            store.write(Result(
                claim=ref.global_id, card="c.md", line=1, statement="s", cite=["x"],
                check=ref.claim.check, tier=None, budget="smoke", verdict=Verdict.VERIFIED,
                reason="", measured=1, expected=None, fidelity="exact",
                fingerprint=claim_fingerprint(ref, config),
            ))
        statuses = collect_status(wiki, store)
        print(json.dumps({
            "claims": len(refs), "stored": len(store.read_all()),
            "fresh": sum(s.result is not None and not s.stale for s in statuses),
            "torch": sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")),
        }))
        """,
        str(REPO), str(tmp_path / ".claimcheck"),
    )
    assert child.returncode == 0, child.stderr
    report = loads_strict(child.stdout)
    assert report["claims"] >= 3
    assert report["stored"] == report["fresh"] == 3
    assert report["torch"] == []
