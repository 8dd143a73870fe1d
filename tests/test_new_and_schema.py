"""``claimcheck new`` writes cards that pass lint; ``claimcheck schema`` validates every card."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from claimcheck.authoring.schema import card_json_schema
from claimcheck.cards.wiki import card_files, is_card
from claimcheck.cards.yamlsource import load_yaml
from claimcheck.cli.main import main
from claimcheck.core.config import load_config

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_new_concept_passes_lint(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "concept", "routing-by-agreement"]) == 0
    assert capsys.readouterr().out.strip() == "wiki/concepts/routing-by-agreement.md"
    assert main(["lint", "wiki"]) == 0
    out = capsys.readouterr().out  # no error; its template text is pointed out (issue 35)
    assert ": error:" not in out
    assert [line.split(": warning: ")[1] for line in out.splitlines()] == [
        "placeholder left by `claimcheck new`: One paragraph that says what Routing by agreement "
        "is and why it matters.", "placeholder left by `claimcheck new`: Explain the idea here. "
        "End each sentence that a paper backs with a citation: in…"]


def test_new_paper_passes_lint(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["new", "paper", "--arxiv", "2002.04764", "--title",
            'Capsules with "Inverted" Dot-Product Attention Routing', "--authors", "A, B"]
    assert main(args) == 0
    path = project / capsys.readouterr().out.strip()
    assert path.name == "capsules-with-inverted-dot-product-attention-routing.md"
    assert main(["lint", "wiki"]) == 0
    text = path.read_text()
    assert 'arxiv: "2002.04764"' in text and "year: 2020" in text


def test_new_refuses_to_overwrite(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "concept", "idea"]) == 0
    before = (project / "wiki/concepts/idea.md").read_text()
    assert main(["new", "concept", "idea"]) == 2
    assert "already exists; not overwriting it" in capsys.readouterr().err
    assert (project / "wiki/concepts/idea.md").read_text() == before


def test_new_refuses_a_second_card_for_a_paper(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "paper", "--arxiv", "2101.12491", "--title", "One"]) == 0
    assert main(["new", "paper", "--arxiv", "2101.12491", "--title", "Two"]) == 2
    assert "already has a card" in capsys.readouterr().err


def test_new_paper_rejects_a_bad_id(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "paper", "--arxiv", "21x.1"]) == 2
    assert "--arxiv needs an arXiv id" in capsys.readouterr().err


def _as_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _front_matter(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    yaml_text = text.split("\n---", 1)[0].removeprefix("---\n")
    return _as_json(load_yaml(yaml_text)[0])


def test_schema_command_prints_the_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    expected = card_json_schema(load_config(None))
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(expected))


def test_every_wiki_card_validates_against_the_schema() -> None:
    validator = jsonschema.Draft202012Validator(card_json_schema(load_config(ROOT)))
    cards = [p for p in card_files(ROOT / "wiki") if is_card(p)]
    assert cards, "the wiki has no cards"
    for path in cards:
        errors = [e.message for e in validator.iter_errors(_front_matter(path))]
        assert errors == [], f"{path}: {errors}"


def test_schema_rejects_what_the_models_reject() -> None:
    validator = jsonschema.Draft202012Validator(card_json_schema())
    bad = {"kind": "concept", "slug": "x", "title": "T", "updated_at": "2026-11-29",
           "unknown": 1}
    assert not validator.is_valid(bad)
    assert validator.is_valid({k: v for k, v in bad.items() if k != "unknown"})
