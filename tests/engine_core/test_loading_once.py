"""Loading a wiki reads each file once and parses each front matter once (issue 12 §6: lint of
1,000 cards used to open every card twice and run the YAML parser over it twice)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from claimcheck.cards import yamlsource
from claimcheck.cards.wiki import load_wiki
from claimcheck.core.config import load_config

CONCEPT = (
    "---\nkind: concept\nslug: {slug}\ntitle: T\nsummary: S.\nstatus: draft\n"
    "updated_at: 2026-12-01\n---\nBody.\n"
)


def _wiki(root: Path) -> Path:
    (root / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n', encoding="utf-8")
    wiki = root / "wiki"
    (wiki / "sub").mkdir(parents=True)
    for slug in ("a", "b"):
        (wiki / f"{slug}.md").write_text(CONCEPT.format(slug=slug), encoding="utf-8")
    (wiki / "sub" / "c.md").write_text(CONCEPT.format(slug="c"), encoding="utf-8")
    (wiki / "index.md").write_text("# A plain page\n", encoding="utf-8")
    return wiki


def test_each_file_is_opened_once_and_its_front_matter_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _wiki(tmp_path)
    config = load_config(tmp_path)
    opened: list[str] = []
    real_open = Path.open

    def counting_open(self: Path, *args: object, **kwargs: object) -> object:
        opened.append(self.name)
        return real_open(self, *args, **kwargs)  # type: ignore[call-overload]

    parsers: list[str] = []
    real_loader = yamlsource._Loader

    class CountingLoader(real_loader):  # type: ignore[misc, valid-type]
        def __init__(self, stream: str) -> None:
            parsers.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(Path, "open", counting_open)
    monkeypatch.setattr(yamlsource, "_Loader", CountingLoader)
    wiki = load_wiki(config)
    assert sorted(card.card.slug for card in wiki.cards) == ["a", "b", "c"]
    assert [page.display_path for page in wiki.pages] == ["wiki/index.md"]
    assert sorted(opened) == ["a.md", "b.md", "c.md", "index.md"]
    assert len(parsers) == 3


def test_an_alias_still_gets_the_event_pass_that_locates_it(tmp_path: Path) -> None:
    with pytest.raises(yamlsource.YamlProblem) as caught:
        yamlsource.load_yaml("a: &x 1\nb: *x\n", first_line=2)
    assert "aliases" in caught.value.message and caught.value.line == 3


@pytest.mark.parametrize("depth", [yamlsource.MAX_DEPTH, yamlsource.MAX_DEPTH + 1])
def test_nesting_is_bounded_without_an_event_pass(depth: int) -> None:
    text = "a: " + "[" * (depth - 1) + "]" * (depth - 1) + "\n"
    if depth <= yamlsource.MAX_DEPTH:
        yamlsource.load_yaml(text)
    else:
        with pytest.raises(yamlsource.YamlProblem, match="nested deeper"):
            yamlsource.load_yaml(text)


def test_walk_lists_cards_and_refuses_a_fifo_without_reading_it(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    os.mkfifo(wiki / "pipe.md")
    (wiki / "_draft.md").write_text(CONCEPT.format(slug="d"), encoding="utf-8")
    loaded = load_wiki(load_config(tmp_path))
    assert sorted(card.card.slug for card in loaded.cards) == ["a", "b", "c"]
    assert [(e.path, "not a regular file" in e.message) for e in loaded.load_errors] == [
        ("wiki/pipe.md", True)
    ]


def test_libyaml_bounds_the_composer_here() -> None:
    """The one-pass path relies on libyaml refusing deep nesting while composing."""
    if not yamlsource._BOUNDED_COMPOSER:
        pytest.skip("no libyaml 0.2.5 or later: every text gets the event pass")
    with pytest.raises(yaml.YAMLError):
        yaml.CSafeLoader("a: " + "[" * 5000 + "]" * 5000).get_single_node()
