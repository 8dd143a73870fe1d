"""The Markdown report shows stored control characters escaped (issue 33 item 5, fresh red-team).

``status``, ``verify`` and ``lint`` escaped every control, escape and bidi character of stored
text, but ``claimcheck report`` wrote a stored ``measured`` or ``tier`` holding an OSC 8 link, a
C1 CSI or a bidi override into its Markdown raw, to a terminal (stdout) or a published file. Its
cell escaping (:func:`claimcheck.site.report.escape_markdown`) and its stdout now apply
:func:`claimcheck.core.visible.visible`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claimcheck.site.report import escape_markdown
from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project

PAYLOAD = "A\x1b]8;;https://e.x\x07L\x1b]8;;\x07\x9b31m\u202eR\u2066\x85N\x1bPq\x1b\\\x7fZ"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
CHECKS = '''
@claim_check
def ok(ctx):
    return Evidence(measured=True)
'''


@pytest.mark.parametrize("text", [PAYLOAD, "\u200f\u061cx", "a\u2028b"])
def test_a_report_cell_holds_no_control_character(text: str) -> None:
    cell = escape_markdown(text)
    assert not RAW.search(cell) and "\u200f" not in cell and "\u2028" not in cell, cell


def test_the_report_shows_stored_fields_escaped(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    path = root / ".claimcheck" / "results" / f"{ARXIV}__c1.json"
    stored = json.loads(path.read_text("utf-8"))
    stored.update(measured=PAYLOAD, tier=PAYLOAD, verdict="unverified", reason=PAYLOAD)
    path.write_text(json.dumps(stored), encoding="utf-8")
    for args in (["report", "wiki"], ["report", "wiki", "--format", "html"]):
        done = cli(root, *args)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert not RAW.search(done.stdout.replace("\n", "")), args
