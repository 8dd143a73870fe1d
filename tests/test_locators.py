"""Locator grammar, near-miss hints and containment (see claimcheck/cards/locators.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.cards.locators import Locator, LocatorError, LocatorKind, parse_locator

S, T, F, E = LocatorKind.SECTION, LocatorKind.TABLE, LocatorKind.FIGURE, LocatorKind.EQUATION
A, X, P = LocatorKind.ALGORITHM, LocatorKind.APPENDIX, LocatorKind.PAGE


@pytest.mark.parametrize(
    ("text", "kind", "parts", "end"),
    [
        ("§3", S, ("3",), None),
        ("§3.1", S, ("3", "1"), None),
        ("§3.1.2", S, ("3", "1", "2"), None),
        ("§3-4", S, ("3",), 4),
        ("tab. 2", T, ("2",), None),
        ("tab. 10", T, ("10",), None),
        ("fig. 4", F, ("4",), None),
        ("fig. 2.3", F, ("2", "3"), None),
        ("eq. 5", E, ("5",), None),
        ("eq. 3-6", E, ("3",), 6),
        ("eq. 05", E, ("5",), None),
        ("alg. 1", A, ("1",), None),
        ("app. B", X, ("B",), None),
        ("app. B.2", X, ("B", "2"), None),
        ("p. 7", P, ("7",), None),
        ("p. 7-9", P, ("7",), 9),
    ],
)
def test_valid(text: str, kind: LocatorKind, parts: tuple[str, ...], end: int | None) -> None:
    assert parse_locator(text) == Locator(kind, parts, end)


@pytest.mark.parametrize(
    ("text", "col_offset", "message", "hint"),
    [
        ("table 2", 0, "unknown locator 'table 2'", "did you mean `tab. 2`"),
        ("Table 2", 0, "unknown locator 'Table 2'", "did you mean `tab. 2`"),
        ("tab 2", 0, "unknown locator 'tab 2'", "did you mean `tab. 2`"),
        ("tab.2", 0, "unknown locator 'tab.2'", "did you mean `tab. 2`"),
        ("equation 5", 0, "unknown locator 'equation 5'", "did you mean `eq. 5`"),
        ("eq 5", 0, "unknown locator 'eq 5'", "did you mean `eq. 5`"),
        ("Eq. 5", 0, "unknown locator 'Eq. 5'", "did you mean `eq. 5`"),
        ("section 3.1", 0, "unknown locator 'section 3.1'", "did you mean `§3.1`"),
        ("sec. 3.1", 0, "unknown locator 'sec. 3.1'", "did you mean `§3.1`"),
        ("§ 3.1", 0, "unknown locator '§ 3.1'", "did you mean `§3.1`"),
        ("figure 4", 0, "unknown locator 'figure 4'", "did you mean `fig. 4`"),
        ("Fig. 4", 0, "unknown locator 'Fig. 4'", "did you mean `fig. 4`"),
        ("appendix B", 0, "unknown locator 'appendix B'", "did you mean `app. B`"),
        ("page 7", 0, "unknown locator 'page 7'", "did you mean `p. 7`"),
        ("pp. 7", 0, "unknown locator 'pp. 7'", "did you mean `p. 7`"),
        ("algorithm 1", 0, "unknown locator 'algorithm 1'", "did you mean `alg. 1`"),
        ("eq. 6-3", 4, "reversed range '6-3'", "did you mean `eq. 3-6`"),
        ("eq. 3-3", 4, "range '3-3' has a single item", "did you mean `eq. 3`"),
        ("eq. (5)", 4, "bad equation number '(5)'", "did you mean `eq. 5`"),
        ("eq. 3–6", 4, "bad equation number '3–6'", "did you mean `eq. 3-6`"),
        ("§A.1", 1, "bad section number 'A.1'", "did you mean `app. A.1`"),
        ("app. b", 5, "bad appendix label 'b'", "did you mean `app. B`"),
        ("p. 7.1", 3, "bad page number '7.1'", "write it like `p. 7`"),
        ("eq. ", 4, "missing equation label", "write it like `eq. 5` or `eq. 3-6`"),
        ("lemma 2", 0, "unknown locator 'lemma 2'", None),
        ("3.1", 0, "unknown locator '3.1'", None),
        ("", 0, "empty locator", None),
    ],
)
def test_invalid(text: str, col_offset: int, message: str, hint: str | None) -> None:
    with pytest.raises(LocatorError) as caught:
        parse_locator(text)
    assert (caught.value.message, caught.value.col_offset) == (message, col_offset)
    if hint is None:
        assert caught.value.hint is not None and caught.value.hint.startswith("use one of")
    else:
        assert caught.value.hint == hint


@pytest.mark.parametrize(
    ("outer", "inner", "covers"),
    [
        ("eq. 3-6", "eq. 5", True),
        ("eq. 3-6", "eq. 3", True),
        ("eq. 3-6", "eq. 6", True),
        ("eq. 3-6", "eq. 4-5", True),
        ("eq. 3-6", "eq. 3-6", True),
        ("eq. 3-6", "eq. 7", False),
        ("eq. 3-6", "eq. 2-4", False),
        ("eq. 5", "eq. 5", True),
        ("eq. 5", "eq. 3-6", False),
        ("eq. 5", "eq. 6", False),
        ("§3", "§3.1", True),
        ("§3", "§3.1.2", True),
        ("§3.1", "§3", False),
        ("§3.1", "§3.10", False),
        ("§3", "§30", False),
        ("§3-4", "§4.2", True),
        ("app. B", "app. B.2", True),
        ("app. B", "app. C", False),
        ("tab. 2", "fig. 2", False),
        ("tab. 2", "tab. 2", True),
        ("p. 7-9", "p. 8", True),
    ],
)
def test_covers(outer: str, inner: str, covers: bool) -> None:
    assert parse_locator(outer).covers(parse_locator(inner)) is covers


numbers = st.integers(min_value=0, max_value=999).map(str)


@st.composite
def locators(draw: st.DrawFn) -> Locator:
    kind = draw(st.sampled_from(list(LocatorKind)))
    if kind is LocatorKind.APPENDIX:
        letter = draw(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        return Locator(kind, (letter, *draw(st.lists(numbers, max_size=3))), None)
    if draw(st.booleans()):
        start = draw(st.integers(min_value=0, max_value=500))
        return Locator(kind, (str(start),), start + draw(st.integers(1, 500)))
    depth = 1 if kind is LocatorKind.PAGE else 4
    return Locator(kind, tuple(draw(st.lists(numbers, min_size=1, max_size=depth))), None)


@given(locators())
def test_str_round_trips(locator: Locator) -> None:
    assert parse_locator(str(locator)) == locator
    assert locator.covers(locator)


def test_kind_prefixes_are_the_design_forms() -> None:
    assert [kind.prefix for kind in LocatorKind] == [
        "§", "tab. ", "fig. ", "eq. ", "alg. ", "app. ", "p. "
    ]  # fmt: skip
