"""Fixtures of the site tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


@pytest.fixture
def update_goldens() -> bool:
    """Set CLAIMCHECK_UPDATE_GOLDENS=1 to rewrite tests/site/golden/ after a deliberate change."""
    return os.environ.get("CLAIMCHECK_UPDATE_GOLDENS") == "1"


@pytest.fixture
def repo_root() -> Path:
    """The repository root (where mkdocs.yml lives)."""
    return Path(__file__).resolve().parents[2]
