"""Forged verdicts (issue 12 §3): a stored result is evidence, judged again whenever it is read.

A pull request can edit a committed result file. Here the file of a claim whose model has 70
parameters, against a card that expects 8.2 million, is edited to say "verified"; another says
"verified" for a proxy measurement the claim does not accept; a third says "contradicted" for a
measurement that meets its expect. ``status``, ``verify`` (which does not re-run a fresh result),
the site and ``claimcheck report`` must all show each of them as unverified, "stored verdict
disagrees with its own measurement". A result file over the size limit is skipped with a warning.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project, rows

CHECKS = '''
@claim_check
def proxy(ctx):
    return Evidence(measured=0.9, fidelity="proxy", details="a scaled-down run")
'''
TINY = {"model": "tiny", "preset": "small"}
FORGERIES = {
    "params": {"verdict": "verified", "reason": ""},
    "proxy": {"verdict": "verified", "reason": ""},
    "meets": {"verdict": "contradicted", "reason": "measured 70, expected at least 1"},
}
DISAGREES = "stored verdict disagrees with its own measurement"


def _result_file(root: Path, name: str) -> Path:
    return root / ".claimcheck" / "results" / f"{ARXIV}__{name}.json"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = hostile_project(tmp_path_factory.mktemp("forged"), [
        claim("params", "params", {"approx": 8_200_000, "rel_tol": 0.01}, args=TINY),
        claim("proxy", "tinymodels.hostile:proxy", {"at_least": 0.5}),
        claim("meets", "params", {"at_least": 1}, args=TINY),
    ], CHECKS)
    done = cli(project, "verify", "wiki", "--device", "cpu", "--format", "json")
    honest = rows(done.stdout)
    assert [honest[name]["verdict"] for name in FORGERIES] == [
        "contradicted", "unverified", "verified"]
    for name, forged in FORGERIES.items():
        path = _result_file(project, name)
        data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        data.update(forged)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return project


@pytest.mark.parametrize("command", ["status", "verify"])
def test_cli_shows_a_forged_verdict_as_unverified(root: Path, command: str) -> None:
    done = cli(root, command, "wiki", "--device", "cpu", "--format", "json") if command == \
        "verify" else cli(root, "status", "wiki", "--format", "json")
    shown = rows(done.stdout)
    for name in FORGERIES:
        assert shown[name]["verdict"] == "unverified", shown[name]
        assert shown[name]["reason"].startswith(DISAGREES), shown[name]
        assert not shown[name]["ran"]
    assert "the file says verified, but measured 70" in shown["params"]["reason"]


def test_the_site_and_the_report_show_it_too(root: Path) -> None:
    from claimcheck.core.config import load_config
    from claimcheck.site.siteindex import build_index

    config = load_config(root)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index = build_index(config, config.wiki, config.results)
    for name in FORGERIES:
        view = index.views[f"{ARXIV}/{name}"]
        assert view.verdict == "unverified" and view.reason.startswith(DISAGREES)
    report = cli(root, "report", "wiki", "--format", "markdown")
    assert report.returncode == 0, report.stderr
    for name in FORGERIES:
        (line,) = [line for line in report.stdout.splitlines() if line.startswith(f"| `{name}`")]
        assert "? unverified" in line and "✓" not in line and "✗" not in line


def test_an_oversized_result_file_is_skipped_with_a_warning(tmp_path: Path) -> None:
    project = hostile_project(tmp_path, [
        claim("big", "params", {"at_least": 1}, args=TINY),
    ], CHECKS)
    cli(project, "verify", "wiki", "--device", "cpu")
    path = _result_file(project, "big")
    data = json.loads(path.read_text("utf-8"))
    data["details"] = "x" * (11 * 1024 * 1024)
    path.write_text(json.dumps(data), encoding="utf-8")
    status = cli(project, "status", "wiki", "--format", "json")
    assert status.returncode == 0
    assert "over the limit" in status.stderr and f"{ARXIV}__big.json" in status.stderr
    assert rows(status.stdout)["big"]["reason"].startswith("never run")
