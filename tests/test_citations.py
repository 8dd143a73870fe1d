"""Citation grammar, positions, code detection and what is never a citation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from claimcheck.cards.citations import (
    Citation,
    CitationProblem,
    CitationSyntaxError,
    parse_citation,
    scan_citations,
)
from claimcheck.cards.locators import parse_locator


@pytest.mark.parametrize(
    ("text", "key", "version", "locators"),
    [
        ("[arxiv:2101.12491 §3.1]", "arxiv:2101.12491", None, ["§3.1"]),
        ("[arxiv:2101.12491 tab. 2]", "arxiv:2101.12491", None, ["tab. 2"]),
        ("[arxiv:2101.12491 eq. 3-6]", "arxiv:2101.12491", None, ["eq. 3-6"]),
        ("[arxiv:2101.12491 §3.1, tab. 2]", "arxiv:2101.12491", None, ["§3.1", "tab. 2"]),
        ("[arxiv:2101.12491 fig. 4, eq. 5, p. 7]", "arxiv:2101.12491", None,
         ["fig. 4", "eq. 5", "p. 7"]),
        ("[arxiv:2101.12491v2 §3.1]", "arxiv:2101.12491", 2, ["§3.1"]),
        ("[arxiv:2101.12491v12 alg. 1]", "arxiv:2101.12491", 12, ["alg. 1"]),
        ("[arxiv:1710.09829 app. B]", "arxiv:1710.09829", None, ["app. B"]),
        ("[arxiv:0704.0001 §1]", "arxiv:0704.0001", None, ["§1"]),
        ("[arxiv:cs/0112017 §2]", "arxiv:cs/0112017", None, ["§2"]),
        ("[arxiv:cs/0112017v1 §2]", "arxiv:cs/0112017", 1, ["§2"]),
        ("[arxiv:math.GT/0309136 app. B.2]", "arxiv:math.GT/0309136", None, ["app. B.2"]),
        ("[arxiv:hep-th/9901001 eq. 12]", "arxiv:hep-th/9901001", None, ["eq. 12"]),
        ("[doi:10.1038/s41598-021-93977-0 fig. 3]", "doi:10.1038/s41598-021-93977-0", None,
         ["fig. 3"]),
        ("[doi:10.1000/xyz.v2 tab. 1]", "doi:10.1000/xyz.v2", None, ["tab. 1"]),
    ],
)  # fmt: skip
def test_valid(text: str, key: str, version: int | None, locators: list[str]) -> None:
    citation = parse_citation(text)
    assert citation.key == key
    assert citation.version == version
    assert citation.locators == tuple(parse_locator(locator) for locator in locators)
    assert str(citation) == text


ARXIV_ID_HINT = "write a new-style id like `2101.12491` or an old-style one like `cs/0112017`"


@pytest.mark.parametrize(
    ("text", "col", "message", "hint"),
    [
        ("[arxiv:21x.1 §1]", 8, "not an arXiv id: '21x.1'", ARXIV_ID_HINT),
        ("[arxiv:2101.123 §1]", 8, "not an arXiv id: '2101.123'", ARXIV_ID_HINT),
        ("[arxiv:2101.124910 §1]", 8, "not an arXiv id: '2101.124910'", ARXIV_ID_HINT),
        ("[arxiv:2113.12491 §1]", 8, "not an arXiv id: '2113.12491' (month out of range)", None),
        ("[arxiv:cs/011201 §1]", 8, "not an arXiv id: 'cs/011201'", ARXIV_ID_HINT),
        ("[arxiv:2101.12491v0 §1]", 18, "arXiv versions start at v1", None),
        ("[arxiv:2101.12491 table 2]", 19, "unknown locator 'table 2'", "did you mean `tab. 2`"),
        ("[arxiv:2101.12491 Eq. 5]", 19, "unknown locator 'Eq. 5'", "did you mean `eq. 5`"),
        ("[arxiv:2101.12491 §3.1, table 2]", 25, "unknown locator 'table 2'",
         "did you mean `tab. 2`"),
        ("[arxiv:2101.12491 eq. 6-3]", 23, "reversed range '6-3'", "did you mean `eq. 3-6`"),
        ("[arxiv:2101.12491 § 3.1]", 19, "unknown locator '§ 3.1'", "did you mean `§3.1`"),
        ("[arXiv:2101.12491 tab. 2]", 2, "scheme must be lower case: 'arXiv'",
         "did you mean `arxiv`"),
        ("[DOI:10.1000/xyz tab. 2]", 2, "scheme must be lower case: 'DOI'", "did you mean `doi`"),
        ("[arxiv: 2101.12491 tab. 2]", 8, "unexpected space after 'arxiv:'",
         "write `[arxiv:2101.12491 tab. 2]`"),
        ("[arxiv:2101.12491]", 18, "citation has no locator",
         "add one after a space, e.g. `[arxiv:2101.12491 §3.1]`"),
        ("[arxiv:2101.12491  tab. 2]", 18, "expected one space between the id and the locator",
         None),
        ("[arxiv:2101.12491, tab. 2]", 18, "expected one space between the id and the locator",
         None),
        ("[arxiv:2101.12491 §3.1,tab. 2]", 23, "locators are separated by ', '", None),
        ("[arxiv:2101.12491 §3.1, ]", 25, "empty locator",
         "use one of §3.1, tab. 2, fig. 4, eq. 5, eq. 3-6, alg. 1, app. B, p. 7"),
        ("[arxiv:2101.12491 §3.1, §3.1]", 25, "duplicate locator '§3.1'", None),
        ("[arxiv:2101.12491 §3.1 tab. 2]", 20, "bad section number '3.1 tab. 2'",
         "separate locators with ', ': `§3.1, tab. 2`"),
        ("[arxiv: tab. 2]", 8, "unexpected space after 'arxiv:'", "write `[arxiv:tab. 2]`"),
        ("[arxiv:]", 8, "missing id after 'arxiv:'", None),
        ("[doi:11.1000/xyz tab. 2]", 6, "not a DOI: '11.1000/xyz'",
         "a DOI starts with '10.', e.g. `10.1038/s41598-021-93977-0`"),
        ("[arxiv 2101.12491 tab. 2]", 7, "expected ':' after 'arxiv'", None),
        ("[ arxiv:2101.12491 tab. 2]", 2, "unexpected space after '['", None),
        ("[isbn:123 p. 7]", 2, "unknown scheme 'isbn'",
         "use one of `arxiv`, `doi`, `openreview`, `url`"),
        ("arxiv:2101.12491 tab. 2", 1, "a citation is enclosed in '[' and ']'", None),
    ],
)  # fmt: skip
def test_invalid(text: str, col: int, message: str, hint: str | None) -> None:
    with pytest.raises(CitationSyntaxError) as caught:
        parse_citation(text)
    assert (caught.value.col, caught.value.message, caught.value.hint) == (col, message, hint)


BODY = """\
# Self-attention routing

