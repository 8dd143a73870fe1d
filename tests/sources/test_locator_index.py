"""The locator index and the quote matcher on the fixture paper, as tables of cases."""

from __future__ import annotations

import pytest

from claimcheck.cards.locators import parse_locator
from claimcheck.sources.latex import LatexProject
from claimcheck.sources.quotes import QuoteState, SourceIndex, check_quote
from claimcheck.sources.text import canonical
from tests.sources.paper_fixture import fixture_index as build_fixture_index


@pytest.fixture(scope="module")
def fixture_index() -> SourceIndex:
    """The locator index of the fixture paper (built once)."""
    return build_fixture_index()

# --- numbering: each locator the fixture paper has, and what it contains --------------------

PRESENT = [
    ("§1", "Capsule networks route by agreement"),
    ("§2", "The squash function is"),
    ("§2.1", "an unnumbered identity"),
    ("§2.2", "The routing computes"),
    ("§3", "A starred subsection that carries no number"),
    ("§3.1", "select hyperparameters on a small percentage of validation data"),
    ("§3.2", "lists the parameter counts"),
    ("§4", "reports an error of 5.0%"),
    ("app. A", "The squash keeps the direction"),
    ("app. A.1", "The squash keeps the direction"),
    ("app. B", "Self-attention routing"),
    ("tab. 1", "Ensemble of 30 networks 0.16"),
    ("tab. 2", "Ours 2.54"),
    ("tab. 3", "Ours 5.1"),
    ("fig. 1", "four convolutions, then primary capsules"),
    ("alg. 1", "compute the agreement"),
    ("eq. 1", "\\mathbf{v} = \\left(1 - \\frac{1}{e^{\\|\\mathbf{s}\\|}}\\right)"),
    ("eq. 2", "A_{ij} &= \\frac{u_i^\\top u_j}{\\sqrt{d}}"),
    ("eq. 3", "c = softmax(B) + b"),
    ("eq. 4", "y = 2"),
    ("eq. 5", "z = 1"),
    ("eq. 6", "w = 2"),
    ("eq. 7", "L = T max(0, m+ - ‖v‖)2"),
]


@pytest.mark.parametrize(("locator", "quote"), PRESENT)
def test_each_locator_holds_its_text(fixture_index: SourceIndex, locator: str, quote: str) -> None:
    check = check_quote(fixture_index, quote, [parse_locator(locator)])
    assert check.state is QuoteState.FOUND, check.message
    assert fixture_index.missing(parse_locator(locator)) is None


MISSING = [
    ("tab. 4", "tab. 4 is not in the source (it has tables 1-3)"),
    ("eq. 8", "eq. 8 is not in the source (it has equations 1-7)"),
    ("§5", "§5 is not in the source"),
    ("§2.3", "§2.3 is not in the source"),
    ("app. C", "app. C is not in the source (it has appendices A, A.1, B)"),
    ("alg. 2", "alg. 2 is not in the source (it has algorithms 1-1)"),
    ("fig. 2", "fig. 2 is not in the source (it has figures 1-1)"),
    ("eq. 6-9", "eq. 9 is not in the source (it has equations 1-7)"),
]


@pytest.mark.parametrize(("locator", "message"), MISSING)
def test_a_locator_the_paper_lacks_is_named(
    fixture_index: SourceIndex, locator: str, message: str
) -> None:
    why = fixture_index.missing(parse_locator(locator))
    assert why is not None and why.startswith(message)


def test_labels_follow_latex_numbering(fixture_index: SourceIndex) -> None:
    labels = {key: number for key, (_, number) in fixture_index.structure.labels.items()}
    assert labels == {
        "sec:intro": "1", "sec:method": "2", "sec:squash": "2.1", "eq:squash": "1",
        "eq:att": "2", "eq:coupling": "3", "eq:loss": "7", "sec:setup": "3.1",
        "tab:params": "1", "fig:arch": "1", "tab:norb": "2", "tab:multi": "3",
        "app:proofs": "A", "alg:routing": "1",
    }


