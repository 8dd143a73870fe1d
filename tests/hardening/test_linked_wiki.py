"""A wiki folder committed as a link out of the project is refused, however it is named.

``claimcheck lint`` (no argument) and the site refused ``wiki -> /elsewhere``, but ``lint wiki``,
``status wiki`` and ``verify wiki`` looked for the project above the link's target: the cards
outside were read, and run, under default settings (the site's refusal is tested in
``tests/site/test_site_hostile.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hardening.hostile_project import claim, cli, hostile_project

CHECKS = '''
@claim_check
def ok(ctx):
    return Evidence(measured=True)
'''
REFUSED = "the wiki folder is a symbolic link that leaves the project"


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    root = hostile_project(tmp_path, [claim("c1", "tinymodels.hostile:ok", {"holds": True})],
                           CHECKS)
    outside = tmp_path / "outside-wiki"
    shutil.move(root / "wiki", outside)
    (root / "wiki").symlink_to(outside, target_is_directory=True)
    return root


@pytest.mark.parametrize("command", [("lint", "wiki"), ("status", "wiki"),
                                     ("verify", "wiki", "--device", "cpu")])
def test_commands_refuse_a_wiki_linked_out_of_the_project(
    linked: Path, command: tuple[str, ...]
) -> None:
    done = cli(linked, *command)
    assert done.returncode == (1 if command[0] == "lint" else 2), done.stdout + done.stderr
    assert REFUSED in done.stdout + done.stderr and "Traceback" not in done.stderr
    assert not (linked / ".claimcheck").exists()
