"""A sources cache committed inside the project is untrusted like the results store (issue 22
§1): a linked blob, record or folder is never read or written through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimcheck.cards.frontmatter import SourceKind
from claimcheck.core.safe_fs import UnsafeEntry
from claimcheck.sources.cache import SourceCache, paper_stem, sha256_of

SECRET = b"the operator's file\n"


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "source-cache" / "blobs").mkdir(parents=True)
    (project / "source-cache" / "papers").mkdir()
    outside.mkdir()
    (outside / "secret").write_bytes(SECRET)
    return project, outside


def test_linked_blobs_and_records_read_as_missing(place: tuple[Path, Path]) -> None:
    project, outside = place
    cache = SourceCache(project / "source-cache", project)
    (project / "source-cache" / "blobs" / ("0" * 64)).symlink_to("/dev/zero")
    (project / "source-cache" / "blobs" / sha256_of(SECRET)).symlink_to(outside / "secret")
    os.mkfifo(project / "source-cache" / "blobs" / ("1" * 64))
    (project / "source-cache" / "papers" / f"{paper_stem('2101.00001')}.json").symlink_to(
        outside / "secret")
    assert cache.blob("0" * 64) is None
    assert cache.blob(sha256_of(SECRET)) is None
    assert cache.blob("1" * 64) is None
    assert cache.blob("../../outside/secret") is None
    assert cache.record("2101.00001") == {}


def test_a_linked_cache_folder_is_never_written_through(place: tuple[Path, Path]) -> None:
    project, outside = place
    (project / "linked").symlink_to(outside, target_is_directory=True)
    cache = SourceCache(project / "linked", project)
    with pytest.raises(UnsafeEntry, match="symbolic link"):
        cache.store("2101.00001", 1, SourceKind.LATEX, "https://example.org/x", b"source")
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (outside / "secret").read_bytes() == SECRET
