"""Sources a pull request controls decide nothing (issue 33 item 3).

* A refused source is matched after YAML escapes, URL encoding, HTML entities, compatibility
  forms and case are undone, and when a YAML value folds it over several lines.
* ``[tool.claimcheck] sources`` must lie inside the project or the user's cache folder:
  ``sources = "../.."`` made ``papers fetch`` write outside the project.
* A source cache inside the project can be committed: there only a source whose sha256 the card
  pins (and whose bytes hash to it) is used.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.cards.frontmatter import SourceKind
from claimcheck.cards.wiki import load_wiki
from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.core.errors import ConfigError
from claimcheck.sources.cache import SourceCache
from tests.engine.conftest import PYPROJECT, claim, paper_card, write_project

ARXIV = "2101.00017"
REFUSED = "https://copies.example/paper.pdf"
SPELLINGS = {
    "as written": REFUSED,
    "upper case": REFUSED.upper(),
    "yaml hex escapes": '"https:\\x2F\\x2Fcopies.example\\x2Fpaper.pdf"',
    "yaml unicode escapes": '"https:\\u002F\\u002Fcopies.example/paper.pdf"',
    "yaml escaped slash": '"https:\\/\\/copies.example\\/paper.pdf"',
    "url encoded": "https%3A%2F%2Fcopies.example%2Fpaper.pdf",
    "url encoded twice": "https%253A%252F%252Fcopies.example%252Fpaper.pdf",
    "html entities": "https:&#47;&#x2F;copies&period;example/paper&period;pdf",
    "fullwidth": "ｈｔｔｐｓ://copies.example/paper.pdf",
    "folded": '"https://copies.\\\n  example/paper.pdf"',
}


def _project(tmp_path: Path, note: str, extra: str = "") -> Path:
    root = write_project(tmp_path / "project", {ARXIV: [
        claim("c1", "tinymodels.checks:holds", {"holds": True})]})
    (root / "pyproject.toml").write_text(
        PYPROJECT + f'refused_sources = ["{REFUSED}"]\n' + extra, encoding="utf-8")
    card = root / "wiki" / "papers" / "paper-0.md"
    text = paper_card(ARXIV, "paper-0", [claim("c1", "tinymodels.checks:holds",
                                              {"holds": True})])
    card.write_text(text + f"\nRead from {note}\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("spelling", list(SPELLINGS.values()), ids=list(SPELLINGS))
def test_a_refused_source_is_refused_however_it_is_spelt(
    tmp_path: Path, spelling: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = _project(tmp_path, spelling)
    monkeypatch.chdir(root)
    assert main(["lint", "wiki"]) == 1
    assert "is a refused source" in capsys.readouterr().out


def test_an_innocent_source_is_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, "https://copies.example/another.pdf")
    monkeypatch.chdir(root)
    main(["lint", "wiki"])
    assert "is a refused source" not in capsys.readouterr().out


@pytest.mark.parametrize("configured", ["../..", "..", "/tmp/elsewhere", "wiki/../../out"])
def test_the_source_cache_cannot_be_configured_outside(
    tmp_path: Path, configured: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("CLAIMCHECK_SOURCES", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    root = _project(tmp_path, "nothing", f'sources = "{configured}"\n')
    with pytest.raises(ConfigError, match="lies outside the project and the user's cache"):
        load_config(root)
    monkeypatch.chdir(root)
    before = sorted(path.name for path in tmp_path.iterdir())
    assert main(["papers", "fetch"]) == 2
    assert "lies outside the project" in capsys.readouterr().err
    assert sorted(path.name for path in tmp_path.iterdir()) == before


def test_the_user_cache_folder_may_hold_the_source_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    root = _project(tmp_path, "nothing", f'sources = "{tmp_path / "user-cache" / "s"}"\n')
    load_config(root)


def test_a_committed_cache_decides_only_what_the_card_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAIMCHECK_SOURCES", raising=False)
    root = _project(tmp_path, "nothing", 'sources = "source-cache"\n')
    committed = SourceCache.for_config(load_config(root))
    assert committed.committable
    committed.store(ARXIV, 1, SourceKind.LATEX, "https://arxiv.org/e-print/x", b"\\section{A}")
    card = next(loaded.card for loaded in load_wiki(load_config(root)).cards)
    assert committed.lookup(card) is None  # unpinned: the committed record decides nothing
    outside = SourceCache(tmp_path / "operator-cache")
    outside.store(ARXIV, 1, SourceKind.LATEX, "https://arxiv.org/e-print/x", b"\\section{A}")
    assert outside.lookup(card) is not None  # the operator's own cache still serves it


@pytest.mark.parametrize(("variable", "value"), [
    ("XDG_CACHE_HOME", ".cache"), ("CLAIMCHECK_SOURCES", ".cache/claimcheck/sources"),
    ("CLAIMCHECK_SOURCES", "./wiki/../.cache/claimcheck/sources")])
def test_a_relative_cache_folder_inside_the_project_is_committable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    """A relative ``$XDG_CACHE_HOME`` or ``$CLAIMCHECK_SOURCES`` is taken from the working
    folder: run from the project, it names a folder a pull request can commit (rt33 S40)."""
    monkeypatch.delenv("CLAIMCHECK_SOURCES", raising=False)
    root = _project(tmp_path, "nothing")
    SourceCache(root / ".cache/claimcheck/sources", root).store(
        ARXIV, 1, SourceKind.LATEX, "https://arxiv.org/e-print/x", b"\\section{A} forged")
    monkeypatch.chdir(root)
    monkeypatch.setenv(variable, value)
    cache = SourceCache.for_config(load_config(root))
    card = next(loaded.card for loaded in load_wiki(load_config(root)).cards)
    assert cache.folder.is_absolute() and cache.committable
    assert cache.lookup(card) is None
