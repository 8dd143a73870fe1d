"""Paper identifiers (keys, near misses, result file names) and basis inference, as tables."""

from __future__ import annotations

from typing import Any

import pytest

from claimcheck.cards.basis import BASIS_LEGEND, BASIS_ORDER, basis_problem, claim_basis
from claimcheck.cards.citations import CitationSyntaxError, parse_citation
from claimcheck.cards.frontmatter import Basis, Claim
from claimcheck.cards.identifiers import IdentifierError, PaperId, parse_paper_key
from claimcheck.store.results import result_stem

KEYS = [
    ("2101.12491", "arxiv", "2101.12491"),
    ("arxiv:2101.12491", "arxiv", "2101.12491"),
    ("cs/0112017", "arxiv", "cs/0112017"),
    ("doi:10.1038/S41598-021-93977-0", "doi", "doi:10.1038/s41598-021-93977-0"),
    ("openreview:HJWLfGWRb", "openreview", "openreview:HJWLfGWRb"),
    ("url:matrix-capsules", "url", "url:matrix-capsules"),
]


@pytest.mark.parametrize(("text", "scheme", "key"), KEYS)
def test_paper_keys(text: str, scheme: str, key: str) -> None:
    paper = parse_paper_key(text)
    assert (paper.scheme, paper.key) == (scheme, key)


NEAR_MISSES = [
    ("https://arxiv.org/abs/2101.12491v2", "write the id alone: `2101.12491`"),
    ("https://doi.org/10.1038/x-1", "write `doi:10.1038/x-1`"),
    ("https://openreview.net/forum?id=HJWLfGWRb", "write `openreview:HJWLfGWRb`"),
    ("10.1038/s41598-021-93977-0", "write `doi:10.1038/s41598-021-93977-0`"),
    ("DOI:10.1038/x", "write `doi:10.1038/x`"),
    ("openreview:https://openreview.net/pdf?id=rJUYGxbCW", "write the id alone: `rJUYGxbCW`"),
    ("doi:doi:10.1038/x", "drop the prefix: `10.1038/x`"),
    ("2113.12345", "month out of range"),
]


@pytest.mark.parametrize(("text", "hint"), NEAR_MISSES)
def test_near_misses_get_a_hint(text: str, hint: str) -> None:
    with pytest.raises(IdentifierError) as caught:
        parse_paper_key(text)
    assert hint in str(caught.value)


CITATIONS = [
    ('[doi:10.1038/s41598-021-93977-0 tab. 2]', "doi:10.1038/s41598-021-93977-0", None),
    ("[openreview:HJWLfGWRb §3]", "openreview:HJWLfGWRb", None),
    ("[url:matrix-capsules §2.1]", "url:matrix-capsules", None),
    ('[arxiv:2101.12491 tab. 2 "161K parameters"]', "2101.12491", "161K parameters"),
    ('[arxiv:2101.12491 §3.1, tab. 2 "a, b"]', "2101.12491", "a, b"),
]


@pytest.mark.parametrize(("text", "key", "quote"), CITATIONS)
def test_citations_of_every_kind(text: str, key: str, quote: str | None) -> None:
    citation = parse_citation(text)
    assert citation.paper_key == key
    assert citation.quote == quote
    assert str(citation) == text


BAD_CITATIONS = [
    ("[openreview:https://openreview.net/forum?id=HJWLfGWRb §3]", "write the id alone"),
    ("[doi:https://doi.org/10.1/x tab. 2]", "write the DOI alone"),
    ("[url:Not A Slug §3]", "not a card slug"),
    ('[arxiv:2101.12491 tab. 2 "unclosed]', "unclosed quote"),
    ('[arxiv:2101.12491 tab. 2 ""]', "empty quote"),
    ('[arxiv:2101.12491 tab. 2"x"]', "a quote follows the locators after one space"),
    ("[isbn:123 p. 7]", "unknown scheme"),
]


@pytest.mark.parametrize(("text", "message"), BAD_CITATIONS)
def test_bad_citations_are_understood_or_refused(text: str, message: str) -> None:
    with pytest.raises(CitationSyntaxError) as caught:
        parse_citation(text)
    assert message in f"{caught.value.message} ({caught.value.hint})"


