"""Fresh red-team cases, second round: the CI gate, refused sources, output safety and paths
(docs/reliability.md). Every test asserts the SAFE behaviour, so a failing test names a hole.

Each case builds a throw-away project under ``tmp_path`` (the helpers of
:mod:`tests.hardening.test_fresh_attacks`) and drives claimcheck in-process (``cli``), or in a
child process where the process itself matters.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from tests.hardening.hostile_project import claim, cli
from tests.hardening.test_fresh_attacks import (
    HOLDS_FALSE,
    assert_refused,
    commit_all,
    edit_result,
    forged_text_project,
    git,
    needs_git,
    outside_files,
    project,
    refused_lint,
    result_path,
    rows,
    set_config,
    status_rows,
    verify,
)

RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                          "\u2066-\u2069]")


# =============================================================================================
# 1. The CI gate: a forged committed result must fail `verify --recheck-results-changed-since`
# =============================================================================================

HOLDS_TRUE = claim("t", "tinymodels.checks:holds", {"holds": True}, args={"value": True},
                   basis="wiki")


def gate_base(tmp_path: Path, config: str = "", store: str = ".claimcheck") -> tuple[Path, str]:
    """A git project whose honest results (h contradicted, t verified) are committed as the
    base; returns the root and the base commit."""
    root = project(tmp_path, [HOLDS_FALSE, HOLDS_TRUE], config)
    git(root, "init", "-q")
    done = verify(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert result_path(root, "h", store).is_file()
    return root, commit_all(root, "base")


def forge_h(root: Path, store: str = ".claimcheck") -> None:
    """h's result rewritten to say what its card expects: verified, measured true (consistent,
    so only a re-make can tell)."""
    edit_result(result_path(root, "h", store), verdict="verified", measured=True,
                reason="measured true")


def gate(root: Path, base: str) -> Any:
    done = verify(root, "--format", "json", "--recheck-results-changed-since", base)
    return done


@needs_git
def test_gate_baseline_forged_result_fails(tmp_path: Path) -> None:
    root, base = gate_base(tmp_path)
    forge_h(root)
    commit_all(root, "forge")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_result_renamed_onto_another_claims_stem(tmp_path: Path) -> None:
    """t's honest verified file moved over h's (git mv), so h's file is a real, signed-looking
    result of another claim."""
    root, base = gate_base(tmp_path)
    h, t = result_path(root, "h"), result_path(root, "t")
    h.unlink()
    git(root, "mv", str(t.relative_to(root)), str(h.relative_to(root)))
    commit_all(root, "rename")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "not a readable result of this claim" in done.stderr, done.stderr
    assert status_rows(root)["h"]["verdict"] != "verified"


@needs_git
def test_gate_forged_result_under_an_upper_case_results_folder(tmp_path: Path) -> None:
    """`.claimcheck/RESULTS/<stem>.json` (one folder with results/ on macOS/Windows): never read
    on this system, or re-checked."""
    root, base = gate_base(tmp_path)
    upper = root / ".claimcheck" / "RESULTS"
    upper.mkdir()
    (upper / result_path(root, "h").name).write_text(result_path(root, "h").read_text("utf-8"))
    forged = upper / result_path(root, "h").name
    edit_result(forged, verdict="verified", measured=True, reason="measured true")
    commit_all(root, "upper")
    done = gate(root, base)
    assert "Traceback" not in done.stderr
    assert status_rows(root)["h"]["verdict"] != "verified"
    assert rows(done.stdout)["h"]["verdict"] != "verified"


@pytest.mark.parametrize("spelling", ["./.claimcheck/", ".claimcheck//", "wiki/../.claimcheck",
                                      "./wiki/./../.claimcheck/."])
@needs_git
def test_gate_store_configured_with_odd_segments(tmp_path: Path, spelling: str) -> None:
    root, base = gate_base(tmp_path)
    set_config(root, "results", json.dumps(spelling))
    forge_h(root)
    commit_all(root, "forge, store spelt oddly")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_store_moved_to_a_case_variant_folder_with_a_forged_result(tmp_path: Path) -> None:
    root, base = gate_base(tmp_path)
    git(root, "mv", ".claimcheck", ".ClaimCheck")
    set_config(root, "results", '".ClaimCheck"')
    forge_h(root, ".ClaimCheck")
    commit_all(root, "move the store")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_result_symlinked_to_a_forged_file_elsewhere(tmp_path: Path) -> None:
    root, base = gate_base(tmp_path)
    h = result_path(root, "h")
    forged = root / "docs" / "h.json"
    forged.parent.mkdir()
    forged.write_text(h.read_text("utf-8"), encoding="utf-8")
    edit_result(forged, verdict="verified", measured=True, reason="measured true")
    h.unlink()
    h.symlink_to(os.path.relpath(forged, h.parent))
    commit_all(root, "link")
    done = gate(root, base)
    assert "Traceback" not in done.stderr
    assert rows(done.stdout)["h"]["verdict"] != "verified"
    assert status_rows(root)["h"]["verdict"] != "verified"


@pytest.mark.parametrize("attributes", [
    ".claimcheck/** -diff binary export-ignore\n",
    ".claimcheck/** filter=hide diff=hide merge=ours\n*.json -text linguist-generated\n",
    "* -diff\n.claimcheck/results/*.json ident\n",
])
@needs_git
def test_gate_gitattributes_on_the_store(tmp_path: Path, attributes: str) -> None:
    root, base = gate_base(tmp_path)
    (root / ".gitattributes").write_text(attributes, encoding="utf-8")
    forge_h(root)
    commit_all(root, "attributes and a forged result")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_local_git_config_quotepath_noprefix_and_friends(tmp_path: Path) -> None:
    root, base = gate_base(tmp_path)
    for key, value in [("core.quotepath", "true"), ("diff.noprefix", "true"),
                       ("diff.mnemonicPrefix", "true"), ("diff.relative", "true"),
                       ("diff.renames", "copies"), ("diff.ignoreSubmodules", "all"),
                       ("core.ignoreCase", "true"), ("diff.external", "false"),
                       ("status.showUntrackedFiles", "no")]:
        git(root, "config", key, value)
    forge_h(root)
    commit_all(root, "forge under odd config")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_forged_result_uncommitted_and_staged_only(tmp_path: Path) -> None:
    """The forge staged but not committed, then the worktree file restored to the honest one:
    what CI reads is the worktree, which is honest; and the reverse (worktree forged, index
    honest) must be re-checked."""
    root, base = gate_base(tmp_path)
    forge_h(root)  # worktree forged, index honest: unstaged change
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_forged_training_budget_with_card_made_train_tier(tmp_path: Path) -> None:
    """The card declares its custom check `tier: train` and the forged file says budget full:
    CI does not re-make it, so every view the gate publishes must show it unverified."""
    root, base = gate_base(tmp_path)
    card = root / "wiki" / "papers" / "paper-0.md"
    text = card.read_text("utf-8")
    text = text.replace("check: tinymodels.checks:holds\n  args:\n    value: false\n",
                        "check: tinymodels.checks:holds\n  tier: train\n  args:\n"
                        "    value: false\n", 1)
    card.write_text(text, encoding="utf-8")
    forge_h(root)
    edit_result(result_path(root, "h"), tier="train", budget="full")
    commit_all(root, "forge at budget full")
    done = gate(root, base)
    assert "Traceback" not in done.stderr
    shown = rows(done.stdout) if done.stdout.strip().startswith("[") else {}
    assert done.returncode != 0 or shown.get("h", {}).get("verdict") != "verified", \
        done.stdout[-2000:] + done.stderr[-2000:]


@needs_git
def test_gate_forged_last_attempt_cannot_excuse_a_remakeable_result(tmp_path: Path) -> None:
    """A forged file that also claims CI once failed to re-make it (last_attempt measured
    nothing): CI can re-make it, so the gate still fails."""
    root, base = gate_base(tmp_path)
    forge_h(root)
    edit_result(result_path(root, "h"), last_attempt={
        "measured": None, "reason": "weights not available", "budget": "smoke",
        "timestamp": "2026-01-01T00:00:00Z"})
    commit_all(root, "forge with an excuse")
    done = gate(root, base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.mark.parametrize("store", [".claimcheck", "./.claimcheck/"])
@needs_git
def test_gate_forged_power_file_turning_a_missed_variant_into_a_caught_one(
        tmp_path: Path, store: str) -> None:
    """`says` never reads the state `flip` changes, so `flip` is honestly missed; the pull
    request's power file says it was caught (contradicted, measured 2)."""
    root = project(tmp_path, [claim("p", "tinymodels.hostile:says", {"equals": "plain text"},
                                    basis="implementation", catches=["flip"])])
    set_config(root, "results", json.dumps(store))
    git(root, "init", "-q")
    power = ["--power", "--power-scope", "listed"]
    assert verify(root, *power).returncode in (0, 1)
    base = commit_all(root, "base")
    path = root / ".claimcheck" / "power" / result_path(root, "p").name
    data = json.loads(path.read_text("utf-8"))
    assert data["variants"]["flip"]["verdict"] == "verified", data
    data["variants"]["flip"].update(verdict="contradicted", measured="flipped",
                                    reason="measured 'flipped', expected 'plain text'")
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    commit_all(root, "forge power")
    done = verify(root, *power, "--recheck-results-changed-since", base)
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]


