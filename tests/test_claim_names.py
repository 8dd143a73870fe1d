"""Citations that name the claims their sentence states: ``[arxiv:2101.12491 tab. 2 #small]``.

The grammar's rows (names after the locators, before a quote), and lint: a name that is no claim
of the paper, or no claim at the locator, is an error with "did you mean"; a locator covering
more than five claims with no name is a warning.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.cards.citations import CitationSyntaxError, parse_citation
from claimcheck.cli.main import main

CLAIMS = "\n".join(
    f"  - id: row-{n}\n    cite: tab. 1\n    statement: Row {n}.\n    unverified: a test"
    for n in range(6)
)
PAPER = f"""---
kind: paper
slug: sample-paper
arxiv: "2101.12491"
title: Sample
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
{CLAIMS}
  - id: routing
    cite: eq. 5
    statement: Routing is a softmax.
    unverified: not checked in this test
---
Body.
"""


@pytest.mark.parametrize(
    ("text", "names", "locators", "quote"),
    [
        ("[arxiv:2101.12491 tab. 2 #mnist-params]", ("mnist-params",), ["tab. 2"], None),
        ("[arxiv:2101.12491 tab. 2, §3 #a #b_c]", ("a", "b_c"), ["tab. 2", "§3"], None),
        ('[arxiv:2101.12491 tab. 2 #a "161K"]', ("a",), ["tab. 2"], "161K"),
        ("[arxiv:2101.12491 tab. 2]", (), ["tab. 2"], None),
    ],
)
def test_names_parse(text: str, names: tuple[str, ...], locators: list[str],
                     quote: str | None) -> None:
    citation = parse_citation(text)
    assert citation.claims == names
    assert [str(locator) for locator in citation.locators] == locators
    assert citation.quote == quote and str(citation) == text


@pytest.mark.parametrize(
    ("text", "col", "message"),
    [
        ("[arxiv:2101.12491 tab. 2 #Bad]", 26, "not a claim name: '#Bad'"),
        ("[arxiv:2101.12491 tab. 2#a]", 25, "a claim name follows the locators after one space"),
        ("[arxiv:2101.12491 tab. 2 #a #a]", 29, "claim #a is named twice"),
        ("[arxiv:2101.12491 tab. 2 # a]", 26, "not a claim name: '#'"),
        ("[arxiv:2101.12491 tab. 2 #a b]", 29, "not a claim name: 'b'"),
    ],
)
def test_malformed_names(text: str, col: int, message: str) -> None:
    with pytest.raises(CitationSyntaxError) as raised:
        parse_citation(text)
    assert (raised.value.col, raised.value.message) == (col, message)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "wiki" / "papers").mkdir(parents=True)
    (tmp_path / "wiki" / "papers" / "sample.md").write_text(PAPER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lint(project: Path, body: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    (project / "wiki" / "idea.md").write_text(
        "---\nkind: concept\nslug: idea\ntitle: Idea\npapers: [\"2101.12491\"]\n"
        f"updated_at: 2026-11-29\n---\n{body}\n")
    code = main(["lint", "wiki"])
    return code, [line for line in capsys.readouterr().out.splitlines() if "idea.md" in line]


def test_a_named_claim_at_its_locator_is_clean(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _lint(project, "Row two [arxiv:2101.12491 tab. 1 #row-2].", capsys) == (0, [])


def test_an_unknown_name_is_an_error_with_did_you_mean(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = _lint(project, "Row two [arxiv:2101.12491 tab. 1 #row-22].", capsys)
    assert code == 1
    assert lines == ["wiki/idea.md:8:34: error: #row-22 is not a claim of arxiv:2101.12491 "
                     "(did you mean #row-2?)"]


def test_a_name_outside_the_locator_is_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = _lint(project, "Routing [arxiv:2101.12491 tab. 1 #routing].", capsys)
    assert code == 1
    assert lines == ["wiki/idea.md:8:34: error: claim #routing is at eq. 5, which tab. 1 does "
                     "not cover"]


def test_a_broad_locator_without_names_is_a_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = _lint(project, "All rows [arxiv:2101.12491 tab. 1]. Eq [arxiv:2101.12491 eq. 5].",
                        capsys)
    assert code == 0
    assert lines == ["wiki/idea.md:8:10: warning: [arxiv:2101.12491 tab. 1] covers 6 claims: "
                     "name the ones the sentence states, e.g. "
                     "`[arxiv:2101.12491 tab. 1 #row-0]`"]


def test_a_broad_locator_in_a_code_span_is_an_example_not_a_finding(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = "Written `[arxiv:2101.12491 tab. 1]`, it covers every row."
    code, lines = _lint(project, example, capsys)
    assert code == 0
    assert lines == []


def test_the_suggestion_puts_the_name_before_a_quote(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, lines = _lint(project, 'All [arxiv:2101.12491 tab. 1 "Row"].', capsys)
    assert any(line.endswith('e.g. `[arxiv:2101.12491 tab. 1 #row-0 "Row"]`') for line in lines)
