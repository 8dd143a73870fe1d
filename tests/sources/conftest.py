"""The fixture paper (``fixture_paper/``: a LaTeX project written for these tests) and helpers."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from claimcheck.sources.latex import LatexProject
from claimcheck.sources.quotes import SourceIndex

FIXTURE = Path(__file__).parent / "fixture_paper"


def fixture_project() -> LatexProject:
    """The fixture paper's ``.tex`` files, as the e-print reader would return them."""
    return LatexProject({
        path.relative_to(FIXTURE).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(FIXTURE.rglob("*.tex"))
    })


def fixture_eprint() -> bytes:
    """The fixture paper packed as arXiv packs an e-print: a gzipped tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in sorted(FIXTURE.rglob("*")):
            if path.is_file():
                info = archive.gettarinfo(str(path), arcname=path.relative_to(FIXTURE).as_posix())
                info.mtime = 0
                with path.open("rb") as handle:
                    archive.addfile(info, handle)
    return buffer.getvalue()


@pytest.fixture(scope="session")
def fixture_index() -> SourceIndex:
    """The locator index of the fixture paper."""
    return SourceIndex.from_project(fixture_project())