# =============================================================================================
# 2. Refused sources, however spelt; and no false positives on ordinary text
# =============================================================================================

SPELLINGS = {
    # a combining mark that composes with nothing, drawn over the o
    "combining-low-line": "https://mirro\u0332r.invalid/evil-team/copies",
    # o + combining dot above (composes to U+022F)
    "combining-dot-above": "https://mirro\u0307r.invalid/evil-team/copies",
    # two stacked marks on one letter
    "stacked-marks": "https://mirro\u0323\u0307r.invalid/evil-team/copies",
    # Turkish capital I with dot, whose case folding is two characters
    "turkish-dotted-capital": "HTTPS://M\u0130RROR.INVALID/EVIL-TEAM/COPIES",
    # Cyrillic i and Greek omicron in one host
    "mixed-scripts": "https://m\u0456rr\u03bfr.invalid/evil-team/copies",
    "math-monospace": "https://\U0001d696\U0001d692\U0001d69b\U0001d69b\U0001d698\U0001d69b"
                      ".invalid/evil-team/copies",
    "circled": "https://\u24dc\u24d8\u24e1\u24e1\u24de\u24e1.invalid/evil-team/copies",
    "superscripts": "https://\u1d50\u2071\u02b3\u02b3\u1d52\u02b3.invalid/evil-team/copies",
    "small-full-stop": "https://mirror\ufe52invalid/evil-team/copies",
    "one-dot-leader": "https://mirror\u2024invalid/evil-team/copies",
    "percent-utf8-cyrillic-o": "https://mirr%D0%BEr.invalid/evil-team/copies",
    "userinfo": "https://red:team@mirror.invalid/evil-team/copies",
    # a backslash for a slash (browsers read it so) right before an `e`: `\\e` is also YAML's
    # escape of ESC
    "backslash-before-e": "https://mirror.invalid\\evil-team\\copies",
    "dot-dot-segment": "https://mirror.invalid/evil-team/drafts/../copies",
    "encoded-dot-dot-segment": "https://mirror.invalid/x/%2E%2E/evil-team/copies",
    "empty-port": "https://mirror.invalid:/evil-team/copies",
}


