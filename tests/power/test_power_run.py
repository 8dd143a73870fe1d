"""``claimcheck verify --power``: one isolated run per listed variant, judged against the claim's
expect, stored beside the result and re-run only when the claim or the variant changes."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
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


def _claims() -> list[dict[str, Any]]:
    return [
        power_claim("caught", ["wrong-factor", "negative-factor"]),
        # Run after "caught" in the same worker: a leaked wrong-factor would make it caught.
        power_claim("missed", ["small-offset"], expect={"approx": 6.0, "rel_tol": 0.01}),
        power_claim("contradicted", ["wrong-factor"], expect={"equals": 7.0}),
        claim("plain", "tinymodels.checks:holds", {"holds": True}, basis="implementation"),
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_power_project(tmp_path / "p", {ARXIV: _claims()})


@pytest.fixture(scope="module")
def _powered_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project after its first ``verify --power`` (several seconds), made once."""
    root = write_power_project(tmp_path_factory.mktemp("powered") / "p", {ARXIV: _claims()})
    _verify(root, "--power")
    return root


@pytest.fixture
def powered(_powered_once: Path, tmp_path: Path) -> Path:
    """The project after its first ``verify --power``: the test's own copy, to change."""
    return Path(shutil.copytree(_powered_once, tmp_path / "p"))


TOLERANT = {"approx": 6.0, "rel_tol": 0.01}


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, dict[str, Any]]:
    """One power run over claims that list every state, and one that lists nothing."""
    root = write_power_project(tmp_path_factory.mktemp("matrix"), {ARXIV: [
        power_claim("exact", ["wrong-factor", "negative-factor"]),
        power_claim("tolerant", [
            "small-offset", "unused-offset", "wrapped-factor", "no-factor", "recursive-factor",
            "broken-variant", "tinymodels.variants.scale:wrong_factor", "wrong-factor"],
            expect=TOLERANT),
        claim("doubles", "tinymodels.powerchecks:doubles_three", {"equals": 6.0},
              basis="implementation"),
        power_claim("contradicted", ["wrong-factor"], expect={"equals": 7.0}),
    ]})
    code, rows = _verify(root, "--power")
    return root, code, rows


def _states(power: dict[str, Any], listed: bool | None = None) -> dict[str, str]:
    return {v["name"]: v["state"] for v in power["variants"]
            if listed is None or v["listed"] is listed}


def test_every_state_of_a_listed_variant(matrix: tuple[Path, int, dict[str, Any]]) -> None:
    _, code, rows = matrix
    assert code == 1  # broken-variant could not be applied: an error of the power run
    power = rows["tolerant"]["power"]
    assert _states(power, listed=True) == {
        "small-offset": "missed",  # measured 6.01: moved, and 1 % lets it through
        "unused-offset": "no longer a change",  # measured 6, exactly as without it
        "wrapped-factor": "not self-contained",  # calls the scale it replaces
        "no-factor": "not decided",  # the check raised: no completed run, no flip
        "recursive-factor": "not decided",  # out of stack: exhaustion
        "broken-variant": "not decided",  # the variant itself failed
        "wrong-factor": "caught",
    }
    variants = {v["name"]: v for v in power["variants"]}
    assert "RecursionError" in variants["recursive-factor"]["note"]
    assert "the variant itself is broken" in variants["broken-variant"]["note"]
    assert "tinymodels.scale.scale" in variants["wrapped-factor"]["note"]
    assert variants["small-offset"]["measured"] == pytest.approx(6.01)
    assert power["summary"].startswith("catches 1 of 7: misses small-offset; no longer a change:")
    assert "not decided: no-factor, recursive-factor, broken-variant" in power["summary"]
    assert power["not_decided"] == ["no-factor", "recursive-factor", "broken-variant"]


def test_a_variant_counts_once_whatever_its_spelling(
        matrix: tuple[Path, int, dict[str, Any]]) -> None:
    _, _, rows = matrix
    power = rows["tolerant"]["power"]
    assert power["listed"] == 7 and power["caught"] == 1
    assert [v["name"] for v in power["variants"]].count("wrong-factor") == 1


def test_unlisted_variants_the_check_reaches_run_and_show(
        matrix: tuple[Path, int, dict[str, Any]]) -> None:
    _, _, rows = matrix
    exact = rows["exact"]["power"]
    assert _states(exact, listed=True) == {"wrong-factor": "caught", "negative-factor": "caught"}
    unlisted = _states(exact, listed=False)
    assert unlisted["small-offset"] == "caught"  # 6.01 is not 6: caught, though not listed
    assert unlisted["wrapped-factor"] == "not self-contained"
    assert exact["unlisted_caught"] == ["small-offset"]
    assert exact["summary"] == ("catches 2 of 2 listed wrong variants; also catches 1 "
                                "unlisted: small-offset")
    doubles = rows["doubles"]["power"]
    assert _states(doubles) == {"other-halved": "caught"}
    assert doubles["summary"] == "no wrong variant listed; also catches 1 unlisted: other-halved"


