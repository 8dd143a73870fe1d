"""The power store is committed, untrusted input: a link, a folder or a malformed entry where a
power file belongs reads as "not run" with a warning, and nothing is written through a link."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from claimcheck.store.power_results import PowerStore, VariantRun
from claimcheck.store.results import StoreWarning

CLAIM = "2101.00023/a"
RUN = VariantRun(reference="tinymodels.variants.scale:wrong_factor", fingerprint="f",
                 verdict="contradicted", reason="measured 9, expected 6", measured=9.0,
                 fidelity="exact", details="", error=None, budget="smoke", duration_s=0.1,
                 timestamp="2026-12-02T06:00:00+00:00")


def test_round_trip(tmp_path: Path) -> None:
    store = PowerStore(tmp_path)
    store.write(CLAIM, {"wrong-factor": RUN})
    assert store.read(CLAIM) == {"wrong-factor": RUN}
    matrix = replace(RUN, base_measured=6.0, called="tinymodels.scale.scale", reach="listed")
    store.write(CLAIM, {"wrong-factor": matrix}, {"other-halved": "f2"})
    assert store.read_file(CLAIM) == ({"wrong-factor": matrix}, {"other-halved": "f2"})


def test_a_run_without_a_measurement_is_never_current() -> None:
    assert RUN.current
    assert not replace(RUN, measured=None, raised=True).current  # retried next time
    assert replace(RUN, measured=None, called="x.y").current  # not self-contained stands


@pytest.mark.parametrize("content", [
    "{broken", "[]", json.dumps({"claim": "other/b", "variants": {}}),
    json.dumps({"claim": CLAIM, "variants": {"x": {"verdict": "great"}}}),
    json.dumps({"claim": CLAIM, "variants": {"x": {**RUN.to_json(), "duration_s": "slow"}}}),
    json.dumps({"claim": CLAIM, "variants": {}, "unreached": {"x": 3}}),
    json.dumps({"claim": CLAIM, "variants": {"x": {**RUN.to_json(), "called": 1}}}),
])
def test_malformed_files_read_as_not_run(tmp_path: Path, content: str) -> None:
    store = PowerStore(tmp_path)
    store.folder.mkdir(parents=True)
    store.path_of(CLAIM).write_text(content)
    with pytest.warns(StoreWarning):
        assert store.read(CLAIM) == {}


def test_a_linked_entry_is_neither_read_nor_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    PowerStore(tmp_path / "elsewhere").write(CLAIM, {"wrong-factor": RUN})
    outside.write_text((tmp_path / "elsewhere" / "power" / "2101.00023__a.json").read_text())
    before = outside.read_text()
    store = PowerStore(tmp_path / "store")
    store.folder.mkdir(parents=True)
    os.symlink(outside, store.path_of(CLAIM))
    with pytest.warns(StoreWarning):
        assert store.read(CLAIM) == {}
    store.write(CLAIM, {"other": RUN})
    assert outside.read_text() == before
    assert not store.path_of(CLAIM).is_symlink()


def test_a_linked_folder_is_not_written_through(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    store = PowerStore(tmp_path / "store")
    store.folder.parent.mkdir()
    os.symlink(target, store.folder)
    with pytest.raises(Exception, match="power"):
        store.write(CLAIM, {"wrong-factor": RUN})
    assert list(target.iterdir()) == []
