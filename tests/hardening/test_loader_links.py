"""A link inside a data folder is never followed by the weight loader (issue 33 item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.data.weight_files import FILES, SUBFOLDER, find_weights

PRESET = sorted(FILES)[0]


@pytest.mark.parametrize("where", ["file", "folder"])
def test_a_linked_weight_file_or_folder_is_refused(tmp_path: Path, where: str) -> None:
    data, outside = tmp_path / "data", tmp_path / "outside"
    outside.mkdir()
    (outside / FILES[PRESET].name).write_bytes(b"the operator's file")
    if where == "file":
        (data / SUBFOLDER).mkdir(parents=True)
        (data / SUBFOLDER / FILES[PRESET].name).symlink_to(outside / FILES[PRESET].name)
    else:
        data.mkdir()
        (data / SUBFOLDER).symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError, match="symbolic link"):
        find_weights(PRESET, data)


def test_a_regular_weight_file_is_still_read_and_verified(tmp_path: Path) -> None:
    (tmp_path / SUBFOLDER).mkdir()
    (tmp_path / SUBFOLDER / FILES[PRESET].name).write_bytes(b"not the official file")
    with pytest.raises(ValueError, match="is not the official"):
        find_weights(PRESET, tmp_path)
