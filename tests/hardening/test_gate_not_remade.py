"""What CI cannot re-make passes the gate but is never published as verified (issue 33 item 1).

A committed verified result whose check needs data CI does not have (``DataUnavailable``), or a
training result above CI's budget, cannot be re-made: the gate reports it, does not fail, and
every published view (``collect_status(..., ci_gate=True)``: the site, ``claimcheck report``)
shows it as unverified, "not re-made by CI".
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from claimcheck.cards.wiki import load_wiki
from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.core.exitcodes import ExitCode
from claimcheck.store.results import ResultStore
from claimcheck.store.status import collect_status
from tests.engine.conftest import claim, write_project

ARXIV = "2101.00018"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_result_ci_lacks_the_data_for_is_shown_not_remade(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(tmp_path / "project", {ARXIV: [
        claim("needs-data", "tinymodels.checks:no_data", {"holds": True})]})
    wiki = str(root / "wiki")
    assert main(["verify", wiki, "--device", "cpu"]) == ExitCode.OK
    path = root / ".claimcheck" / "results" / f"{ARXIV}__needs-data.json"
    made_elsewhere = json.loads(path.read_text("utf-8"))
    made_elsewhere.update(verdict="verified", reason="", measured=True, error=None)
    path.write_text(json.dumps(made_elsewhere), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    capsys.readouterr()
    code = main(["verify", wiki, "--device", "cpu", "--recheck-results-changed-since",
                 EMPTY_TREE])
    err = capsys.readouterr().err
    assert code == ExitCode.OK, err
    assert f"gate: {ARXIV}/needs-data: not re-made by CI: dataset not available" in err
    statuses = collect_status(load_wiki(load_config(root)), ResultStore(root / ".claimcheck"),
                              ci_gate=True)
    shown = statuses[0].result
    assert shown is not None and shown.verdict.value == "unverified"
    assert shown.reason.startswith("not re-made by CI: the last attempt to re-make it measured "
                                   "nothing (dataset not available: tiny-blobs)"), shown.reason