def test_page_locators_are_not_checkable_except_the_first_page(
    fixture_index: SourceIndex,
) -> None:
    assert fixture_index.missing(parse_locator("p. 7")) is None
    assert fixture_index.covered_by(parse_locator("p. 7")) == []
    assert {r.kind for r in fixture_index.covered_by(parse_locator("p. 1"))} == {
        "front", "abstract"}


# --- quotes: the outcome and where a misplaced quote really is ------------------------------

QUOTES = [
    # a quote across a line break, and a number written 161{,}824
    ("the MNIST network has 161,824 trainable parameters", ["§3.2"], "found", None),
    ("the MNIST network has 161824 trainable parameters", ["§3"], "found", None),
    ("the MNIST network has 161 824 trainable parameters", ["§3.2"], "found", None),
    ("161,824 trainable parameters", ["tab. 1"], "elsewhere", "§3.2"),
    # a quote in a table cell (cells and rules are markup)
    ("Ours 161 0.26", ["tab. 1"], "found", None),
    ("Ours & 161 & 0.26", ["tab. 1"], "found", None),
    ("CapsNet 6800 0.25", ["tab. 2"], "elsewhere", "tab. 1"),
    ("Ours 2.54", ["tab. 3"], "elsewhere", "tab. 2"),
    ("Ours 5.1", ["tab. 2", "tab. 3"], "found", None),
    ("Error [%]", ["tab. 1"], "found", None),
    # a starred equation has no number: the section is its place
    ("‖v‖ < 1 for every s", ["eq. 1"], "elsewhere", "§2.1"),
    ("\\|\\mathbf{v}\\| < 1 \\quad\\text{for every } \\mathbf{s}", ["§2.1"], "found", None),
    # align: numbered lines, \nonumber, \tag, aligned inside equation
    ("B_j = ∑_i A_ij", ["eq. 2"], "elsewhere", "§2.2"),
    ("c = softmax(B) + b", ["eq. 2-3"], "found", None),
    ("c = softmax(B) + b", ["eq. 2"], "elsewhere", "eq. 3"),
    ("s = ∑_i c_i u_i", ["eq. 7"], "elsewhere", "§2.2"),
    ("x = 1 y = 2", ["eq. 4"], "found", None),
    ("λ = 0.5", ["§2.2"], "found", None),
    ("$\\lambda = 0.5$", ["§3.2"], "found", None),
    # references read as LaTeX prints them
    ("Table 1 lists the parameter counts", ["§3.2"], "found", None),
    ("as Section 3.1 describes", ["§3.2"], "found", None),
    ("The loss is Eq. (7)", ["§3.2"], "found", None),
    ("reports 5.1, and the routing of Algorithm 1 uses Eq. (3)", ["§4"], "found", None),
    # markup, symbols and typography
    ("m⁺ = 0.9, m⁻ = 0.1 and λ = 0.5", ["§3.2"], "found", None),
    ("non-iterative and runs in a single pass", ["§1"], "found", None),
    ("Tiny-CapsNet routes once", ["§1"], "found", None),  # a macro defined in the preamble
    ("NON–ITERATIVE and runs", ["§1"], "found", None),
    ("2% of the original model", ["p. 1"], "found", None),
    ("2\\% of the original model", ["p. 1"], "found", None),
    ("barely 160K parameters", ["p. 3"], "uncheckable", None),
    ("barely 160K parameters", ["§1"], "elsewhere", None),
    ("route by agreement.", ["§1"], "found", None),
    ("route by agreement~\\cite{sabour2017}.", ["§1"], "found", None),
    ("100 epochs with a batch size of 16", ["§3.1"], "found", None),
    # appendix, algorithm, figure
    ("The squash keeps the direction of s", ["app. A"], "found", None),
    ("The squash keeps the direction of s", ["§1"], "elsewhere", "app. A.1"),
    ("compute the agreement A_ij of every pair", ["alg. 1"], "found", None),
    ("four convolutions, then primary capsules", ["fig. 1"], "found", None),
    ("Architecture overview", ["§3.2"], "found", None),
    # not in the paper: comments are not text, and neither is a misquote
    ("not tab. 9", ["p. 1"], "not-found", None),
    ("barely 161K parameters", ["p. 1"], "not-found", None),
    ("Ours 0.26 161", ["tab. 1"], "not-found", None),
]


