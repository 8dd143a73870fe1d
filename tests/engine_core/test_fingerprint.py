"""Fingerprints and staleness: exactly the claims that depend on an edited file change."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from claimcheck.cards.wiki import load_wiki
from claimcheck.store.fingerprint import Fingerprinter, canonical_json, claim_fingerprint
from claimcheck.trust.references import _INDEX_SCHEMA as INDEX_SCHEMA

if TYPE_CHECKING:
    from conftest import MiniProject

ALL = {"alpha-width", "beta-width", "alpha-params", "alpha-speed", "alpha-accuracy", "by-hand"}


def fingerprints(project: MiniProject) -> dict[str, str]:
    wiki = load_wiki(project.config)
    assert not wiki.load_errors, [e.one_line() for e in wiki.load_errors]
    prints = Fingerprinter(project.config)
    return {ref.claim.id: prints.fingerprint(ref.claim) for ref in wiki.claims()}


def changed_after(project: MiniProject, edit: str, text: str = "\n# edited\n") -> set[str]:
    before = fingerprints(project)
    project.append(edit, text)
    after = fingerprints(project)
    return {claim for claim in before if before[claim] != after[claim]}


def test_fingerprint_is_a_stable_sha256(card_project: MiniProject) -> None:
    first, second = fingerprints(card_project), fingerprints(card_project)
    assert first == second
    assert set(first) == ALL
    assert len(set(first.values())) == len(ALL)
    assert all(len(value) == 64 and int(value, 16) >= 0 for value in first.values())


@pytest.mark.parametrize(
    ("edited", "stale"),
    [
        # alpha_net is imported by the alpha check, and reached by the registry's literal names.
        ("models/alpha_net.py", {"alpha-width", "alpha-params", "alpha-speed", "alpha-accuracy"}),
        ("models/beta_net.py", {"beta-width", "alpha-params", "alpha-accuracy"}),
        ("models/layers.py", ALL - {"by-hand"}),
        ("models/checks/beta_checks.py", {"beta-width"}),
        ("models/checks/alpha_checks.py", {"alpha-width", "alpha-speed"}),
        ("models/registry.py", {"alpha-params", "alpha-accuracy"}),
        ("models/training.py", {"alpha-accuracy"}),
        ("models/unrelated.py", set()),
        ("wiki/papers/mini-paper.md", set()),  # the body, not a claim
    ],
)
def test_editing_a_file_makes_exactly_its_dependents_stale(
    card_project: MiniProject, edited: str, stale: set[str]
) -> None:
    assert changed_after(card_project, edited) == stale


def test_editing_expect_makes_only_that_claim_stale(card_project: MiniProject) -> None:
    before = fingerprints(card_project)
    card = card_project.root / "wiki/papers/mini-paper.md"
    text = card.read_text("utf-8")
    card.write_text(text.replace("{approx: 100, rel_tol: 0.01}", "{approx: 100, rel_tol: 0.02}"))
    after = fingerprints(card_project)
    assert {claim for claim in before if before[claim] != after[claim]} == {"alpha-params"}


def test_new_import_is_followed(card_project: MiniProject) -> None:
    card_project.append("models/checks/beta_checks.py", "\nfrom models import unrelated\n")
    assert changed_after(card_project, "models/unrelated.py") == {"beta-width"}


def test_unresolvable_reference_still_has_a_fingerprint(card_project: MiniProject) -> None:
    card = card_project.root / "wiki/papers/mini-paper.md"
    card.write_text(card.read_text("utf-8").replace("alpha_checks:_helper", "gamma:factory"))
    wiki = load_wiki(card_project.config)
    speed = next(ref for ref in wiki.claims() if ref.claim.id == "alpha-speed")
    payload = Fingerprinter(card_project.config).payload(speed.claim)
    assert payload["problems"] == [
        "timing factory 'models.checks.gamma:factory' names module 'models.checks.gamma', not "
        "found under the import roots (models); looked for models/checks/gamma.py and "
        "models/checks/gamma/__init__.py; a card may name only public functions of the content "
        "package (models) marked @timing_factory"
    ]
    before = claim_fingerprint(speed, card_project.config)
    card_project.write("models/checks/gamma.py", "def factory(): ...\n")
    unmarked = claim_fingerprint(speed, card_project.config)
    assert unmarked != before
    card_project.write("models/checks/gamma.py", "@timing_factory\ndef factory(): ...\n")
    assert claim_fingerprint(speed, card_project.config) not in (before, unmarked)


def test_payload_lists_sources_by_relative_path(card_project: MiniProject) -> None:
    wiki = load_wiki(card_project.config)
    refs = {ref.claim.id: ref for ref in wiki.claims()}
    prints = Fingerprinter(card_project.config)
    alpha = prints.payload(refs["alpha-width"].claim)
    assert sorted(alpha["sources"]) == [
        "models/__init__.py", "models/alpha_net.py", "models/checks/__init__.py",
        "models/checks/alpha_checks.py", "models/layers.py",
    ]
    params = prints.payload(refs["alpha-params"].claim)["sources"]
    assert "claimcheck/checks/builtin.py" in params
    assert "claimcheck/checks/train.py" not in params
    assert "claimcheck/checks/train.py" not in prints.payload(refs["by-hand"].claim)["sources"]
    assert {"models/registry.py", "models/alpha_net.py", "models/beta_net.py"} <= set(params)
    train = prints.payload(refs["alpha-accuracy"].claim)["sources"]
    assert {"claimcheck/checks/train.py", "models/training.py"} <= set(train)
    assert "torch" not in alpha
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_tool_version_is_covered(
    card_project: MiniProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fingerprints(card_project)
    monkeypatch.setattr("claimcheck.store.fingerprint.__version__", "99.0.0")
    after = fingerprints(card_project)
    assert {claim for claim in before if before[claim] != after[claim]} == ALL


def test_torch_version_is_provenance_not_a_fingerprint_input(
    card_project: MiniProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh install that picks a newer torch must not make every stored result stale."""
    before = fingerprints(card_project)
    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "99.1.0" if name == "torch" else real(name)
    )
    assert fingerprints(card_project) == before


