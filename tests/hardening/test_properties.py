"""Property-based tests of the citation grammar, the locator grammar and the card loader.

The contract (issue 9 §3): any input either parses/loads, or raises claimcheck's own error with a
location, never anything else (no RecursionError, UnicodeError, yaml or pydantic error); and what
parses prints back to text that parses to the same value.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from claimcheck.cards.citations import CitationSyntaxError, parse_citation, scan_citations
from claimcheck.cards.locators import parse_locator
from tests.hardening.card_inputs import (
    any_card_bytes,
    canonical_citation,
    canonical_locator,
    check_card_bytes,
    check_citation_text,
    check_locator_text,
    citation_like,
    fragment_text,
    structured_card,
)

PROPERTY = settings(max_examples=200, deadline=None)
CARDS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@PROPERTY
@given(canonical_citation)
def test_canonical_citation_prints_back_exactly(text: str) -> None:
    citation = parse_citation(text)
    assert str(citation) == text
    assert check_citation_text(text) is not None


@PROPERTY
@given(canonical_locator)
def test_canonical_locator_prints_back_exactly(text: str) -> None:
    assert str(parse_locator(text)) == text


@PROPERTY
@given(citation_like)
@example("[arxiv:2101.12491 eq. 03-6]")
@example("[arxiv:" * 50 + "]")
def test_any_citation_text_parses_and_round_trips_or_is_located(text: str) -> None:
    check_citation_text(text)


@PROPERTY
@given(st.one_of(st.text(max_size=30), fragment_text, canonical_locator))
@example("§ 3.1")
@example("app. b.02")
def test_any_locator_text_parses_and_round_trips_or_is_located(text: str) -> None:
    check_locator_text(text)


@PROPERTY
@given(st.lists(st.one_of(citation_like, fragment_text), max_size=10).map("".join),
       st.integers(0, 50))
def test_scan_points_every_citation_at_its_own_text(markdown: str, offset: int) -> None:
    citations, problems = scan_citations(markdown, "body.md", offset)
    lines = markdown.split("\n")
    for citation in citations:
        line = lines[citation.line - offset - 1]
        assert line[citation.col - 1 : citation.end_col - 1] == citation.text
    for problem in problems:
        assert offset + 1 <= problem.line <= offset + len(lines)
        assert 1 <= problem.col <= len(lines[problem.line - offset - 1]) + 1


@CARDS
@given(any_card_bytes)
@example(b"---\nkind: concept\n" + b"[" * 10_000 + b"\n---\n")
@example(b"---\nx: &a [1]\ny: *a\n---\n")
@example(b"\xff\xfe---\n")
def test_any_bytes_load_or_give_a_located_card_error(tmp_path: Path, data: bytes) -> None:
    check_card_bytes(data, tmp_path)


@CARDS
@given(structured_card)
def test_structured_cards_load_or_give_a_located_card_error(tmp_path: Path, data: bytes) -> None:
    check_card_bytes(data, tmp_path)


def test_doi_with_a_comma_is_refused_as_the_grammar_says() -> None:
    with pytest.raises(CitationSyntaxError):
        parse_citation("[doi:10.1000/a,b tab. 1]")
