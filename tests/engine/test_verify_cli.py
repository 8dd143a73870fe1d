"""``claimcheck verify`` / ``status`` in-process: exit codes, formats, caching, selection."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.core.exitcodes import ExitCode
from claimcheck.store.results import ResultStore
from tests.engine.conftest import REPO, ProjectFactory, claim
from tests.strictjson import loads_strict

ARXIV = "2101.00003"
SMALL = {"model": "tiny", "preset": "small"}
CONTRACT = {"claim", "card", "line", "statement", "verdict", "reason", "measured", "expected",
            "fidelity", "stale", "duration_s", "tier", "budget", "device"}


def _claims() -> list[dict[str, Any]]:
    return [
        claim("holds-yes", "tinymodels.checks:holds", {"holds": True}),
        claim("holds-no", "tinymodels.checks:holds", {"holds": True}, args={"value": False}),
        claim("params", "params", {"at_least": 1}, args=SMALL),
        {"id": "later", "cite": "§4", "statement": "No check yet.", "unverified": "no code"},
    ]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def rows_of(output: str) -> dict[str, dict[str, Any]]:
    return {row["claim"].split("/", 1)[1]: row for row in loads_strict(output)}


@pytest.fixture
def project(make_project: ProjectFactory) -> Path:
    return make_project({ARXIV: _claims()})


def test_json_contract_and_cached_second_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wiki = str(project / "wiki")
    code, out, _ = run(["verify", wiki, "--format", "json", "--device", "cpu"], capsys)
    first = rows_of(out)
    assert code == ExitCode.OK
    assert all(set(row) >= CONTRACT for row in first.values())
    assert {k: r["verdict"] for k, r in first.items()} == {
        "holds-yes": "verified", "holds-no": "contradicted", "params": "verified",
        "later": "unverified",
    }
    assert first["holds-no"]["card"] == "wiki/papers/paper-0.md"
    assert first["holds-no"]["expected"] == {"holds": True}
    assert first["later"]["reason"] == "no code"
    code, out, _ = run(["verify", wiki, "--format", "json"], capsys)
    second = rows_of(out)
    assert code == ExitCode.OK
    assert not any(row["ran"] for row in second.values())
    assert {k: r["verdict"] for k, r in second.items()} == {
        k: r["verdict"] for k, r in first.items()
    }


def test_fail_on_contradicted(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(["verify", str(project / "wiki"), "--fail-on", "contradicted"], capsys)
    assert code == ExitCode.CONTRADICTED


def test_text_report_lists_contradicted_with_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["verify", str(project / "wiki"), "--format", "text"], capsys)
    assert code == ExitCode.OK
    assert "contradicted" in out and f"{ARXIV}/holds-no" in out
    assert re.search(r"wiki/papers/paper-0\.md:\d+", out)


def test_github_and_junit_formats(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wiki = str(project / "wiki")
    _, out, _ = run(["verify", wiki, "--format", "github"], capsys)
    lines = out.splitlines()
    assert any(
        re.fullmatch(rf"::error file=wiki/papers/paper-0\.md,line=\d+::{ARXIV}/holds-no: .*", x)
        for x in lines
    )
    assert any(re.fullmatch(r"::warning file=wiki/papers/paper-0\.md,line=\d+::.*no code", x)
               for x in lines)
    _, out, _ = run(["verify", wiki, "--format", "junit"], capsys)
    suite = ElementTree.fromstring(out.split("\n", 1)[1])
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "1")


def test_only_selects_claims(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["verify", str(project / "wiki"), "--only", "*/holds-*", "--format", "json"],
                    capsys)
    assert set(rows_of(out)) == {"holds-yes", "holds-no"}
    _, out, _ = run(["status", str(project / "wiki"), "--format", "json"], capsys)
    assert rows_of(out)["params"]["reason"].startswith("never run")


def test_only_repeated_selects_what_any_pattern_matches(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(["verify", str(project / "wiki"), "--only", "*/holds-yes", "--only",
                     "*/params", "--format", "json"], capsys)
    assert set(rows_of(out)) == {"holds-yes", "params"}


def test_editing_expect_makes_that_claim_stale_and_rerun(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wiki = str(project / "wiki")
    run(["verify", wiki], capsys)
    card = project / "wiki" / "papers" / "paper-0.md"
    card.write_text(card.read_text().replace("at_least: 1", "at_least: 2"), encoding="utf-8")
    _, out, _ = run(["status", wiki, "--format", "json"], capsys)
    assert {k for k, row in rows_of(out).items() if row["stale"]} == {"params"}
    _, out, _ = run(["status", wiki], capsys)
    assert "(stale)" in out
    _, out, _ = run(["verify", wiki, "--format", "json"], capsys)
    assert {k for k, row in rows_of(out).items() if row["ran"]} == {"params"}
    _, out, _ = run(["verify", wiki, "--format", "json", "--force"], capsys)
    assert {k for k, row in rows_of(out).items() if row["ran"]} == {
        "holds-yes", "holds-no", "params"
    }


def test_missing_path_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["verify", str(tmp_path / "nowhere")], capsys)
    assert code == ExitCode.USAGE and out == ""
    assert len(err.strip().splitlines()) == 1 and "no such file or folder" in err


def test_bad_cards_print_one_line_each(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    papers = project / "wiki" / "papers"
    (papers / "broken-a.md").write_text("---\nkind: nonsense\n---\n", encoding="utf-8")
    (papers / "broken-b.md").write_text("---\nkind: paper\n---\n", encoding="utf-8")
    code, _, err = run(["verify", str(project / "wiki")], capsys)
    assert code == ExitCode.USAGE
    lines = err.strip().splitlines()  # every error of each card, one located line each
    assert all(re.match(r".*broken-[ab]\.md:\d+:\d+: error: ", x) for x in lines)
    assert {"broken-a.md", "broken-b.md"} == {re.sub(r".*(broken-.\.md).*", r"\1", x)
                                              for x in lines}
    assert any("missing required key 'title'" in x for x in lines)
    assert any("missing required key 'year'" in x for x in lines)


@pytest.mark.parametrize("argv", [["verify", "--jobs", "0"], ["verify", "--no-such-option"],
                                  ["verify", "--budget", "huge"]])
def test_bad_options_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv, capsys)[0] == ExitCode.USAGE


def test_cached_run_and_status_import_no_torch(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wiki = str(project / "wiki")
    assert run(["verify", wiki], capsys)[0] == ExitCode.OK
    script = (
        "import sys\nfrom claimcheck.cli.main import main\n"
        f"codes = [main(['verify', {wiki!r}, '--format', 'json']), main(['status', {wiki!r}])]\n"
        "print(codes, 'torch' in sys.modules, file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, cwd=project, timeout=120, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[0, 0] False", done.stderr


def test_a_second_concurrent_run_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ResultStore(load_config(project).results)
    with store.run_lock():
        code, _, err = run(["verify", str(project / "wiki")], capsys)
    assert code == ExitCode.USAGE and "another claimcheck verify is running" in err


def test_cuda_without_a_gpu_is_unverified_not_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    code, out, _ = run(["verify", str(project / "wiki"), "--device", "cuda", "--format", "json"],
                       capsys)
    rows = rows_of(out)
    assert code == ExitCode.OK
    assert rows["params"]["reason"] == "device unavailable: torch sees no CUDA device"
    assert not rows["params"]["errored"]


def test_ci_rechecks_the_result_files_a_pull_request_changed(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--recheck-results-changed-since REF`` re-runs exactly the claims whose result files
    differ from REF, so a hand-edited measurement in a pull request is replaced by a real one,
    and exits 4 (the CI gate, :mod:`claimcheck.engine.gate`) because the two differ."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    wiki = str(project / "wiki")
    run(["verify", wiki, "--device", "cpu"], capsys)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    forged = project / ".claimcheck" / "results" / f"{ARXIV}__params.json"
    data = loads_strict(forged.read_text("utf-8"))
    real = data["measured"]
    data["measured"] = real + 1000
    forged.write_text(json.dumps(data, indent=2), encoding="utf-8")
    code, out, err = run(["verify", wiki, "--device", "cpu", "--format", "json",
                          "--recheck-results-changed-since", "HEAD"], capsys)
    assert code == ExitCode.GATE, err
    assert f"gate: FAILED: {ARXIV}/params: committed measured {real + 1000}, re-made {real}" in err
    assert {k for k, row in rows_of(out).items() if row["ran"]} == {"params"}
    assert loads_strict(forged.read_text("utf-8"))["measured"] == real
    code, out, err = run(["verify", wiki, "--device", "cpu", "--format", "json",
                          "--recheck-results-changed-since", "HEAD"], capsys)
    assert code == ExitCode.OK, err  # an honest re-made file passes the gate
    code, _, err = run(["verify", wiki, "--recheck-results-changed-since", "no-such-ref"], capsys)
    assert code == ExitCode.USAGE and "--recheck-results-changed-since" in err


def test_status_prints_plain_rows_off_a_terminal(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(["verify", str(project / "wiki"), "--device", "cpu"], capsys)
    _, out, _ = run(["status", str(project / "wiki")], capsys)
    lines = out.strip().splitlines()
    assert "┃" not in out and "│" not in out
    assert lines[0].startswith(f"{ARXIV}/holds-yes  unstated  verified  measured true  "
                               "expected the property to hold  wiki/papers/paper-0.md:")
    assert "4 claim(s): 2 verified, 1 contradicted, 1 unverified; 0 stale, 0 errored" in lines


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_each_check_runs_on_one_torch_thread_whatever_the_jobs(
    make_project: ProjectFactory, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    root = make_project({ARXIV: [claim("threads", "tinymodels.checks:torch_threads",
                                       {"equals": 1})]})
    code, out, _ = run(["verify", str(root / "wiki"), "--jobs", jobs, "--format", "json",
                        "--device", "cpu"], capsys)
    rows = loads_strict(out)
    assert code == ExitCode.OK
    assert (rows[0]["measured"], rows[0]["verdict"]) == (1, "verified")
