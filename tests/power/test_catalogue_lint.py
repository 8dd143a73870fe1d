"""The catalogue is found with ast; lint resolves ``catches:`` names against it, with the
messages of the trust boundary and "did you mean"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claimcheck import Role, wrong_variant
from claimcheck.authoring.lint import Level, lint_wiki
from claimcheck.authoring.schema import card_json_schema
from claimcheck.cards.wiki import load_wiki
from claimcheck.checks.markers import marker_of
from claimcheck.core.config import load_config
from claimcheck.trust.variants import load_catalogue
from tests.power.conftest import power_claim, write_power_project

ARXIV = "2101.00023"


def _lint(root: Path) -> list[tuple[str, str, str]]:
    wiki = load_wiki(load_config(root))
    return [(f.level.value, f.rule, f.message) for f in lint_wiki(wiki)
            if f.rule in ("catches", "variant-catalogue", "load")]


def test_marker_sets_its_role() -> None:
    def breaks() -> None:
        """Breaks something."""

    assert marker_of(wrong_variant(breaks)) == Role.WRONG_VARIANT.value == "wrong_variant"


def test_catalogue_lists_marked_public_functions_of_every_module(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", [])]})
    catalogue = load_catalogue(load_config(root))
    assert sorted(catalogue.variants) == [
        "broken-variant", "negative-factor", "no-factor", "other-halved", "recursive-factor",
        "small-offset", "unused-offset", "wrapped-factor", "wrong-factor"]
    nested = catalogue.variants["negative-factor"]
    assert nested.reference == "tinymodels.variants.deeper.sign:negative_factor"
    assert nested.file.name == "sign.py" and nested.line > 1
    assert not catalogue.problems and not catalogue.missing


@pytest.mark.parametrize("names", [
    ["wrong-factor"],
    ["wrong-factor", "negative-factor"],
    ["tinymodels.variants.scale:wrong_factor"],
])
def test_known_names_lint_clean(tmp_path: Path, names: list[str]) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", names)]})
    assert _lint(root) == []


@pytest.mark.parametrize(("name", "expected"), [
    ("wrong-facter", "unknown wrong variant 'wrong-facter' (did you mean 'wrong-factor'?)"),
    ("wrong_factor", "did you mean 'wrong-factor'?"),
    ("zzz", "the catalogue holds: broken-variant, negative-factor, no-factor, other-halved, "
            "recursive-factor, small-offset, unused-offset, wrapped-factor, wrong-factor"),
    ("unmarked", "unknown wrong variant 'unmarked'"),
    ("private", "unknown wrong variant 'private'"),
    ("rebound", "unknown wrong variant 'rebound'"),
    ("tinymodels.variants.scale:unmarked", "is not marked @wrong_variant"),
    ("tinymodels.variants.scale:_private", "is private"),
    ("tinymodels.checks:holds", "is not marked @wrong_variant"),
    ("os.path:join", "names the standard-library module 'os'"),
])
def test_unknown_or_refused_names_are_errors(tmp_path: Path, name: str, expected: str) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", [name])]})
    findings = _lint(root)
    assert len(findings) == 1
    level, rule, message = findings[0]
    assert (level, rule) == ("error", "catches")
    assert expected in message and "claim 'a'" in message


def test_error_points_at_the_listed_name(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", ["wrong-factor", "nope"])]})
    finding, = [f for f in lint_wiki(load_wiki(load_config(root))) if f.rule == "catches"]
    card = (root / finding.path).read_text(encoding="utf-8").splitlines()
    assert "nope" in card[finding.line - 1]


def test_absent_catalogue_is_graceful(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", ["wrong-factor"])]},
                               catalogue=False)
    catalogue = load_catalogue(load_config(root))
    assert catalogue.variants == {} and catalogue.missing == ["tinymodels.variants"]
    (level, rule, message), = _lint(root)
    assert (level, rule) == ("error", "catches")
    assert "the catalogue is empty" in message and "not found: tinymodels.variants" in message


def test_a_name_defined_twice_is_an_error(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", [])]})
    (root / "tinymodels/variants/again.py").write_text(
        "from claimcheck import wrong_variant\n\n\n@wrong_variant\ndef wrong_factor():\n"
        '    """Again."""\n', encoding="utf-8")
    findings = lint_wiki(load_wiki(load_config(root)))
    twice = [f for f in findings if f.rule == "variant-catalogue"]
    assert len(twice) == 1 and twice[0].level is Level.ERROR
    assert twice[0].path in ("tinymodels/variants/again.py", "tinymodels/variants/scale.py")
    assert "'wrong-factor' is defined twice" in twice[0].message
    assert "tinymodels.variants.again:wrong_factor" in twice[0].message
    assert "tinymodels.variants.scale:wrong_factor" in twice[0].message


@pytest.mark.parametrize(("extra", "message"), [
    ({"catches": ["wrong-factor", "wrong-factor"]}, "catches lists a variant twice"),
    ({"catches": "wrong-factor"}, "catches"),
])
def test_malformed_catches_do_not_load(tmp_path: Path, extra: dict[str, Any],
                                       message: str) -> None:
    claim = {**power_claim("a", []), **extra}
    root = write_power_project(tmp_path, {ARXIV: [claim]})
    errors = [f for f in lint_wiki(load_wiki(load_config(root))) if f.level is Level.ERROR]
    assert errors and message in errors[0].message


def test_unverified_claim_cannot_list_variants(tmp_path: Path) -> None:
    claim = {"id": "a", "cite": "tab. 1", "statement": "S.", "unverified": "why",
             "catches": ["wrong-factor"]}
    root = write_power_project(tmp_path, {ARXIV: [claim]})
    errors = [f for f in lint_wiki(load_wiki(load_config(root))) if f.level is Level.ERROR]
    assert errors and "needs a check" in errors[0].message


def test_schema_has_the_two_fields() -> None:
    claim = card_json_schema()["$defs"]["Claim"]["properties"]
    assert claim["catches"]["type"] == "array"
    assert "catches_note" in claim


@pytest.mark.parametrize(("source", "why"), [
    ('def takes(x):\n    """Bug."""\n', "takes arguments"),
    ('def takes(*, x=1):\n    """Bug."""\n', "takes arguments"),
    ('async def takes():\n    """Bug."""\n', "is an async def"),
    ('class takes:\n    """Bug."""\n', "is a class"),
])
def test_a_variant_that_cannot_be_called_bare_is_an_error(tmp_path: Path, source: str,
                                                          why: str) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", [])]})
    (root / "tinymodels/variants/odd.py").write_text(
        f"from claimcheck import wrong_variant\n\n\n@wrong_variant\n{source}", encoding="utf-8")
    problems = [f for f in lint_wiki(load_wiki(load_config(root)))
                if f.rule == "variant-catalogue" and f.level is Level.ERROR]
    assert [(p.path, p.line, p.level) for p in problems] == [
        ("tinymodels/variants/odd.py", 5, Level.ERROR)]
    assert f"wrong variant 'takes' {why}" in problems[0].message


def test_a_variant_without_a_docstring_is_a_warning(tmp_path: Path) -> None:
    root = write_power_project(tmp_path, {ARXIV: [power_claim("a", [])]})
    (root / "tinymodels/variants/bare.py").write_text(
        "from claimcheck import wrong_variant\n\n\n@wrong_variant\ndef bare():\n    pass\n",
        encoding="utf-8")
    problems = [f for f in lint_wiki(load_wiki(load_config(root)))
                if f.rule == "variant-catalogue"]
    assert [(p.path, p.line, p.level) for p in problems] == [
        ("tinymodels/variants/bare.py", 5, Level.WARNING)]
    assert "'bare' has no docstring" in problems[0].message
    described = load_catalogue(load_config(root)).variants["wrong-factor"]
    assert described.description == "The factor is 3 instead of 2."
