"""Stdout corruption (issue 12 §2): what a check prints never reaches verify's own output.

A check that prints to ``sys.stdout``, ``sys.stderr`` and straight to file descriptors 1 and 2
(as C extensions and subprocesses do) must leave ``verify --format json|junit|github`` parseable;
what it printed is kept, bounded, in the result's details.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from tests.hardening.hostile_project import claim, cli, hostile_project, stored
from tests.strictjson import loads_strict

CHECKS = '''
@claim_check
def chatty(ctx):
    print("hello from print")
    print("hello from stderr", file=sys.stderr)
    os.write(1, b"hello from fd 1\\n")
    os.write(2, b"hello from fd 2\\n")
    subprocess.run(["echo", "hello from a subprocess"], check=True)
    return Evidence(measured=True, details="measured")


@claim_check
def flood(ctx):
    for line in range(200_000):
        print(f"line {line} of a flood")
    return Evidence(measured=True)
'''


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_project(tmp_path_factory.mktemp("output"), [
        claim("chatty", "tinymodels.hostile:chatty", {"holds": True}),
        claim("flood", "tinymodels.hostile:flood", {"holds": True}),
    ], CHECKS)


@pytest.mark.parametrize("style", ["json", "junit", "github"])
def test_reports_stay_parseable_when_a_check_prints(root: Path, style: str) -> None:
    done = cli(root, "verify", "wiki", "--device", "cpu", "--force", "--format", style)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not any(line.startswith(("hello", "line ")) for line in done.stdout.splitlines())
    if style == "json":
        assert {row["verdict"] for row in loads_strict(done.stdout)} == {"verified"}
    elif style == "junit":
        suite = ElementTree.fromstring(done.stdout.split("\n", 1)[1])
        assert suite.get("tests") == "2" and suite.get("failures") == "0"
    else:
        assert done.stdout == ""


def test_what_a_check_printed_is_kept_bounded(root: Path) -> None:
    cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
    details = stored(root, "chatty")["details"]
    assert details.startswith("measured")
    for text in ("hello from print", "hello from stderr", "hello from fd 1", "hello from fd 2",
                 "hello from a subprocess"):
        assert text in details
    flood = stored(root, "flood")["details"]
    assert "line 0 of a flood" in flood and "line 199999 of a flood" in flood
    assert "of output cut" in flood and len(flood) < 10_000