@pytest.mark.parametrize(("quote", "locators", "state", "suggestion"), QUOTES)
def test_quote_table(
    fixture_index: SourceIndex, quote: str, locators: list[str], state: str,
    suggestion: str | None,
) -> None:
    check = check_quote(fixture_index, quote, [parse_locator(text) for text in locators])
    assert check.state.value == state, check.message
    if suggestion is not None:
        assert check.suggestion == suggestion
        assert suggestion in check.message


def test_the_tables_have_at_least_forty_cases() -> None:
    assert len(PRESENT) + len(MISSING) + len(QUOTES) >= 40
    assert len(QUOTES) >= 40


def test_without_a_source_the_quote_is_not_checked() -> None:
    check = check_quote(None, "anything", [parse_locator("§1")], "not cached")
    assert check.state is QuoteState.NO_SOURCE
    assert "not cached" in check.message


# --- numbering rules beyond the fixture paper -----------------------------------------------

def _index(body: str, preamble: str = "") -> SourceIndex:
    document = (f"\\documentclass{{article}}{preamble}\n\\begin{{document}}\n{body}\n"
                "\\end{document}\n")
    return SourceIndex.from_project(LatexProject({"paper.tex": document}))


NUMBERING = [
    ("\\section{A}\\begin{equation}a\\end{equation}\\section{B}\\begin{equation}b\\end{equation}",
     "\\numberwithin{equation}{section}", "b", "eq. 2.1"),
    ("\\begin{gather}a\\\\b\\end{gather}", "", "b", "eq. 2"),
    ("\\begin{eqnarray}a&=&1\\\\b&=&2\\end{eqnarray}", "", "b=2", "eq. 2"),
    ("\\begin{multline}a\\\\b\\end{multline}\\begin{equation}c\\end{equation}", "", "c",
     "eq. 2"),
    ("\\begin{equation}a\\end{equation}\\begin{subequations}\\begin{align}b\\\\c\\end{align}"
     "\\end{subequations}\\begin{equation}d\\end{equation}", "", "d", "eq. 3"),
    ("\\begin{equation*}a\\tag{4}\\end{equation*}", "", "a", "eq. 4"),
    ("\\begin{equation}a\\notag\\end{equation}\\begin{equation}b\\end{equation}", "", "b",
     "eq. 1"),
    ("$$a$$\\begin{equation}b\\end{equation}", "", "b", "eq. 1"),
    ("\\begin{figure}\\begin{subfigure}{x}\\caption{s}\\end{subfigure}\\caption{main}"
     "\\end{figure}\\begin{figure}\\caption{two}\\end{figure}", "", "two", "fig. 2"),
    ("\\section{A}\\subsection{B}\\subsubsection{C}text", "", "text", "§1.1.1"),
    ("\\section{A}\\appendix\\section{B}\\subsection{C}text", "", "text", "app. A.1"),
    ("\\begin{table}\\caption{t}\\end{table}\\begin{table*}\\caption{u}\\end{table*}", "", "u",
     "tab. 2"),
]


@pytest.mark.parametrize(("body", "preamble", "quote", "locator"), NUMBERING)
def test_numbering_rules(body: str, preamble: str, quote: str, locator: str) -> None:
    index = _index(body, preamble)
    check = check_quote(index, quote, [parse_locator(locator)])
    assert check.state is QuoteState.FOUND, (check.message, [
        (r.kind, r.number) for r in index.regions])


def test_canonical_offsets_point_back_into_the_text() -> None:
    text = "We have 161{,}824\n parameters."
    found = canonical(text).find_all(canonical("161,824 parameters").text)
    assert found == [(8, len(text) - 1)]
