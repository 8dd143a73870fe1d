"""The Markdown report publishes stored fields as text: a result is untrusted input.

``claimcheck report`` (Markdown, the default) wrote a stored ``tier`` and the run date made from
a stored ``timestamp`` into its tables as they were, so a pull request that edits a result file
put raw HTML (a ``<script>``, an ``<img>`` loading another host) or a table-breaking ``|`` into
a report that GitHub, MkDocs or any Markdown renderer shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project

CHECKS = '''
@claim_check
def ok(ctx):
    return Evidence(measured=True)
'''
PAYLOAD = '<script>alert(1)</script><img src="https://evil.example/p.png"> | x'


@pytest.mark.parametrize("field", ["tier", "timestamp", "budget", "fidelity"])
def test_markdown_report_escapes_every_stored_field(tmp_path: Path, field: str) -> None:
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    assert cli(root, "verify", "wiki", "--device", "cpu").returncode == 0
    path = root / ".claimcheck" / "results" / f"{ARXIV}__c1.json"
    stored = json.loads(path.read_text("utf-8"))
    stored[field] = PAYLOAD
    path.write_text(json.dumps(stored), encoding="utf-8")
    done = cli(root, "report", "wiki")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "<script" not in done.stdout and "<img" not in done.stdout
    for line in done.stdout.splitlines():
        if line.startswith("| `c1`"):
            assert line.count(" | ") == 8, line  # nine cells: the payload's | is escaped
