"""The authoring guide (``wiki/authoring.md``, issue 35 item 4) is tested: every fenced example
on the page runs. Each file block (``<!-- file: PATH -->`` before its fence) is written into a
new project, which must lint clean under ``--strict``, verify with no errored claim (its train
claim verified), and catch its listed wrong variant; each ``bash`` block's commands run."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from claimcheck.cli.main import main
from claimcheck.core.exitcodes import ExitCode

GUIDE = Path(__file__).resolve().parents[2] / "wiki" / "authoring.md"
README = GUIDE.parents[1] / "README.md"
FENCE = re.compile(r"(?:<!-- file: (?P<path>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)\n```\n",
                   re.DOTALL)


def _blocks() -> list[re.Match[str]]:
    return list(FENCE.finditer(GUIDE.read_text(encoding="utf-8")))


def test_every_fenced_example_is_a_file_of_the_example_wiki_or_commands() -> None:
    blocks = _blocks()
    assert GUIDE.read_text(encoding="utf-8").count("```") == 2 * len(blocks)
    assert all(block["path"] or block["lang"] == "bash" for block in blocks)
    paths = [block["path"] for block in blocks if block["path"]]
    assert len(paths) == len(set(paths)) >= 9


@pytest.fixture(scope="module")
def guide_wiki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("guide") / "em-wiki"
    for block in _blocks():
        if block["path"]:
            target = root / block["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block["body"] + "\n", encoding="utf-8")
    return root


def test_the_guides_wiki_lints_clean_under_strict(
        guide_wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(guide_wiki)
    code = main(["lint", "--strict", "wiki"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK, out
    assert ": error:" not in out and ": warning:" not in out, out


def test_the_guides_wiki_verifies_and_its_variant_is_caught(
        guide_wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(guide_wiki)
    code = main(["verify", "wiki", "--power", "--device", "cpu", "--format", "json"])
    rows = {row["claim"].rsplit("/", 1)[1]: row for row in json.loads(capsys.readouterr().out)}
    assert code == ExitCode.OK
    assert [name for name, row in rows.items() if row["errored"]] == []
    checked = {name for name, row in rows.items() if row["tier"] is not None}
    assert {rows[name]["verdict"] for name in checked} == {"verified"}, rows
    assert rows["toy-training"]["tier"] == "train"
    assert rows["iterations"]["verdict"] == "unverified"  # textual: no cached source here
    assert rows["smallnorb-error"]["verdict"] == "unverified"
    power = rows["assignments-sum-to-one"]["power"]
    assert (power["listed"], power["caught"], power["missed"]) == (1, 1, []), power


def test_the_guides_commands_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The "Start" block, as written: init, cd, lint (verify runs in test_init.py)."""
    monkeypatch.chdir(tmp_path)
    commands = [shlex.split(line) for block in _blocks() if block["lang"] == "bash"
                for line in block["body"].splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [["claimcheck", "init"], ["cd", "my-wiki"],
                                         ["claimcheck", "lint"], ["claimcheck", "verify"]]
    for command in commands[:3]:
        if command[0] == "cd":
            monkeypatch.chdir(command[1])
        else:
            assert main(command[1:]) == ExitCode.OK, capsys.readouterr()


def test_the_readme_links_the_guide() -> None:
    section = README.read_text(encoding="utf-8").split("### Start your own wiki\n", 1)[1]
    assert "wiki/authoring.md" in section.split("\n#", 1)[0]
