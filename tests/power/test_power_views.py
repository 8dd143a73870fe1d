"""Power in every view: the lint finding (warning; error with --strict), and the power section
of status text, JSON, JUnit and GitHub output; missing and stale power results show as such."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest

from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.site.citeview import ClaimLinks, HoverCard
from claimcheck.site.render import Renderer
from claimcheck.site.siteindex import build_index
from tests.power.conftest import power_claim, write_power_project

ARXIV = "2101.00023"


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_power_project(tmp_path_factory.mktemp("views"), {ARXIV: [
        power_claim("caught", ["wrong-factor"]),
        power_claim("missed", ["wrong-factor", "small-offset"],
                    expect={"approx": 6.0, "rel_tol": 0.01}),
    ]})
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["verify", str(root / "wiki"), "--power", "--device", "cpu", "-j", "1"]) == 0
    return root


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def _card_line(root: Path, path: str, line: int) -> str:
    return (root / path).read_text(encoding="utf-8").splitlines()[line - 1]


def test_missed_variant_is_a_warning_at_the_claims_line(measured: Path) -> None:
    code, text = _run("lint", str(measured / "wiki"), "--format", "json")
    findings = [f for f in json.loads(text) if f["rule"] == "variant-missed"]
    assert code == 0
    finding, = findings
    assert finding["level"] == "warning"
    assert "wrong variant 'small-offset' is not caught" in finding["message"]
    assert "id: missed" in _card_line(measured, finding["path"], finding["line"])


def test_missed_variant_is_an_error_with_strict(measured: Path) -> None:
    code, text = _run("lint", str(measured / "wiki"), "--strict", "--format", "json")
    assert code == 1
    levels = {f["rule"]: f["level"] for f in json.loads(text)}
    assert levels["variant-missed"] == "error"


def test_json_section(measured: Path) -> None:
    _, text = _run("status", str(measured / "wiki"), "--format", "json")
    rows = {row["claim"]: row["power"] for row in json.loads(text)}
    missed = rows[f"{ARXIV}/missed"]
    assert missed["summary"] == ("catches 1 of 2: misses small-offset; also catches 1 unlisted: "
                                 "negative-factor")
    assert (missed["listed"], missed["caught"], missed["missed"]) == (2, 1, ["small-offset"])
    assert rows[f"{ARXIV}/caught"]["summary"].startswith(
        "catches 1 of 1 listed wrong variants; also catches ")
    entry = next(v for v in missed["variants"] if v["name"] == "small-offset")
    assert {k: entry[k] for k in ("state", "listed", "measured")} == {
        "state": "missed", "listed": True, "measured": 6.01}
    assert entry["description"] == "An offset of 0.01 where there is none."
    unlisted = [v for v in rows[f"{ARXIV}/caught"]["variants"] if not v["listed"]]
    assert {"name": "small-offset", "state": "caught"}.items() <= next(
        v for v in unlisted if v["name"] == "small-offset").items()


def test_junit_section(measured: Path) -> None:
    _, text = _run("status", str(measured / "wiki"), "--format", "junit")
    cases = {case.get("name"): case for case in ElementTree.fromstring(text.split("\n", 1)[1])}
    missed = cases[f"{ARXIV}/missed"]
    power = {p.get("name"): p.get("value") for p in missed.iter("property")}["power"]
    assert power.startswith("catches 1 of 2: misses small-offset")
    assert "misses small-offset" in (missed.findtext("system-out") or "")
    assert cases[f"{ARXIV}/caught"].find("system-out") is None


def test_github_and_text(measured: Path) -> None:
    _, text = _run("status", str(measured / "wiki"), "--format", "github")
    warnings = [line for line in text.splitlines() if "misses small-offset" in line]
    assert len(warnings) == 1 and warnings[0].startswith("::warning file=wiki/papers/")
    _, plain = _run("status", str(measured / "wiki"))
    assert "power: 1 of 2 verified claim(s) that list wrong variants catch all of them" in plain
    assert f"{ARXIV}/missed: catches 1 of 2: misses small-offset" in plain


def test_missing_and_stale_power_results(measured: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(measured, copy)
    shutil.rmtree(copy / ".claimcheck" / "power")
    _, text = _run("status", str(copy / "wiki"), "--format", "json")
    power = {row["claim"]: row["power"] for row in json.loads(text)}[f"{ARXIV}/missed"]
    assert power["summary"] == "catches 0 of 2: not run wrong-factor, small-offset"
    code, lint = _run("lint", str(copy / "wiki"), "--strict", "--format", "json")
    assert code == 0 and {f["rule"] for f in json.loads(lint)} >= {"power-not-run"}
    shutil.rmtree(copy)
    shutil.copytree(measured, copy)
    variants = copy / "tinymodels/variants/scale.py"
    variants.write_text(variants.read_text() + "\n# touched\n")
    _, text = _run("status", str(copy / "wiki"), "--format", "json")
    power = {row["claim"]: row["power"] for row in json.loads(text)}[f"{ARXIV}/missed"]
    # negative-factor lives in variants/deeper/sign.py, untouched: its catch stays fresh
    assert power["summary"] == ("catches 0 of 2: stale wrong-factor, small-offset; also catches 1 "
                                "unlisted: negative-factor")


def test_site_shows_power_in_card_table_and_dashboard(measured: Path) -> None:
    config = load_config(measured)
    index = build_index(config, config.wiki, config.results)
    views = sorted(index.views.values(), key=lambda view: view.global_id)
    assert [view.power_all_caught for view in views] == [True, False]
    renderer = Renderer()
    table = renderer.claims_table(views, lambda _: None, lambda _: None)
    assert "catches 1 of 1 listed wrong variant" in table
    assert "catches 1 of 2" in table
    card = HoverCard("c", tuple(views), {v.global_id: ClaimLinks("#row") for v in views})
    assert "catches 1 of 2" in renderer.hover_cards([card])
    dashboard = " ".join(renderer.dashboard(views, {}, lambda _: "#", None).split())
    assert "1 of 2" in dashboard


def test_site_without_a_catalogue_shows_no_power(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", [])]})
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('variants = ["tinymodels.variants"]', ""))
    config = load_config(root)
    config.results.mkdir()  # a store, so that power would be read if there were a catalogue
    views = list(build_index(config, config.wiki, config.results).views.values())
    assert [view.power for view in views] == [""]
    assert "Power:" not in Renderer().dashboard(views, {}, lambda _: "#", None)
