"""Bidirectional control characters ("Trojan Source") are refused in cards and plain pages.

An override (U+202E) in a title, statement or quote makes the site show text in another order
than the one lint, ``status`` and a reviewer of the pull request read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening.hostile_project import claim, cli, hostile_project

CHECKS = '''
@claim_check
def ok(ctx):
    return Evidence(measured=True)
'''


@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2069"])
@pytest.mark.parametrize("where", ["title", "body", "page"])
def test_bidi_controls_are_located_errors(tmp_path: Path, char: str, where: str) -> None:
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    card = root / "wiki" / "papers" / "paper-0.md"
    text = card.read_text("utf-8")
    if where == "title":
        card.write_text(text.replace("title: Paper paper-0", f"title: Paper {char}gnp.exe"))
        shown, line = "wiki/papers/paper-0.md", "5"
    elif where == "body":
        card.write_text(text + f"\nA note {char}reversed.\n")
        shown, line = "wiki/papers/paper-0.md", str(text.count("\n") + 2)
    else:
        (root / "wiki" / "notes.md").write_text(f"# Notes\n\nSee {char}here.\n")
        shown, line = "wiki/notes.md", "3"
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
