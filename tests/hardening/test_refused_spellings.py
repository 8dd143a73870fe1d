"""Refused sources are recognised however a card spells them (issue 33 item 3, second red-team).

The first fix undid YAML escapes, URL encoding, HTML entities, NFKC and case. A fresh red-team
spelt the same sources in ways a browser or a reader still takes for the refused one: another
scheme (``http``, ``git@host:``), ``www.``, a default port, a host's trailing dot, ``//`` and
``/./`` in the path, invisible characters (zero-width space, soft hyphen, word joiner), Cyrillic
and Greek look-alike letters, Markdown backslash escapes, an HTML tag inside the address,
backslashes for slashes, and a refused entry configured with a trailing ``/`` or ``.git``
(:mod:`claimcheck.authoring.refused_spelling`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.authoring.refused_spelling import appears, comparable, needle
from claimcheck.cli.main import main
from tests.engine.conftest import PYPROJECT, claim, paper_card, write_project

CASES = {
    # (refused, written)
    "trailing slash on refused": ("https://copies.example/papers/", "https://copies.example/papers"),
    "git suffix on refused": ("https://github.com/evil/copy.git", "https://github.com/evil/copy"),
    "git suffix on card": ("https://github.com/evil/copy", "https://github.com/evil/copy.git"),
    "http vs https": ("https://github.com/evil/copy", "http://github.com/evil/copy"),
    "ssh form": ("https://github.com/evil/copy", "git@github.com:evil/copy.git"),
    "www": ("https://github.com/evil/copy", "https://www.github.com/evil/copy"),
    "default port": ("https://copies.example/paper.pdf", "https://copies.example:443/paper.pdf"),
    "zero width space": ("https://copies.example/paper.pdf", "https://copies\u200b.example/paper.pdf"),
    "soft hyphen": ("https://copies.example/paper.pdf", "https://cop\u00adies.example/paper.pdf"),
    "word joiner": ("https://copies.example/paper.pdf", "https://copies.exa\u2060mple/paper.pdf"),
    "cyrillic o": ("https://copies.example/paper.pdf", "https://c\u043epies.example/paper.pdf"),
    "cyrillic a e p": ("https://copies.example/paper.pdf", "https://copies.ex\u0430mple/\u0440\u0430p\u0435r.pdf"),
    "greek omicron": ("https://copies.example/paper.pdf", "https://c\u03bfpies.example/paper.pdf"),
    "markdown escapes": ("https://copies.example/paper_v1.pdf", "https://copies\\.example/paper\\_v1\\.pdf"),
    "html tag inside": ("https://copies.example/paper.pdf", "https://copies.example/pa<span></span>per.pdf"),
    "mixed entity then percent": ("https://copies.example/paper.pdf",
                                  "https:&#x25;2F&#x25;2Fcopies.example/paper.pdf"),
    "percent of letters": ("https://copies.example/paper.pdf", "https://%63opies.example/paper.pdf"),
    "yaml hex of letter mixed case": ("https://copies.example/paper.pdf", '"https://\\x63OPIES.example/paper.pdf"'),
    "dot trailing host": ("https://copies.example/paper.pdf", "https://copies.example./paper.pdf"),
    "double slash path": ("https://copies.example/a/paper.pdf", "https://copies.example//a//paper.pdf"),
    "dot segment": ("https://copies.example/a/paper.pdf", "https://copies.example/a/./paper.pdf"),
    "html named entity": ("https://copies.example/paper.pdf",
                          "https&colon;//copies&period;example/paper&period;pdf"),
    "markdown link split": ("https://copies.example/paper.pdf", "[copy](https://copies.example/paper.pdf)"),
    "uppercase refused config": ("HTTPS://Copies.Example/Paper.pdf", "https://copies.example/paper.pdf"),
    "nfkd decomposed accent": ("https://copies.example/papér.pdf", "https://copies.example/pape\u0301r.pdf"),
    "tab inside": ("https://copies.example/paper.pdf", "https://copies.example/\tpaper.pdf"),
    "backslash path": ("https://copies.example/paper.pdf", "https:\\\\copies.example\\paper.pdf"),
    # third red team (rt33): IDNA dots and ignored characters, comments, YAML escapes, ports
    "ideographic full stop": ("https://copies.example/paper.pdf", "https://copies\u3002example/paper.pdf"),
    "halfwidth ideographic full stop": ("https://copies.example/paper.pdf", "https://copies\uff61example/paper.pdf"),
    "fullwidth full stop": ("https://copies.example/paper.pdf", "https://copies\uff0eexample/paper.pdf"),
    "combining grapheme joiner": ("https://copies.example/paper.pdf", "https://cop\u034fies.example/paper.pdf"),
    "variation selector": ("https://copies.example/paper.pdf", "https://cop\ufe0fies.example/paper.pdf"),
    "variation selector supplement": ("https://copies.example/paper.pdf", "https://cop\U000e0100ies.example/paper.pdf"),
    "zero width joiner": ("https://copies.example/paper.pdf", "https://co\u200dpies.example/paper.pdf"),
    "mongolian selector": ("https://copies.example/paper.pdf", "https://cop\u180bies.example/paper.pdf"),
    "html comment inside": ("https://copies.example/paper.pdf",
                            "https://cop<!-- x -->ies.example/paper.pdf"),
    "inside an html comment": ("https://copies.example/paper.pdf",
                               "<!-- https://copies.example/paper.pdf -->"),
    "yaml tab escape": ("https://copies.example/paper.pdf", '"https://cop\\ties.example/paper.pdf"'),
    "yaml nul bell escape": ("https://copies.example/paper.pdf", '"https://co\\0pi\\aes.example/paper.pdf"'),
    "yaml line escapes": ("https://copies.example/paper.pdf", '"https://co\\Npi\\Les\\P.example/paper.pdf"'),
    "yaml esc escape": ("https://copies.example/paper.pdf", '"https://cop\\eies.example/paper.pdf"'),
    "yaml long escape": ("https://copies.example/paper.pdf", '"https://copies\\U0000002Eexample/paper.pdf"'),
    "yaml vertical tab form feed": ("https://copies.example/paper.pdf", '"https://co\\vpi\\fes.example/paper.pdf"'),
    "port with zeros": ("https://copies.example/paper.pdf", "https://copies.example:0443/paper.pdf"),
    "port 80 with zeros": ("https://copies.example/paper.pdf", "http://copies.example:00080/paper.pdf"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_respelt_refused_source_is_still_recognised(case: str) -> None:
    refused, written = CASES[case]
    assert appears(needle(refused), comparable(f"Read from {written} today"))


@pytest.mark.parametrize("written", [
    "https://copies.example/another.pdf", "https://github.com/good/copy",
    "https://arxiv.org/abs/1710.09829", "copies example paper pdf",
])
def test_other_sources_are_not_refused(written: str) -> None:
    for refused in ("https://copies.example/paper.pdf", "https://github.com/evil/copy.git"):
        assert not appears(needle(refused), comparable(f"Read from {written}"))


def test_lint_refuses_a_lookalike_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    arxiv = "2101.00017"
    claims = [claim("c1", "tinymodels.checks:holds", {"holds": True})]
    root = write_project(tmp_path / "project", {arxiv: claims})
    (root / "pyproject.toml").write_text(
        PYPROJECT + 'refused_sources = ["https://github.com/evil/copy.git"]\n', encoding="utf-8")
    (root / "wiki" / "papers" / "paper-0.md").write_text(
        paper_card(arxiv, "paper-0", claims)
        + "\nRead from http://www.g\u0456thub.com/evil/c\u200bopy/\n", encoding="utf-8")
    monkeypatch.chdir(root)
    assert main(["lint", "wiki"]) == 1
    assert "is a refused source" in capsys.readouterr().out


def test_lint_refuses_a_source_spelt_through_a_decoded_yaml_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``\\_`` is YAML's no-break space (white space to a reader) but Markdown's ``_`` on a raw
    line: the value as YAML decodes it is matched too, at its own line."""
    arxiv = "2101.00017"
    claims = [claim("c1", "tinymodels.checks:holds", {"holds": True})]
    root = write_project(tmp_path / "project", {arxiv: claims})
    (root / "pyproject.toml").write_text(
        PYPROJECT + 'refused_sources = ["https://copies.example/paper.pdf"]\n', encoding="utf-8")
    card = paper_card(arxiv, "paper-0", claims).replace(
        "\n", '\nsummary: "From https://cop\\_ies.example/paper.pdf"\n', 1)
    path = root / "wiki" / "papers" / "paper-0.md"
    path.write_text(card, encoding="utf-8")
    monkeypatch.chdir(root)
    assert main(["lint", "wiki"]) == 1
    out = capsys.readouterr().out
    assert "wiki/papers/paper-0.md:2:" in out and "is a refused source" in out, out