@pytest.mark.parametrize("case", sorted(SPELLINGS))
def test_refused_source_spelt_freshly(tmp_path: Path, case: str) -> None:
    assert_refused(refused_lint(tmp_path, body=f"Read from <{SPELLINGS[case]}>."))


NEAR_MISSES = {
    "german": ("Die Größenänderungen über alle Maßstäbe hinweg prüfen wir gründlich, ähnlich "
               "wie in <https://example.org/evil-team/notes> beschrieben."),
    "chinese": ("这篇论文的实验结果由作者在其公开代码仓库中给出"
                "我们使用相同的超参数重新运行了全部实验"
                "并得到了一致的结论 参见 <https://example.org/notes>"),
    "russian": ("Эксперименты воспроизводятся полностью при использовании опубликованного "
                "кода авторов и тех же гиперпараметров: <https://example.org/notes>"),
}


@pytest.mark.parametrize("case", ["german", "chinese", "russian"])
def test_no_refused_source_reported_for_ordinary_non_ascii_text(tmp_path: Path,
                                                                 case: str) -> None:
    output = refused_lint(tmp_path, body=NEAR_MISSES[case])
    assert "refused source" not in output, output


def test_no_refused_source_reported_for_a_non_ascii_summary(tmp_path: Path) -> None:
    summary = ("summary: 本研究では公開されたコードと同一のハイパーパラメータを用いて全ての実験を"
               "再現し著者らの報告と一致する結果を得た\n")
    output = refused_lint(tmp_path, front=summary)
    assert "refused source" not in output, output