def test_a_variant_the_check_does_not_reach_is_not_run(
        matrix: tuple[Path, int, dict[str, Any]]) -> None:
    root, _, _ = matrix
    store = PowerStore(root / ".claimcheck")
    runs, unreached = store.read_file(f"{ARXIV}/doubles")
    assert set(runs) == {"other-halved"}
    assert {"wrong-factor", "small-offset", "unused-offset"} <= set(unreached)
    runs, unreached = store.read_file(f"{ARXIV}/exact")
    assert {"other-halved", "unused-offset"} <= set(unreached)  # UNUSED is never looked up
    assert "other-halved" not in runs and "unused-offset" not in runs
    assert "unused-offset" in store.read(f"{ARXIV}/tolerant")  # listed: always run


def test_no_power_for_a_claim_that_is_not_verified(
        matrix: tuple[Path, int, dict[str, Any]]) -> None:
    root, _, rows = matrix
    assert rows["contradicted"]["verdict"] == "contradicted"
    power = rows["contradicted"]["power"]
    assert not power["applicable"] and "not verified" in power["why"]
    assert PowerStore(root / ".claimcheck").read(f"{ARXIV}/contradicted") == {}


def test_an_undecided_run_is_retried_and_a_decided_one_is_not(
        matrix: tuple[Path, int, dict[str, Any]], tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(matrix[0], root)
    store = PowerStore(root / ".claimcheck")
    before = {name: run.timestamp for name, run in store.read(f"{ARXIV}/tolerant").items()}
    _power(root)
    after = {name: run.timestamp for name, run in store.read(f"{ARXIV}/tolerant").items()}
    again = {name for name in before if after[name] != before[name]}
    assert again == {"no-factor", "recursive-factor", "broken-variant"}


def test_a_variant_never_leaks_into_the_ordinary_verdicts(powered: Path) -> None:
    before = (powered / ".claimcheck/results" / f"{ARXIV}__caught.json").read_text()
    _, rows = _verify(powered, "--force")
    assert rows["caught"]["verdict"] == "verified" and rows["caught"]["measured"] == 6.0
    assert rows["missed"]["verdict"] == "verified"
    after = loads_strict((powered / ".claimcheck/results" / f"{ARXIV}__caught.json").read_text())
    assert loads_strict(before)["measured"] == after["measured"] == 6.0


def test_after_a_code_change_an_equal_measurement_is_no_longer_a_change(powered: Path) -> None:
    _, rows = _verify(powered)
    assert _states(rows["caught"]["power"], listed=True)["wrong-factor"] == "caught"
    source = powered / "tinymodels/scale.py"  # the breakage: the factor is written in
    source.write_text(source.read_text().replace("return FACTOR * x", "return 2.0 * x"))
    _, rows = _verify(powered, "--power")
    states = _states(rows["caught"]["power"], listed=True)
    assert states == {"wrong-factor": "no longer a change", "negative-factor": "no longer a change"}
    assert rows["caught"]["power"]["missed"] == []


def test_resources_apply_to_every_run_and_exhaustion_is_never_caught(tmp_path: Path) -> None:
    starved = power_claim("starved", ["wrong-factor"], resources={"memory_gb": 0.05})
    starved["check"] = "tinymodels.powerchecks:scales_in_memory"
    root = write_power_project(tmp_path, {ARXIV: [starved]})
    _, rows = _verify(root, "--power")
    assert rows["starved"]["verdict"] == "unverified"
    power = rows["starved"]["power"]
    assert power["caught"] == 0 and not power["applicable"]
    assert PowerStore(root / ".claimcheck").read(f"{ARXIV}/starved") == {}


def test_power_reruns_only_what_changed(powered: Path) -> None:
    store = PowerStore(powered / ".claimcheck")

    def stamps() -> dict[tuple[str, str], str]:
        return {(c, n): r.timestamp for c in ("caught", "missed")
                for n, r in store.read(f"{ARXIV}/{c}").items()}

    def rerun() -> set[tuple[str, str]]:
        before = stamps()
        _power(powered)
        return {key for key, stamp in stamps().items() if before.get(key) != stamp}

    undecided = {(c, n) for c in ("caught", "missed")
                 for n, r in store.read(f"{ARXIV}/{c}").items() if r.measured is None}
    assert undecided and rerun() == undecided  # only what was never decided is tried again
    variants = powered / "tinymodels/variants/deeper/sign.py"
    variants.write_text(variants.read_text() + "\n# touched\n")
    assert rerun() == undecided | {("caught", "negative-factor"), ("missed", "negative-factor")}
    card = next((powered / "wiki/papers").glob("*.md"))
    card.write_text(card.read_text().replace("Statement of caught.", "Changed statement."))
    _, rows = _verify(powered)
    assert rows["caught"]["power"]["summary"].startswith("catches 0 of 2")
    assert "stale" in rows["caught"]["power"]["summary"]
    _, rows = _verify(powered, "--power")
    assert rows["caught"]["power"]["caught"] == 2


def test_stale_claim_result_shows_power_as_not_measured(powered: Path) -> None:
    card = next((powered / "wiki/papers").glob("*.md"))
    card.write_text(card.read_text().replace("Statement of caught.", "Changed statement."))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["status", str(powered / "wiki"), "--format", "json"])
    rows = {row["claim"].split("/", 1)[1]: row for row in loads_strict(out.getvalue())}
    assert rows["caught"]["power"]["why"] == "the claim's result is stale"
    assert rows["missed"]["power"]["missed"] == ["small-offset"]