Capsules carry pose [arxiv:2101.12491 §1]. Routing is one step
[arxiv:2101.12491 §3.1, eq. 3-6] and costs little [arxiv:2101.12491 table 2].

> Quoted: [arxiv:2101.12491v2 tab. 4]
"""


def test_positions_are_file_lines_and_columns() -> None:
    citations, problems = scan_citations(BODY, "wiki/capsule-network.md", line_offset=12)
    assert [(c.line, c.col, c.text) for c in citations] == [
        (15, 21, "[arxiv:2101.12491 §1]"),
        (16, 1, "[arxiv:2101.12491 §3.1, eq. 3-6]"),
        (18, 11, "[arxiv:2101.12491v2 tab. 4]"),
    ]
    assert problems == [
        CitationProblem(
            "wiki/capsule-network.md", 16, 69, "unknown locator 'table 2'",
            "did you mean `[arxiv:2101.12491 tab. 2]`?"
        )
    ]
    lines = BODY.splitlines()
    for citation in citations:
        assert lines[citation.line - 13][citation.col - 1 : citation.end_col - 1] == citation.text
        assert citation.path == "wiki/capsule-network.md"


CODE_BODY = """\
Inline `[arxiv:2101.12491 eq. 5]` then [arxiv:2101.12491 eq. 6] outside.
Double ``a ` [arxiv:2101.12491 eq. 7]`` span; escaped \\`[arxiv:2101.12491 eq. 8]\\`.
Unmatched ` backtick [arxiv:2101.12491 eq. 9].

```python
# [arxiv:2101.12491 §3.1] [eq. 3-6]
```

~~~
[arxiv:2101.12491 alg. 1]
~~~

    [arxiv:2101.12491 fig. 1]

- item

      [arxiv:2101.12491 fig. 2]

