"""``claimcheck verify --power``: one isolated run per listed variant, judged against the claim's
expect, stored beside the result and re-run only when the claim or the variant changes."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claimcheck.cards.wiki import load_wiki
from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.engine.power_run import run_power
from claimcheck.engine.runner import RunOptions
from claimcheck.store.power_results import PowerStore
from tests.engine.conftest import claim
from tests.power.conftest import power_claim, write_power_project
from tests.strictjson import loads_strict

ARXIV = "2101.00023"


def _verify(root: Path, *extra: str) -> tuple[int, dict[str, dict[str, Any]]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["verify", str(root / "wiki"), "--format", "json", "--device", "cpu",
                     "--jobs", "1", *extra])
    return code, {row["claim"].split("/", 1)[1]: row for row in loads_strict(out.getvalue())}


def _power(root: Path, **options: Any) -> int:
    wiki = load_wiki(load_config(root))
    return run_power(wiki, RunOptions(device="cpu", jobs=1, **options)).ran


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_power_project(tmp_path / "p", {ARXIV: [
        power_claim("caught", ["wrong-factor", "negative-factor"]),
        # Run after "caught" in the same worker: a leaked wrong-factor would make it caught.
        power_claim("missed", ["unused-offset"]),
        power_claim("contradicted", ["wrong-factor"], expect={"equals": 7.0}),
        claim("plain", "tinymodels.checks:holds", {"holds": True}, basis="implementation"),
    ]})


def test_caught_and_missed_variants(project: Path) -> None:
    code, rows = _verify(project, "--power")
    assert code == 0
    caught = rows["caught"]["power"]
    assert caught["summary"] == "catches 2 of 2 listed wrong variants"
    states = {v["name"]: (v["state"], v["verdict"], v["measured"]) for v in caught["variants"]}
    assert states == {"wrong-factor": ("caught", "contradicted", 9.0),
                      "negative-factor": ("caught", "contradicted", -6.0)}
    missed = rows["missed"]["power"]
    assert missed["summary"] == "catches 0 of 1: misses unused-offset"
    assert missed["missed"] == ["unused-offset"]
    assert rows["plain"]["power"]["summary"] == "no wrong variant listed"


def test_no_power_for_a_claim_that_is_not_verified(project: Path) -> None:
    _, rows = _verify(project, "--power")
    assert rows["contradicted"]["verdict"] == "contradicted"
    power = rows["contradicted"]["power"]
    assert not power["applicable"] and "not verified" in power["why"]
    assert PowerStore(project / ".claimcheck").read(f"{ARXIV}/contradicted") == {}


def test_a_variant_never_leaks_into_the_ordinary_verdicts(project: Path) -> None:
    _verify(project, "--power")
    before = (project / ".claimcheck/results" / f"{ARXIV}__caught.json").read_text()
    _, rows = _verify(project, "--force")
    assert rows["caught"]["verdict"] == "verified" and rows["caught"]["measured"] == 6.0
    assert rows["missed"]["verdict"] == "verified"
    after = loads_strict((project / ".claimcheck/results" / f"{ARXIV}__caught.json").read_text())
    assert loads_strict(before)["measured"] == after["measured"] == 6.0


def test_a_broken_variant_is_an_error_not_a_catch(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", ["broken-variant"])]})
    code, rows = _verify(root, "--power")
    assert code == 1
    variant, = rows["a"]["power"]["variants"]
    assert variant["state"] == "errored"
    assert "could not be applied: RuntimeError: the variant itself is broken" in variant["note"]


def test_a_check_that_raises_under_the_variant_catches_it(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", ["no-factor"])]})
    code, rows = _verify(root, "--power")
    assert code == 0
    variant, = rows["a"]["power"]["variants"]
    assert (variant["state"], variant["verdict"]) == ("caught", "unverified")
    assert variant["reason"].startswith("check raised TypeError")


def test_running_out_of_stack_is_errored_not_caught(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", ["recursive-factor"])]})
    code, rows = _verify(root, "--power")
    assert code == 1
    variant, = rows["a"]["power"]["variants"]
    assert variant["state"] == "errored"
    assert "RecursionError" in variant["note"]


def test_power_reruns_only_what_changed(project: Path) -> None:
    _verify(project, "--power")
    assert _power(project) == 0
    variants = project / "tinymodels/variants/deeper/sign.py"
    variants.write_text(variants.read_text() + "\n# touched\n")
    assert _power(project) == 1  # only negative-factor lives in that file
    card = next((project / "wiki/papers").glob("*.md"))
    card.write_text(card.read_text().replace("Statement of caught.", "Changed statement."))
    _, rows = _verify(project)
    assert rows["caught"]["power"]["summary"].startswith("catches 0 of 2")
    assert "stale" in rows["caught"]["power"]["summary"]
    assert _power(project) == 2
    assert _power(project, force=True) == 3


def test_stale_claim_result_shows_power_as_not_measured(project: Path) -> None:
    _verify(project, "--power")
    card = next((project / "wiki/papers").glob("*.md"))
    card.write_text(card.read_text().replace("Statement of caught.", "Changed statement."))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["status", str(project / "wiki"), "--format", "json"])
    rows = {row["claim"].split("/", 1)[1]: row for row in loads_strict(out.getvalue())}
    assert rows["caught"]["power"]["why"] == "the claim's result is stale"
    assert rows["missed"]["power"]["summary"] == "catches 0 of 1: misses unused-offset"


def test_a_forged_power_entry_is_judged_again(project: Path) -> None:
    _verify(project, "--power")
    path = PowerStore(project / ".claimcheck").path_of(f"{ARXIV}/missed")
    data = loads_strict(path.read_text())
    data["variants"]["unused-offset"]["verdict"] = "contradicted"
    path.write_text(json.dumps(data))
    _, rows = _verify(project)
    assert rows["missed"]["power"]["missed"] == ["unused-offset"]


def test_a_forged_power_measurement_is_remade_by_the_recheck(project: Path) -> None:
    _verify(project, "--power")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    path = PowerStore(project / ".claimcheck").path_of(f"{ARXIV}/missed")
    data = loads_strict(path.read_text())
    data["variants"]["unused-offset"].update(measured=9.0, verdict="contradicted")
    path.write_text(json.dumps(data))  # a consistent forgery: re-judging cannot see it
    _, rows = _verify(project)
    assert rows["missed"]["power"]["missed"] == []
    _, rows = _verify(project, "--recheck-results-changed-since", "HEAD")
    assert rows["missed"]["power"]["missed"] == []  # without --power nothing re-makes it
    _, rows = _verify(project, "--power", "--recheck-results-changed-since", "HEAD")
    assert rows["missed"]["power"]["missed"] == ["unused-offset"]
    assert loads_strict(path.read_text())["variants"]["unused-offset"]["measured"] == 6.0


@pytest.mark.slow
def test_training_variants_run_at_the_result_budget_never_above_the_run(tmp_path: Path) -> None:
    train = claim("t", "train", {"at_least": 0}, args={"epochs": 2}, accept_proxy=True,
                  basis="reproduction", catches=["wrong-factor"])
    root = write_power_project(tmp_path, {ARXIV: [train]})
    _, rows = _verify(root, "--power")
    variant, = rows["t"]["power"]["variants"]
    assert variant["budget"] == "smoke"
    result = root / ".claimcheck/results" / f"{ARXIV}__t.json"
    data = loads_strict(result.read_text())
    result.write_text(json.dumps({**data, "budget": "short"}))  # as if verified at short
    assert _power(root) == 0  # a smoke run never runs a short claim's variants
    power = PowerStore(root / ".claimcheck")
    power.path_of(f"{ARXIV}/t").unlink()
    _, rows = _verify(root)
    variant, = rows["t"]["power"]["variants"]
    assert variant["state"] == "not run" and "--budget short" in variant["note"]
    assert _power(root, budget="short") == 1
    assert power.read(f"{ARXIV}/t")["wrong-factor"].budget == "short"


def test_a_variant_listed_by_its_full_reference(tmp_path: Path) -> None:
    listed = ["tinymodels.variants.scale:wrong_factor", "unused-offset"]
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", listed)]})
    _, rows = _verify(root, "--power")
    power = rows["a"]["power"]
    assert power["summary"] == "catches 1 of 2: misses unused-offset"
    assert power["variants"][0]["description"] == "The factor is 3 instead of 2."
    assert _power(root) == 0  # stored under its card name, found again: fresh