def test_a_forged_power_entry_is_judged_again(powered: Path) -> None:
    path = PowerStore(powered / ".claimcheck").path_of(f"{ARXIV}/missed")
    data = loads_strict(path.read_text())
    data["variants"]["small-offset"]["verdict"] = "contradicted"
    path.write_text(json.dumps(data))
    _, rows = _verify(powered)
    assert rows["missed"]["power"]["missed"] == ["small-offset"]


def test_a_forged_power_measurement_is_remade_by_the_recheck(powered: Path) -> None:
    git = ["git", "-C", str(powered), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    path = PowerStore(powered / ".claimcheck").path_of(f"{ARXIV}/missed")
    data = loads_strict(path.read_text())
    data["variants"]["small-offset"].update(measured=9.0, verdict="contradicted")
    path.write_text(json.dumps(data))  # a consistent forgery: re-judging cannot see it
    _, rows = _verify(powered)
    assert rows["missed"]["power"]["missed"] == []
    _, rows = _verify(powered, "--recheck-results-changed-since", "HEAD")
    assert rows["missed"]["power"]["missed"] == []  # without --power nothing re-makes it
    _, rows = _verify(powered, "--power", "--recheck-results-changed-since", "HEAD")
    assert rows["missed"]["power"]["missed"] == ["small-offset"]
    assert loads_strict(path.read_text())["variants"]["small-offset"]["measured"] == 6.01


# The project's trainer without torch, for the budget test: what a training claim's variants
# are run at does not depend on what the trainer computes, and each of the test's five runs of
# the train check (the claim, and a run without and with the variant at smoke and at short), in
# a process of its own, would otherwise pay for torch.optim's first import of torch._dynamo.
FIXED_CURVE_TRAINER = '''\
"""A trainer that follows the trainer contract and trains nothing: a fixed curve."""
from claimcheck import trainer


@trainer
def run_training(spec, ctx):
    epochs = [{"epoch": epoch, "loss": 1.0 / epoch, "metric": 75.0, "seconds": 0.0}
              for epoch in range(1, int(spec.get("epochs", 2)) + 1)]
    return {
        "metric": "accuracy", "per_seed": [75.0], "seeds": [ctx.seed],
        "curves": [{"seed": ctx.seed, "epochs": epochs}], "images_per_second": 0.0,
        "device": ctx.device,
        "data": {"name": "none", "split": "none", "size": 0, "origin": "a fixed curve"},
        "schedule": {"name": "none", "epochs": len(epochs)}, "fidelity": "proxy",
        "details": "a fixed curve",
    }
'''


@pytest.mark.slow
def test_training_variants_run_at_the_result_budget_never_above_the_run(tmp_path: Path) -> None:
    train = claim("t", "train", {"at_least": 0}, args={"epochs": 2}, accept_proxy=True,
                  basis="reproduction", catches=["wrong-factor"])
    root = write_power_project(tmp_path, {ARXIV: [train]})
    (root / "tinymodels/training.py").write_text(FIXED_CURVE_TRAINER, encoding="utf-8")
    _, rows = _verify(root, "--power")
    variant = rows["t"]["power"]["variants"][0]
    assert variant["budget"] == "smoke"
    result = root / ".claimcheck/results" / f"{ARXIV}__t.json"
    data = loads_strict(result.read_text())
    result.write_text(json.dumps({**data, "budget": "short"}))  # as if verified at short
    assert _power(root) == 0  # a smoke run never runs a short claim's variants
    power = PowerStore(root / ".claimcheck")
    power.path_of(f"{ARXIV}/t").unlink()
    _, rows = _verify(root)
    variant = rows["t"]["power"]["variants"][0]
    assert variant["state"] == "not run" and "--budget short" in variant["note"]
    assert _power(root, budget="short") >= 1
    assert power.read(f"{ARXIV}/t")["wrong-factor"].budget == "short"


def test_the_listed_scope_runs_only_what_claims_list(project: Path) -> None:
    """``--power-scope listed`` (CI's power step) runs the variants a claim lists and leaves
    the rest of the matrix alone; the default scope runs the unlisted ones the check reaches."""
    _verify(project, "--power", "--power-scope", "listed")
    listed_only = PowerStore(project / ".claimcheck").read(f"{ARXIV}/caught")
    assert set(listed_only) == {"wrong-factor", "negative-factor"}
    _verify(project, "--power")
    matrix = PowerStore(project / ".claimcheck").read(f"{ARXIV}/caught")
    assert set(matrix) > set(listed_only)  # small-offset, which the check reaches, ran too
