"""Bidirectional control characters ("Trojan Source") are refused in cards and plain pages.

An override (U+202E) in a title, statement or quote makes the site show text in another order
than the one lint, ``status`` and a reviewer of the pull request read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.site.sanitize import clean_fragment, clean_page_html, clean_text
from tests.hardening.hostile_project import claim, cli, hostile_project

CHECKS = '''
@claim_check
def ok(ctx):
    return Evidence(measured=True)
'''


def _planted(tmp_path: Path, where: str, written: str) -> tuple[Path, str, str]:
    """A project with ``written`` as the card's title line, a line of its body or of a plain
    page; the project, and the file and line lint must name."""
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    card = root / "wiki" / "papers" / "paper-0.md"
    text = card.read_text("utf-8")
    if where == "title":
        card.write_text(text.replace("title: Paper paper-0", written))
        return root, "wiki/papers/paper-0.md", "5"
    if where == "body":
        card.write_text(text + f"\n{written}\n")
        return root, "wiki/papers/paper-0.md", str(text.count("\n") + 2)
    (root / "wiki" / "notes.md").write_text(f"# Notes\n\n{written}\n")
    return root, "wiki/notes.md", "3"


@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2069"])
@pytest.mark.parametrize("where", ["title", "body", "page"])
def test_bidi_controls_are_located_errors(tmp_path: Path, char: str, where: str) -> None:
    written = {"title": f"title: Paper {char}gnp.exe", "body": f"A note {char}reversed.",
               "page": f"See {char}here."}[where]
    root, shown, line = _planted(tmp_path, where, written)
    done = cli(root, "lint", "wiki")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{shown}:{line}:" in done.stdout
    assert f"bidirectional control character U+{ord(char):04X}" in done.stdout


@pytest.mark.parametrize("name", ["\u202egnp.md", "a\nb.md", "d\u2066ir/x.md", "tab\there.md"])
def test_wiki_names_with_control_characters_are_refused(tmp_path: Path, name: str) -> None:
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    path = root / "wiki" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# A page\n", encoding="utf-8")
    done = cli(root, "lint", "wiki")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "a name holding the control character U+" in done.stdout
    assert all(line.startswith("wiki/") for line in done.stdout.splitlines()), done.stdout


@pytest.mark.parametrize(("written", "where", "said"), [
    ('title: "Paper \\u202Egnp.exe"', "title", "bidirectional control character U+202E (as a "
     "YAML escape)"),
    ('title: "Paper \\e[2J"', "title", "control character U+001B (as a YAML escape)"),
    ("title: Paper &#x202E;gnp.exe", "title", "U+202E (as the HTML entity &#x202E;)"),
    ("A note &#8238;reversed.", "body", "U+202E (as the HTML entity &#8238;)"),
    ("A note &#x1b;[2J.", "body", "control character U+001B (as the HTML entity &#x1b;)"),
    ("See &#x2066here.", "page", "U+2066 (as the HTML entity &#x2066)"),
])
def test_controls_written_as_escapes_or_entities_are_located_errors(
        tmp_path: Path, written: str, where: str, said: str) -> None:
    """rt33 O4/O5: the raw-text check missed a control that YAML or HTML decodes."""
    root, shown, line = _planted(tmp_path, where, written)
    done = cli(root, "lint", "wiki")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{shown}:{line}:" in done.stdout and said in done.stdout, done.stdout
    verified = cli(root, "verify", "wiki", "--device", "cpu")
    assert verified.returncode != 0 and said in verified.stdout + verified.stderr


@pytest.mark.parametrize("text", ["a\u202eb", "a&#x202E;b", "a&#8238b", "a\x1b[2Jb", "a&#27;b",
                                  "a\u2066b&#x2069;", "a\x9bb"])
def test_the_site_strips_controls_from_pages_titles_and_text(text: str) -> None:
    for cleaned in (clean_page_html(f"<p>{text}</p>"), clean_fragment(text), clean_text(text)):
        assert "a" in cleaned and "b" in cleaned
        for bad in ("\u202e", "\u2066", "\u2069", "\x1b", "\x9b", "&#x202E", "&#8238", "&#27",
                    "&#x2069"):
            assert bad not in cleaned, (text, cleaned)


def test_the_site_keeps_tabs_line_feeds_and_other_entities() -> None:
    assert clean_fragment("a\tb\nc &#47; &amp; &#x41;") == "a\tb\nc / &amp; A"
