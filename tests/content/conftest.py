"""Fixtures for the wiki's custom checks: a CheckContext that needs no engine run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from claimcheck.checks.api import CheckContext
from claimcheck.core.config import load_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def make_ctx(tmp_path: Path) -> Callable[..., CheckContext]:
    """``make_ctx(args={...}, seed=0)`` -> a CPU context at the smoke budget."""

    def make(args: Mapping[str, Any] | None = None, seed: int = 0) -> CheckContext:
        return CheckContext(
            args=dict(args or {}),
            device="cpu",
            budget="smoke",
            seed=seed,
            scratch=tmp_path,
            root=ROOT,
            config=load_config(ROOT),
        )

    return make
