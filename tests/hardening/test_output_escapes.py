"""Stored text reaches a terminal or a CI runner inert (issue 33, "Output is safe").

A result file is written by whoever commits it. Its ``reason``, ``details`` or ``error`` holding
``ESC [ 2 J`` (clear the screen), an OSC 8 hyperlink, a carriage return that overwrites the line
or a line break followed by ``::error ...`` reached ``status``, ``verify`` and the GitHub
annotations raw. Every sink now shows each control character escaped
(:mod:`claimcheck.core.visible`); the Markdown report's code spans hold any backticks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import markdown
import pytest

from claimcheck.reports.markdown import code_span
from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project

CHECKS = '''
@claim_check
def ok(ctx):
    return Evidence(measured=True)
'''
PAYLOADS = {
    "clear screen": "\x1b[2J\x1b[H",
    "OSC 8 link": "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07",
    "carriage return": "innocent\rverified",
    "forged annotation": "x\n::error file=README.md,line=1::forged",
    "C1 CSI": "\x9b31m",
    "bidi override": "\u202eevil",
    "rich markup": "[link=https://evil.example]x[/link]",
}
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_stored_text_is_printed_with_its_control_characters_visible(tmp_path: Path) -> None:
    """Every payload at once in the stored reason and error; each command and format prints
    them escaped (a carriage return or a line break may also be folded into a space)."""
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    path = root / ".claimcheck" / "results" / f"{ARXIV}__c1.json"
    stored = json.loads(path.read_text("utf-8"))
    payload = " ".join(PAYLOADS.values())
    stored.update(verdict="unverified", reason=f"reason {payload}", measured=None)
    for args in (["status", "wiki"], ["status", "wiki", "--format", "github"],
                 ["verify", "wiki", "--device", "cpu", "--format", "github"],
                 ["verify", "wiki", "--device", "cpu", "--format", "junit"],
                 ["verify", "wiki", "--device", "cpu", "--format", "text", "--debug"]):
        # an errored result is re-run by verify (never current), so verify is shown a stored
        # unverified one whose reason carries the payload; status, the error as well
        error = f"error {payload}" if args[0] == "status" else None
        path.write_text(json.dumps({**stored, "error": error}), encoding="utf-8")
        done = cli(root, *args)
        said = done.stdout + done.stderr
        assert "Traceback" not in said, said
        assert not RAW.search(said.replace("\n", "")), (args, said)
        assert not any(line.startswith("::error file=README") for line in said.splitlines())
        for shown in ("\\x1b[2J", "\\x1b]8;;https://evil.example\\x07", "\\x9b31m",
                      "\\u202eevil"):
            assert shown in said, (args, shown, said)


def test_a_github_annotation_cannot_be_split_by_a_stored_line_break() -> None:
    from claimcheck.reports.formats import github_command

    line = github_command("warning", "wiki/a\r.md", 3, "x\n::error::forged\x1b[1m")
    assert "\n" not in line and "\r" not in line and "\x1b" not in line
    assert line.startswith("::warning file=wiki/a\\r.md,line=3::x\\n::error::forged\\x1b[1m")


@pytest.mark.parametrize("text", ["10.1234/a`b`", "``x``", "`", "a|b", "x```y"])
def test_a_code_span_holds_any_backticks(text: str) -> None:
    html = markdown.markdown(f"- {code_span(text)}: after")
    assert f"<code>{text}</code>: after" in html.replace("&lt;", "<")