def test_source_cache_persists_and_notices_edits(card_project: MiniProject, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    wiki = load_wiki(card_project.config)
    cold = Fingerprinter(card_project.config, cache_dir=cache)
    first = {ref.global_id: cold.fingerprint(ref.claim) for ref in wiki.claims()}
    cold.save()
    saved = json.loads((cache / "sources.json").read_text("utf-8"))
    assert str(card_project.root / "models/alpha_net.py") in saved["files"]

    warm = Fingerprinter(card_project.config, cache_dir=cache)
    assert {ref.global_id: warm.fingerprint(ref.claim) for ref in wiki.claims()} == first
    card_project.append("models/checks/beta_checks.py", "\nfrom models import unrelated\n")
    card_project.append("models/unrelated.py", "\n# edited\n")
    again = Fingerprinter(card_project.config, cache_dir=cache)
    now = {ref.global_id: again.fingerprint(ref.claim) for ref in wiki.claims()}
    changed = {global_id.split("/")[1] for global_id in first if first[global_id] != now[global_id]}
    assert changed == {"beta-width"}


@pytest.mark.parametrize(
    "content",
    ["{broken", "[]", '{"schema": SCHEMA, "files": {"ALPHA": 3}}',
     '{"schema": SCHEMA, "files": {"ALPHA": {"stamp": "x", "imports": 5}}}',
     '{"schema": SCHEMA, "files": {"ALPHA": {"stamp": STAMP, "imports": 5}}}'],
)
def test_damaged_source_cache_is_ignored(
    card_project: MiniProject, tmp_path: Path, content: str
) -> None:
    alpha = card_project.root / "models/alpha_net.py"
    stamp = json.dumps([alpha.stat().st_mtime_ns, alpha.stat().st_size])
    content = (content.replace("ALPHA", str(alpha)).replace("STAMP", stamp)
               .replace("SCHEMA", str(INDEX_SCHEMA)))
    wiki = load_wiki(card_project.config)
    plain = Fingerprinter(card_project.config)
    expected = [plain.fingerprint(ref.claim) for ref in wiki.claims()]
    (tmp_path / "sources.json").write_text(content)
    cached = Fingerprinter(card_project.config, cache_dir=tmp_path)
    assert [cached.fingerprint(ref.claim) for ref in wiki.claims()] == expected
    cached.save()
    assert json.loads((tmp_path / "sources.json").read_text("utf-8"))["schema"] == INDEX_SCHEMA


def test_tool_sources_are_left_to_the_version(
    card_project: MiniProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stand-in for claimcheck living inside the project root, as in this repository, with the
    # legacy import root "." (the whole project): the default root, models, never reaches it.
    card_project.write("tool/__init__.py", "")
    card_project.write("tool/api.py", "class Evidence:\n    pass\n")
    card_project.append("models/checks/alpha_checks.py", "\nfrom tool.api import Evidence\n")
    wiki = load_wiki(card_project.config)
    alpha = next(ref for ref in wiki.claims() if ref.claim.id == "alpha-width")
    assert "tool/api.py" not in Fingerprinter(card_project.config).payload(alpha.claim)["sources"]
    legacy = dataclasses.replace(card_project.config, import_roots=(card_project.root,))
    project_wide = Fingerprinter(legacy)
    assert "tool/api.py" in project_wide.payload(alpha.claim)["sources"]
    tool_aware = Fingerprinter(legacy)
    tool_aware.tool_folder = card_project.root / "tool"
    assert "tool/api.py" not in tool_aware.payload(alpha.claim)["sources"]
    assert "models/alpha_net.py" in tool_aware.payload(alpha.claim)["sources"]