# =============================================================================================
# 3. Output safety
# =============================================================================================

BREAKOUT = "a``b`|c\n| fake | row |\n```\n<script>alert(1)</script>\x1b[2J"


def test_markdown_report_cell_holds_backticks_pipes_and_line_breaks(tmp_path: Path) -> None:
    root = forged_text_project(tmp_path, BREAKOUT)
    done = cli(root, "report", "wiki", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert not RAW_CONTROLS.findall(text), RAW_CONTROLS.findall(text)
    for line in text.splitlines():
        assert not line.startswith("| fake | row |"), line
    assert "<script>alert(1)</script>" not in text
    table = [line for line in text.splitlines() if line.startswith("|")]
    header = next(i for i, line in enumerate(table) if line.startswith("| claim |"))
    cells = len(re.findall(r"(?<!\\)\|", table[header]))
    for line in table[header:header + 3]:
        assert len(re.findall(r"(?<!\\)\|", line)) == cells, line


def test_html_report_escapes_markup_from_a_stored_result(tmp_path: Path) -> None:
    root = forged_text_project(tmp_path, BREAKOUT)
    done = cli(root, "report", "wiki", "--format", "html")
    assert done.returncode == 0, done.stderr
    assert "<script>alert(1)</script>" not in done.stdout
    assert "\x1b" not in done.stdout


def test_junit_parses_with_cdata_end_and_xml_invalid_characters(tmp_path: Path) -> None:
    root = forged_text_project(tmp_path, "]]><x/>\x0c\x00\ufffe\U0010ffff & \x1b[0m")
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "junit")
    assert "Traceback" not in done.stderr, done.stderr
    ElementTree.fromstring(done.stdout.encode("utf-8"))


def test_github_format_never_starts_a_command_from_stored_text(tmp_path: Path) -> None:
    text = "x\r::add-mask::secret\n::stop-commands::tok%0A::error::owned\u2028::warning::w"
    root = forged_text_project(tmp_path, text)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "github")
    assert "Traceback" not in done.stderr, done.stderr
    for line in (done.stdout + done.stderr).splitlines():
        assert not line.lstrip().startswith(("::add-mask::", "::stop-commands::")), line
        assert "\r" not in line
    assert not RAW_CONTROLS.findall(done.stdout)


def test_lone_surrogate_in_a_stored_result_does_not_break_status(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("s", "tinymodels.hostile:says", {"equals": "plain text"},
                                    basis="wiki")])
    assert verify(root).returncode == 0
    path = result_path(root, "s")
    raw = path.read_text("utf-8").replace('"plain details"', '"bad \\udc80 \\ud800 tail"')
    path.write_text(raw, encoding="utf-8")
    for args in (("status", "wiki", "--verbose"), ("report", "wiki", "--format", "markdown"),
                 ("verify", "wiki", "--device", "cpu", "--format", "junit")):
        done = cli(root, *args, child=True, timeout=120)
        assert "Traceback" not in done.stderr, (args, done.stderr[-2000:])
        assert done.returncode in (0, 1), (args, done.returncode, done.stderr[-2000:])