STEMS = [
    ("2101.12491/mnist-params", "2101.12491__mnist-params"),
    ("cs/0112017/x", "cs_0112017__x"),
    ("openreview:HJWLfGWRb/em", "openreview-HJWLfGWRb__em"),
    ("url:matrix-capsules/em", "url-matrix-capsules__em"),
    ("doi:10.1038/s41598-021-93977-0/c", "doi-10.1038_2fs41598-021-93977-0__c"),
    ("doi:10.1000/a..b/c", "doi-10.1000_2fa._2eb__c"),
    ("doi:10.1000/a_b/c", "doi-10.1000_2fa_5fb__c"),
]


@pytest.mark.parametrize(("global_id", "stem"), STEMS)
def test_every_paper_key_gives_a_safe_distinct_file_name(global_id: str, stem: str) -> None:
    assert result_stem(global_id) == stem
    assert len({result_stem(g) for g, _ in STEMS}) == len(STEMS)


def test_a_long_doi_gives_a_bounded_name() -> None:
    stem = result_stem("doi:10.1000/" + "x%" * 150 + "/claim")
    assert len(stem) < 200 and stem.endswith("__claim")


def _claim(**fields: Any) -> Claim:
    base: dict[str, Any] = {"id": "c", "cite": "§1", "statement": "s"}
    return Claim.model_validate({**base, **fields})


CHECKED = {"expect": {"holds": True}}
BASES: list[tuple[dict[str, Any], str | None, str | None]] = [
    ({"check": "params", **CHECKED}, "paper-vs-code", None),
    ({"check": "shapes", **CHECKED}, "paper-vs-code", None),
    ({"check": "train", **CHECKED}, "reproduction", None),
    ({"check": "ratio", "args": {"numerator": {"kind": "params"},
                                 "denominator": {"kind": "params"}}, **CHECKED},
     "paper-vs-code", None),
    ({"check": "ratio", "args": {"numerator": {"kind": "timing"},
                                 "denominator": {"kind": "params"}}, **CHECKED},
     None, "choose basis"),
    ({"check": "timing", **CHECKED}, None, "choose basis: paper-vs-code or wiki"),
    ({"check": "models.x:f", **CHECKED}, None,
     "choose basis: paper-vs-code or implementation or wiki"),
    ({"check": "models.x:f", "basis": "implementation", **CHECKED}, "implementation", None),
    ({"check": "train", "basis": "wiki", **CHECKED}, "wiki", None),
    ({"check": "train", "basis": "implementation", **CHECKED}, "implementation",
     "does not fit check 'train'"),
    ({"check": "timing", "basis": "implementation", **CHECKED}, "implementation",
     "does not fit check 'timing'"),
    ({"unverified": "why"}, None, None),
    ({"unverified": "why", "basis": "reproduction"}, "reproduction", None),
    ({"basis": "textual", "quote": "q"}, "textual", None),
]


@pytest.mark.parametrize(("fields", "basis", "problem"), BASES)
def test_basis_is_inferred_only_where_unambiguous(
    fields: dict[str, Any], basis: str | None, problem: str | None
) -> None:
    claim = _claim(**fields)
    found = claim_basis(claim)
    assert (found.value if found else None) == basis
    message = basis_problem(claim)
    assert (message is None) == (problem is None)
    if problem is not None:
        assert message is not None and problem in message


def test_every_basis_has_a_one_sentence_legend() -> None:
    assert set(BASIS_ORDER) == set(Basis) == set(BASIS_LEGEND)
    for sentence in BASIS_LEGEND.values():
        assert sentence.endswith(".") and sentence.count(". ") <= 1


def test_a_paper_id_names_its_landing_page() -> None:
    assert PaperId("doi", "10.1/x").link == "https://doi.org/10.1/x"
    assert PaperId("openreview", "HJWLfGWRb").link == "https://openreview.net/forum?id=HJWLfGWRb"
    assert PaperId("url", "slug").link is None
