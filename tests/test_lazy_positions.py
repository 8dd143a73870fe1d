"""Front-matter positions are located on demand (issue 12 §6): a clean card is composed once,
and a position asked for later points exactly where the eager map pointed."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.authoring.lint import lint_wiki
from claimcheck.cards import yamlsource
from claimcheck.cards.loader import read_text
from claimcheck.cards.wiki import load_wiki
from claimcheck.core.config import load_config

YAML = "kind: paper\nclaims:\n  - id: a\n    args: {model: m, n: 3}\n  - id: b\n"
CARD = (
    "---\nkind: concept\nslug: {slug}\ntitle: T\nsummary: S.\nstatus: draft\n"
    "updated_at: 2026-12-01\n---\nBody.\n"
)


@pytest.mark.parametrize(
    ("path", "value_at", "key_at"),
    [
        (("kind",), (2, 7), (2, 1)),
        (("claims",), (4, 3), (3, 1)),
        (("claims", 0, "id"), (4, 9), (4, 5)),
        (("claims", 0, "args", "n"), (5, 25), (5, 22)),
        (("claims", 1), (6, 5), (6, 5)),
        (("claims", 1, "missing"), (6, 5), (6, 5)),
    ],
)
def test_positions_are_file_lines_and_columns(
    path: tuple[str | int, ...], value_at: tuple[int, int], key_at: tuple[int, int]
) -> None:
    _, positions = yamlsource.load_yaml(YAML, first_line=2)
    assert positions.value(path) == value_at
    assert positions.key(path) == key_at


def test_an_empty_document_has_no_positions() -> None:
    value, positions = yamlsource.load_yaml("", first_line=2)
    assert value is None
    assert positions.values == {} and positions.value(("kind",)) == (1, 1)


def test_linting_clean_cards_composes_each_front_matter_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n', "utf-8")
    (tmp_path / "wiki").mkdir()
    for slug in ("a", "b"):
        (tmp_path / "wiki" / f"{slug}.md").write_text(CARD.format(slug=slug), "utf-8")
    composed: list[str] = []

    class CountingLoader(yamlsource._Loader):  # type: ignore[misc, valid-type]
        def __init__(self, stream: str) -> None:
            composed.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(yamlsource, "_Loader", CountingLoader)
    findings = lint_wiki(load_wiki(load_config(tmp_path)))
    assert [f.rule for f in findings] == []
    assert len(composed) == 2  # no rule asked a clean card for a position


def test_a_finding_locates_its_value(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n', "utf-8")
    (tmp_path / "wiki").mkdir()
    for name in ("a", "b"):
        (tmp_path / "wiki" / f"{name}.md").write_text(CARD.format(slug="same"), "utf-8")
    findings = lint_wiki(load_wiki(load_config(tmp_path)))
    assert [(f.path, f.line, f.col, f.rule) for f in findings] == [
        ("wiki/b.md", 3, 7, "duplicate-slug")
    ]


def test_a_card_that_grew_after_its_size_was_read_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = tmp_path / "a.md"
    card.write_text("x" * 10, "utf-8")
    stated = card.stat()
    card.write_text("x" * 5000, "utf-8")
    monkeypatch.setattr(Path, "stat", lambda self, **kwargs: stated)
    assert read_text(card, "a.md") == "x" * 5000
