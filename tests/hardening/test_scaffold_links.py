"""``claimcheck new`` and ``claimcheck init`` never write through a committed link.

A pull request can commit ``wiki/concepts`` (or ``wiki`` itself, or ``.ci``) as a symbolic link
to a folder outside the project; the next contributor's ``claimcheck new`` or ``init`` in that
checkout must refuse, and nothing may appear in the linked folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.cli.main import main
from claimcheck.core.exitcodes import ExitCode


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("linked", ["wiki", "wiki/concepts", "wiki/papers"])
def test_new_refuses_a_card_folder_linked_out_of_the_project(
    project: Path, linked: str, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = project.parent / "outside"
    (project / linked).parent.mkdir(parents=True, exist_ok=True)
    (project / linked).symlink_to(outside, target_is_directory=True)
    kind = ["paper", "--arxiv", "2101.12491", "--title", "One"] if linked.endswith("papers") \
        else ["concept", "idea"]
    assert main(["new", *kind]) == ExitCode.USAGE
    assert "never through a symbolic link" in capsys.readouterr().err
    assert list(outside.rglob("*")) == []


def test_new_refuses_a_dangling_link_where_the_card_goes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = project.parent / "outside" / "planted.md"
    (project / "wiki" / "concepts").mkdir(parents=True)
    (project / "wiki" / "concepts" / "idea.md").symlink_to(outside)
    assert main(["new", "concept", "idea"]) == ExitCode.USAGE
    capsys.readouterr()
    assert not outside.exists()


@pytest.mark.parametrize("linked", ["wiki", ".ci", "wiki/concepts"])
def test_init_refuses_a_folder_linked_out_of_the_project(
    tmp_path: Path, linked: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, outside = tmp_path / "clone", tmp_path / "outside"
    outside.mkdir()
    (folder / linked).parent.mkdir(parents=True, exist_ok=True)
    (folder / linked).symlink_to(outside, target_is_directory=True)
    assert main(["init", str(folder)]) == ExitCode.USAGE
    assert "a symbolic link where a folder belongs" in capsys.readouterr().err
    assert list(outside.rglob("*")) == []
