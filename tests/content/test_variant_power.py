"""Every wrong variant a card lists under ``catches:`` is caught by that claim's check: applied
in this process (every change undone after the test), the claim is no longer verified against
its card's own ``expect``. What ``claimcheck verify --power`` does in child processes, here for
the checks that measure no time (a timing is not a test: no test depends on an idle machine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from power import ROOT, apply_variant, catches_table, listed_pairs, run_claim

from claimcheck import Verdict
from claimcheck.checks.api import DataUnavailable

LEFT_OUT = ("timing", "train")  # measured by the power run only
PAIRS = listed_pairs(LEFT_OUT)


def verdict(claim_id: str, tmp_path: Path) -> Verdict:
    try:
        return run_claim(claim_id, tmp_path).verdict
    except DataUnavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("claim_id", sorted({claim for claim, _ in PAIRS}))
def test_the_claim_holds_on_the_model(claim_id: str, tmp_path: Path) -> None:
    assert verdict(claim_id, tmp_path) is Verdict.VERIFIED


@pytest.mark.parametrize(("claim_id", "variant"), PAIRS)
def test_the_claim_catches_each_variant_it_lists(claim_id: str, variant: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    apply_variant(variant, monkeypatch)
    assert verdict(claim_id, tmp_path) is not Verdict.VERIFIED


def test_the_readme_table_is_the_cards_table() -> None:
    readme = (ROOT / "models" / "variants" / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("| `")]
    assert rows == catches_table()