After [arxiv:2101.12491 fig. 3].
"""


def test_code_spans_and_blocks_are_marked_in_code() -> None:
    citations, problems = scan_citations(CODE_BODY, "a.md")
    assert problems == []
    found = {str(c.locators[0]): c.in_code for c in citations}
    assert found == {
        "eq. 5": True,
        "eq. 6": False,
        "eq. 7": True,
        "eq. 8": False,
        "eq. 9": False,
        "§3.1": True,
        "alg. 1": True,
        "fig. 1": True,
        "fig. 2": True,
        "fig. 3": False,
    }


def test_tokens_from_an_earlier_parse_give_the_same_result() -> None:
    tokens = MarkdownIt("commonmark").parse(CODE_BODY)
    assert scan_citations(CODE_BODY, "a.md", tokens=tokens) == scan_citations(CODE_BODY, "a.md")


NOT_CITATIONS = """\
A [link](https://example.com) and [arxiv:2101.12491 §1](https://arxiv.org/abs/2101.12491).
An image ![arxiv:2101.12491 fig. 1](fig.png) and a reference [arxiv:2101.12491 tab. 1][ref].
A footnote[^1] and an escaped \\[arxiv:2101.12491 table 2] and [arxiv] and [doi] prose.
- [ ] open task
- [x] done task
Bracketed prose [see section 3] and [eq. 3-6] without a scheme, and [arxivist: no].

[ref]: https://example.com
[arxiv:2101.12491 §9]: https://example.com
[^1]: A footnote with no citation.
"""


def test_links_footnotes_images_and_prose_are_never_citations() -> None:
    assert scan_citations(NOT_CITATIONS, "a.md") == ([], [])


def test_adjacent_citations_are_not_a_reference_link() -> None:
    citations, problems = scan_citations("See [arxiv:2101.12491 §1][arxiv:2101.12491 §2].", "a.md")
    assert problems == []
    assert [c.col for c in citations] == [5, 26]


def test_citation_in_a_footnote_definition_counts() -> None:
    citations, _ = scan_citations("x[^1]\n\n[^1]: See [arxiv:2101.12491 p. 3].\n", "a.md")
    assert [(c.line, c.col) for c in citations] == [(3, 11)]


def test_problem_column_points_at_the_offending_token() -> None:
    _, problems = scan_citations("Text [arxiv:21x.1 §1] and [arXiv:2101.12491 tab. 2].", "a.md", 3)
    assert [(p.line, p.col, p.message) for p in problems] == [
        (4, 13, "not an arXiv id: '21x.1'"),
        (4, 28, "scheme must be lower case: 'arXiv'"),
    ]


def test_a_citation_broken_across_lines_is_a_problem() -> None:
    _, problems = scan_citations("Wrapped [arxiv:2101.12491\n§3.1] here.", "a.md")
    assert [(p.line, p.col, p.message) for p in problems] == [
        (1, 9, "unclosed citation: no ']' after it on this line")
    ]


def test_body_without_candidates_is_empty() -> None:
    assert scan_citations("No citations, `code` and [a](b).\n", "a.md") == ([], [])


def test_parse_citation_keeps_its_place() -> None:
    citation = parse_citation("[arxiv:2101.12491 tab. 2]", path="p.md", line=4, col=9, in_code=True)
    assert (citation.path, citation.line, citation.col, citation.in_code) == ("p.md", 4, 9, True)
    assert citation.end_col == 9 + len("[arxiv:2101.12491 tab. 2]")


locator_texts = st.sampled_from(
    ["§3", "§3.1.2", "§3-4", "tab. 2", "fig. 4", "eq. 5", "eq. 3-6", "alg. 1", "app. B.2", "p. 7"]
)
arxiv_ids = st.one_of(  # ASCII digits: a citation is plain ASCII; 5 digits from 1501 on, else 4
    st.from_regex(r"(0[7-9]|1[0-4])(0[1-9]|1[0-2])\.[0-9]{4}", fullmatch=True),
    st.from_regex(r"(1[5-9]|2[0-9])(0[1-9]|1[0-2])\.[0-9]{5}", fullmatch=True),
    st.from_regex(r"(cs|math\.GT|hep-th|cond-mat\.stat-mech)/[0-9]{7}", fullmatch=True),
)


@st.composite
def citations(draw: st.DrawFn) -> Citation:
    locators = draw(st.lists(locator_texts, min_size=1, max_size=4, unique=True))
    if draw(st.booleans()):
        scheme = "doi"
        identifier = draw(st.from_regex(r"10\.[0-9]{4,5}/[a-z0-9.\-]{1,12}", fullmatch=True))
        version = None
    else:
        scheme, identifier = "arxiv", draw(arxiv_ids)
        version = draw(st.none() | st.integers(min_value=1, max_value=20))
    suffix = "" if version is None else f"v{version}"
    text = f"[{scheme}:{identifier}{suffix} {', '.join(locators)}]"
    return parse_citation(text)


@given(citations())
def test_str_round_trips(citation: Citation) -> None:
    assert parse_citation(str(citation)) == citation
