"""The trust boundary's message comes first among refusals (issue 33 item 5).

A function a card names (``factory:``, ``trainer:``, ``a:``/``b:``) spelt like a path
(``tinymodels/nets.py:tiny``, ``../tinymodels.nets:tiny``) was refused by the data-roots rule
("lies outside every configured data root"), which hid what was really wrong: a card named a
function the boundary does not accept. Such a value is a capability, judged by the boundary.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening.hostile_project import claim, cli, hostile_project, verify_rows


@pytest.mark.parametrize("spelling", ["tinymodels/nets.py:tiny", "../tinymodels.nets:tiny",
                                      "~/tinymodels.nets:tiny", "tinymodels\\nets:tiny"])
def test_a_capability_spelt_like_a_path_is_refused_by_the_trust_boundary(
    tmp_path: Path, spelling: str
) -> None:
    root = hostile_project(tmp_path, [
        claim("p", "params", {"at_least": 1}, args={"factory": spelling})], "")
    _, rows = verify_rows(root)
    reason = rows["p"]["reason"]
    assert "data root" not in reason and "a card may name only public functions" in reason, reason
    linted = cli(root, "lint", "wiki").stdout
    assert "data root" not in linted and reason in linted.replace("\n", " "), linted
