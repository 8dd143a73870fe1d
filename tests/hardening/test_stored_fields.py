"""A stored result is evidence only of what it holds (issue 22 §4).

Its ``tier``, ``budget`` and ``interval`` are fields a pull request can edit: they never pin a
stale result in place, and a training result without the interval its claim records is shown as
unverified, never judged on its mean alone. Results of claims no card registers stay unshown.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project, rows, stored
from tests.strictjson import loads_strict


def _edit(root: Path, claim_id: str, **fields: object) -> None:
    path = root / ".claimcheck" / "results" / f"{ARXIV}__{claim_id}.json"
    data = loads_strict(path.read_text("utf-8"))
    for key, value in fields.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def test_a_stale_result_is_rerun_whatever_tier_and_budget_it_claims(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [claim("plain", "tinymodels.checks:holds", {"holds": True})],
                           "")
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    _edit(root, "plain", tier="train", budget="full", fingerprint="0" * 64)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert rows(done.stdout)["plain"]["ran"] is True, done.stdout
    result = stored(root, "plain")
    assert result["tier"] == "unit" and result["fingerprint"] != "0" * 64


def test_a_stale_training_result_is_rerun_whatever_budget_it_claims(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("trains", "train", {"at_least": 0}, args={"epochs": 1}, accept_proxy=True)], "")
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    _edit(root, "trains", budget="full", fingerprint="0" * 64)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    assert rows(done.stdout)["trains"]["ran"] is True, done.stdout


def test_a_training_result_without_its_interval_is_incomplete(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("trains", "train", {"at_least": 0}, args={"epochs": 1}, accept_proxy=True)], "")
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    assert stored(root, "trains")["interval"] is not None
    assert rows(cli(root, "status", "wiki", "--format", "json").stdout)["trains"]["verdict"] == (
        "verified")
    _edit(root, "trains", interval=None)
    shown = rows(cli(root, "status", "wiki", "--format", "json").stdout)["trains"]
    assert shown["verdict"] == "unverified"
    assert shown["reason"].startswith("stored result incomplete: a training result holds the "
                                      "confidence interval"), shown["reason"]
    _edit(root, "trains", interval={"low": 1, "high": 2, "level": 0.95}, budget="enormous")
    shown = rows(cli(root, "status", "wiki", "--format", "json").stdout)["trains"]
    assert shown["verdict"] == "unverified"


def test_results_no_card_registers_stay_unshown(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [claim("plain", "tinymodels.checks:holds", {"holds": True})],
                           "")
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    results = root / ".claimcheck" / "results"
    data = loads_strict((results / f"{ARXIV}__plain.json").read_text("utf-8"))
    data["claim"] = f"{ARXIV}/ghost"
    (results / f"{ARXIV}__ghost.json").write_text(json.dumps(data), encoding="utf-8")
    done = cli(root, "status", "wiki", "--format", "json")
    assert set(rows(done.stdout)) == {"plain"}
    assert "ghost" not in done.stdout


def test_a_custom_training_check_without_its_interval_is_incomplete(tmp_path: Path) -> None:
    """The missing-interval rule is the train tier's, not the built-in ``train`` kind's: a
    custom check the card declares ``tier: train`` (a paired difference over seeds) without its
    interval is never judged on its mean alone, whether its check or a forger dropped it."""
    checks = '''
@claim_check
def seeds(ctx):
    return Evidence(measured=5.0, fidelity="proxy")
'''
    root = hostile_project(tmp_path, [
        claim("paired", "tinymodels.hostile:seeds", {"at_least": 0}, tier="train",
              accept_proxy=True)], checks)
    cli(root, "verify", "wiki", "--device", "cpu")
    _edit(root, "paired", verdict="verified", reason="", interval=None)
    shown = rows(cli(root, "status", "wiki", "--format", "json").stdout)["paired"]
    assert shown["verdict"] == "unverified"
    assert shown["reason"].startswith("stored result incomplete: a training result holds the "
                                      "confidence interval"), shown["reason"]
