"""The ``compile`` spec key: each seed's model is compiled in place before it trains, and the
result says so; without the key nothing is compiled."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import torch

from models.training.run import run_training

pytestmark = pytest.mark.slow

# One optimiser step per network: the test counts the networks compiled, not what they learn.
TINY = {"model": "efficient_capsnet", "preset": "mnist", "dataset": "mnist-5k",
        "train_size": 16, "eval_size": 10, "epochs": 1, "seeds": 2}


def _context() -> Any:
    return SimpleNamespace(budget="smoke", device="cpu", seed=0, progress=lambda m, f: None)


@pytest.mark.parametrize("requested", [True, False])
def test_compile_compiles_each_seed_in_place(monkeypatch: pytest.MonkeyPatch,
                                             requested: bool) -> None:
    compiled: list[str] = []

    def record(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
        compiled.append(type(self).__name__)  # stands in for the minute a real compile takes

    monkeypatch.setattr(torch.nn.Module, "compile", record)
    spec = {**TINY, "compile": True} if requested else TINY
    result = run_training(spec, _context())
    assert result["compile"] is requested
    # one network per seed and stream: 2 seeds, each trained on its own streams and on the two
    # controls (another data stream, another init stream)
    assert compiled == (["EfficientCapsNet"] * 2 * 3 if requested else [])
