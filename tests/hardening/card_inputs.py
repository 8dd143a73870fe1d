"""Hypothesis strategies for hostile and valid-ish inputs, and the oracle every input must pass.

Shared by the property tests (``tests/hardening/test_properties.py``) and the long-running fuzz
harness (``tests/fuzz/fuzz_loader.py``), so that both check the same contract: any input either
loads, or raises claimcheck's own error with a location; nothing else ever escapes.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from claimcheck.authoring.lint import lint_wiki
from claimcheck.cards.citations import Citation, CitationSyntaxError, parse_citation
from claimcheck.cards.loader import LoadedCard, load_card
from claimcheck.cards.locators import Locator, LocatorError, parse_locator
from claimcheck.cards.wiki import load_cards
from claimcheck.core.config import load_config
from claimcheck.core.errors import CardError

# --- locators and citations, in canonical form ---------------------------------------------

number = st.integers(min_value=0, max_value=999).map(str)
dotted = st.lists(number, min_size=1, max_size=4).map(".".join)
number_range = st.tuples(st.integers(0, 500), st.integers(1, 500)).map(
    lambda pair: f"{pair[0]}-{pair[0] + pair[1]}"
)
label = st.one_of(dotted, number_range)
appendix = st.tuples(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), st.lists(number, max_size=3)
).map(lambda pair: ".".join([pair[0], *pair[1]]))
canonical_locator = st.one_of(
    label.map(lambda text: "§" + text),
    st.tuples(st.sampled_from(["tab. ", "fig. ", "eq. ", "alg. "]), label).map("".join),
    appendix.map(lambda text: "app. " + text),
    st.one_of(number, number_range).map(lambda text: "p. " + text),
)

new_arxiv = st.tuples(st.integers(0, 99), st.integers(1, 12), st.integers(0, 99_999)).map(
    lambda t: f"{t[0]:02d}{t[1]:02d}."  # 5 digits after the dot from 1501 on, 4 before
    + (f"{t[2]:05d}" if t[0] * 100 + t[1] >= 1501 else f"{t[2] % 10_000:04d}"))
old_arxiv = st.tuples(
    st.sampled_from(["cs", "math", "hep-th", "cond-mat", "physics"]),
    st.sampled_from(["", ".GT", ".LG", ".stat-mech"]),
    st.integers(0, 9_999_999),
).map(lambda t: f"{t[0]}{t[1]}/{t[2]:07d}")
version = st.one_of(st.just(""), st.integers(1, 99).map(lambda v: f"v{v}"))
doi_char = st.characters(  # "," is left out: the parser ends an id there (see test_properties)
    blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"), blacklist_characters="],"
).filter(lambda char: unicodedata.normalize("NFKC", char) == char)  # else a look-alike error
doi = st.tuples(st.integers(1000, 99_999), st.text(doi_char, min_size=1, max_size=20)).map(
    lambda t: f"10.{t[0]}/{t[1]}"
)
citation_head = st.one_of(
    st.tuples(st.one_of(new_arxiv, old_arxiv), version).map(lambda t: f"arxiv:{t[0]}{t[1]}"),
    doi.map(lambda text: "doi:" + text),
)
canonical_citation = st.tuples(
    citation_head, st.lists(canonical_locator, min_size=1, max_size=4, unique=True)
).map(lambda t: f"[{t[0]} {', '.join(t[1])}]")

# --- text built from grammar fragments, to land near the grammar's edges --------------------

FRAGMENTS = [
    "[", "]", "arxiv", "ARXIV", "doi", ":", " ", "  ", ", ", ",", "§", "§§", "tab. ", "fig. ",
    "eq. ", "alg. ", "app. ", "p. ", "Eq. ", "table ", "2101.12491", "1710.09829", "v2", "v0",
    "cs/0112017", "10.1038/x", "3", "12", ".", "-", "–", "B", "\t", "\n", "`", "```", "    ",
    "(", ")", "!", "\\", "*", ">", "é", "\u200b", "\ufeff",
]
fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join)
citation_like = st.one_of(st.text(max_size=60), fragment_text, canonical_citation)

# --- front matter and cards -------------------------------------------------------------------

KEYS = [
    "kind", "slug", "title", "summary", "tags", "papers", "related", "status", "updated_at",
    "arxiv", "authors", "year", "venue", "code", "claims", "id", "cite", "statement", "check",
    "args", "expect", "unverified", "accept_proxy", "tier", "resources", "equals", "approx",
    "rel_tol", "abs_tol", "at_most", "at_least", "between", "holds", "url", "official",
]
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=30),
    st.dates(), st.sampled_from(["paper", "concept", "2101.12491", "tab. 2", "params", "draft",
                                 "os:system", "tinymodels.checks:holds", "2026-11-29"]),
)
yaml_value = st.recursive(
    scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), children,
                        max_size=4),
    ),
    max_leaves=20,
)


def _valid_paper() -> dict[str, Any]:
    return {
        "kind": "paper", "slug": "fuzzed", "arxiv": "2101.12491", "title": "Fuzzed",
        "authors": ["A. Author"], "year": 2021, "updated_at": dt.date(2026, 11, 29),
        "claims": [{"id": "c1", "cite": "tab. 2", "statement": "S.", "check": "params",
                    "args": {"model": "m", "preset": "p"},
                    "expect": {"approx": 1, "rel_tol": 0.1}}],
    }


@st.composite
def valid_ish_front_matter(draw: st.DrawFn) -> dict[str, Any]:
    """A valid paper card with up to three random edits: drop, add or replace a key."""
    data = _valid_paper()
    for _ in range(draw(st.integers(0, 3))):
        target: dict[str, Any] = data
        if draw(st.booleans()) and data.get("claims") and isinstance(data["claims"], list):
            claims = data["claims"]
            if claims and isinstance(claims[0], dict):
                target = claims[0]
        action = draw(st.sampled_from(["drop", "add", "replace"]))
        if action == "drop" and target:
            target.pop(draw(st.sampled_from(sorted(target))))
        elif action == "add":
            target[draw(st.sampled_from(KEYS))] = draw(yaml_value)
        elif target:
            target[draw(st.sampled_from(sorted(target)))] = draw(yaml_value)
    return data


body_text = st.lists(
    st.one_of(canonical_citation, fragment_text, st.text(max_size=40)), max_size=8
).map(" ".join)
structured_card = st.tuples(
    st.one_of(valid_ish_front_matter(), yaml_value), body_text
).map(lambda t: ("---\n" + yaml.safe_dump(t[0], allow_unicode=True) + "---\n" + t[1]).encode())
text_card = st.tuples(st.text(max_size=200), body_text).map(
    lambda t: f"---\n{t[0]}\n---\n{t[1]}".encode()
)
any_card_bytes = st.one_of(structured_card, text_card, st.binary(max_size=300))

# --- oracles ------------------------------------------------------------------------------------


def same_citation(first: Citation, second: Citation) -> bool:
    """Equal as references: scheme, id, version and locators (position and text ignored)."""
    return (first.scheme, first.id, first.version, first.locators) == (
        second.scheme, second.id, second.version, second.locators
    )


def check_citation_text(text: str) -> Citation | None:
    """Parse ``text``; a success must round-trip, a failure must be located inside ``text``."""
    try:
        citation = parse_citation(text)
    except CitationSyntaxError as error:
        if not 1 <= error.col <= len(text) + 1:
            raise AssertionError(f"column {error.col} outside {text!r}") from None
        return None
    again = parse_citation(str(citation))
    if not same_citation(citation, again):
        raise AssertionError(f"{text!r} -> {citation} -> {again}: round trip changed it")
    return citation


def check_locator_text(text: str) -> Locator | None:
    """Parse ``text``; a success must round-trip, a failure must be located inside ``text``."""
    try:
        locator = parse_locator(text)
    except LocatorError as error:
        if not 0 <= error.col_offset <= len(text):
            raise AssertionError(f"offset {error.col_offset} outside {text!r}") from None
        return None
    again = parse_locator(str(locator))
    if again != locator or not locator.covers(locator):
        raise AssertionError(f"{text!r} -> {locator} -> {again}")
    return locator


def check_card_bytes(data: bytes, folder: Path) -> LoadedCard | None:
    """Write ``data`` as a card and load it: it loads, or fails with a located ``CardError``.

    A loaded card is then linted, and each citation it holds must round-trip.
    """
    path = folder / "card.md"
    path.write_bytes(data)
    try:
        loaded = load_card(path, "card.md")
    except CardError as error:
        located = error.path == "card.md" and (error.line or 0) >= 1 and (error.col or 0) >= 1
        if not located or "\n" in error.one_line():
            raise AssertionError(f"badly located error: {error.one_line()!r}") from None
        return None
    for citation in loaded.citations:
        if not same_citation(citation, parse_citation(str(citation))):
            raise AssertionError(f"citation {citation.text!r} does not round-trip")
    for problem in loaded.citation_problems:
        if problem.line < 1 or problem.col < 1:
            raise AssertionError(f"badly located citation problem {problem}")
    lint_wiki(load_cards(load_config(folder), [path]))
    return loaded