def test_lint_message_quoting_an_escaped_control_in_a_check_name(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")])
    card = root / "wiki" / "papers" / "paper-0.md"
    text = card.read_text("utf-8").replace("check: tinymodels.checks:holds",
                                           'check: "pa\\e]8;;https://evil.invalid\\arms\\x9b2J"')
    card.write_text(text, encoding="utf-8")
    done = cli(root, "lint", "wiki")
    shown = done.stdout + done.stderr
    assert "Traceback" not in shown
    assert done.returncode != 0
    assert not RAW_CONTROLS.findall(shown), RAW_CONTROLS.findall(shown)


# =============================================================================================
# 4. Paths: writers and loaders stay inside the project
# =============================================================================================


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.txt").write_text("operator's", encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", [("report", "wiki", "--format", "markdown"), ("schema",)])
def test_output_through_a_logical_alias_of_the_project_into_a_linked_folder(
        tmp_path: Path, outside: Path, command: tuple[str, ...]) -> None:
    """The operator's shell shows the project through a link (`~/work -> /data/work`, so $PWD
    is the logical path); the pull request committed `docs -> outside`. `-o $PWD/docs/out.md`
    must not write through the committed link."""
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")])
    (root / "docs").symlink_to(outside)
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    done = cli(root, *command, "-o", str(alias / "docs" / "out.md"))
    assert "Traceback" not in done.stderr, done.stderr
    assert outside_files(outside) == ["keep.txt"], done.stdout + done.stderr
    assert (outside / "keep.txt").read_text("utf-8") == "operator's"


def test_import_root_linked_out_of_the_project_never_runs(tmp_path: Path, outside: Path) -> None:
    package = outside / "evilpkg"
    package.mkdir()
    bait = outside / "RAN"
    (package / "__init__.py").write_text(
        f"from pathlib import Path\nPath({str(bait)!r}).write_text('ran')\n"
        "from claimcheck import claim_check\nfrom claimcheck.checks.api import Evidence\n\n"
        "@claim_check\ndef holds(ctx):\n    return Evidence(measured=True)\n", encoding="utf-8")
    root = project(tmp_path, [claim("e", "evilpkg:holds", {"holds": True}, basis="wiki")])
    (root / "evilpkg").symlink_to(package)
    set_config(root, "import_roots", '["tinymodels", "evilpkg"]')
    for args in (("lint", "wiki"), ("verify", "wiki", "--device", "cpu", "--jobs", "1")):
        done = cli(root, *args)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode != 0, (args, done.stdout, done.stderr)
    assert not bait.exists()


def test_data_root_under_a_linked_parent_is_never_used(tmp_path: Path, outside: Path) -> None:
    (outside / "sub" / "cifar").mkdir(parents=True)
    root = project(tmp_path, [claim("d", "tinymodels.checks:holds", {"holds": True},
                                    args={"value": True, "data_folder": "data/sub/cifar"},
                                    basis="wiki")])
    (root / "data").symlink_to(outside)
    set_config(root, "data_roots", '["data/sub"]')
    done = cli(root, "lint", "wiki")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode != 0, done.stdout + done.stderr


@pytest.mark.parametrize("key,value", [
    ("results", '".claimcheck/../../stolen"'),
    ("wiki", '"./wiki/./../../outside"'),
    ("data_roots", '["data/../../outside"]'),
    ("import_roots", '["tinymodels/../../outside"]'),
])
def test_configured_folder_escaping_through_dot_dot(tmp_path: Path, outside: Path,
                                                   key: str, value: str) -> None:
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")])
    set_config(root, key, value)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode != 0, done.stdout + done.stderr
    assert outside_files(outside) == ["keep.txt"]
    assert not (tmp_path / "stolen").exists()


@pytest.mark.parametrize("slug", ["../../escape", "/tmp/claimcheck-redteam-abs", "a/../../b",
                                  "..\\..\\escape"])
def test_new_card_slug_never_leaves_the_wiki(tmp_path: Path, slug: str) -> None:
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")])
    before = {p for p in tmp_path.rglob("*") if p.suffix == ".md"}
    done = cli(root, "new", "concept", slug)
    assert "Traceback" not in done.stderr, done.stderr
    after = {p for p in tmp_path.rglob("*") if p.suffix == ".md"}
    for path in after - before:
        assert (root / "wiki") in path.parents, path
    assert not Path("/tmp/claimcheck-redteam-abs.md").exists()
