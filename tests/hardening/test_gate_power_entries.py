"""CI's gate on committed power entries: what the re-made power file lacks, and derived state.

A pull request can commit a power file (``.claimcheck/power/``) by hand. CI re-makes every
variant of a changed file and compares (:func:`claimcheck.engine.gate.compare`). Two holes: an
entry the re-made file no longer holds (an unknown name, another spelling, a variant found
unreached) was waved through as "not re-made by CI"; and only the verdict and measurement of an
entry were compared, not the fields its state is derived from (``called``, ``raised``, the
unvaried run's ``base_measured``/``base_interval``), so "not self-contained" or "not decided"
could be forged into "caught". These tests write the committed and the re-made files directly,
so no check runs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from claimcheck.cards.wiki import load_wiki
from claimcheck.core.config import load_config
from claimcheck.engine.gate import Committed, compare
from claimcheck.store.power_results import PowerStore, VariantRun
from tests.power.conftest import power_claim, write_power_project

ARXIV = "2101.00002"
GID = f"{ARXIV}/tol"


def _run(**fields: object) -> VariantRun:
    base = VariantRun(reference="tinymodels.variants.scale:small_offset", fingerprint="f" * 64,
                      verdict="contradicted", reason="", measured=9.0, fidelity="exact",
                      details="", error=None, budget="smoke", duration_s=0.1,
                      timestamp="2026-12-04T17:11:31+00:00", base_measured=6.0, reach="listed")
    return dataclasses.replace(base, **fields)


def _gate(tmp_path: Path, committed: dict[str, VariantRun], remade: dict[str, VariantRun],
          unreached: dict[str, str] | None = None) -> tuple[list[str], list[str]]:
    root = write_power_project(tmp_path, {ARXIV: [
        power_claim("tol", ["wrong-factor", "small-offset"], {"approx": 6.0, "rel_tol": 0.01})]})
    wiki = load_wiki(load_config(root))
    PowerStore(wiki.config.results).write(GID, remade, unreached)
    report = compare(wiki, Committed({}, {GID: committed}))
    return report.differences, report.not_remade


@pytest.mark.parametrize("name", ["Small_Offset", "tinymodels.variants.scale:small_offset",
                                  "no-such-variant"])
def test_an_entry_the_remade_file_lacks_is_a_difference(tmp_path: Path, name: str) -> None:
    forged = _run()
    remade = {"small-offset": _run(timestamp="2026-12-05T00:00:00+00:00")}
    differences, not_remade = _gate(tmp_path, {"small-offset": forged, name: forged}, remade)
    assert not not_remade, not_remade
    assert differences == [f"{GID} under {name}: committed a power entry that CI's re-made power "
                           "file does not hold: no variant of the catalogue is stored under "
                           "that name"]


def test_a_variant_found_unreached_is_a_difference(tmp_path: Path) -> None:
    differences, _ = _gate(tmp_path, {"negative-factor": _run(reach="scale")}, {},
                           {"negative-factor": "f" * 64})
    assert differences == [f"{GID} under negative-factor: committed a power entry that CI's "
                           "re-made power file does not hold: the claim's check does not reach "
                           "that variant"]


def test_an_untouched_file_is_still_not_remade(tmp_path: Path) -> None:
    entries = {"small-offset": _run(), "Small_Offset": _run()}
    differences, not_remade = _gate(tmp_path, entries, entries)
    assert not differences and len(not_remade) == 2


@pytest.mark.parametrize(("forged", "remade", "said"), [
    ({"called": ""}, {"called": "tinymodels.nets:scale"}, "committed called ''"),
    ({"raised": False}, {"raised": True, "measured": None}, "committed raised false"),
    ({"base_measured": 6.0}, {"base_measured": None}, "committed unvaried measured 6"),
    ({"base_measured": 6.0}, {"base_measured": 9.0}, "without the variant: committed measured 6"),
    ({"base_interval": None}, {"base_interval": {"low": 5.0, "high": 7.0, "mean": 6.0}},
     "without the variant: committed none confidence interval"),
])
def test_the_fields_the_state_derives_from_are_compared(
        tmp_path: Path, forged: dict[str, object], remade: dict[str, object], said: str) -> None:
    later = {"timestamp": "2026-12-05T00:00:00+00:00"}
    after = _run(**{**later, **remade})
    if after.measured is None:  # a run whose check raised is unverified
        after = dataclasses.replace(after, verdict="unverified")
        forged = {**forged, "measured": None, "verdict": "unverified"}
    differences, _ = _gate(tmp_path, {"small-offset": _run(**forged)}, {"small-offset": after})
    assert len(differences) == 1 and said in differences[0], differences


def test_an_honest_remake_passes(tmp_path: Path) -> None:
    differences, not_remade = _gate(
        tmp_path, {"small-offset": _run()},
        {"small-offset": _run(timestamp="2026-12-05T00:00:00+00:00", measured=9.001)})
    assert not differences and not not_remade
