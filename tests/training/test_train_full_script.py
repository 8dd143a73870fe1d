"""benchmarks/train_full.py on CPU: a tiny full-shaped claim trains in pieces and is stored.

The claim has the shape of a real ``full`` claim (its own ``budgets.full``, several seeds and
epochs) but trains 2 epochs of 64 digits, with ``allow_cpu_full``. Each piece's deadline has
already passed when it starts, so every invocation trains exactly one epoch per seed before it
pauses; the resumed result must equal an uninterrupted run's, figure for figure.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
SPEC = {"model": "efficient_capsnet", "preset": "mnist", "dataset": "mnist-5k",
        "schedule": "official", "metric": "accuracy", "seeds": 2,
        "budgets": {"full": {"allow_cpu_full": True, "epochs": 2, "train_size": 64,
                             "eval_size": 50, "max_batch_size": 16}}}


def script() -> Any:
    spec = importlib.util.spec_from_file_location("train_full", ROOT / "benchmarks" /
                                                  "train_full.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(ROOT / "models", root / "models",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(
        '[tool.claimcheck]\nwiki = "wiki"\ntrainer = "models.training.run:run_training"\n',
        encoding="utf-8")
    card = {"kind": "paper", "slug": "tiny", "arxiv": "2101.12491", "title": "Tiny",
            "authors": ["A. Author"], "year": 2021, "updated_at": "2026-11-29",
            "claims": [{"id": "tiny-full", "cite": "tab. 2", "statement": "A tiny run.",
                        "check": "train", "args": SPEC, "accept_proxy": True,
                        "expect": {"at_least": 0.0}}]}
    (root / "wiki" / "papers").mkdir(parents=True)
    (root / "wiki" / "papers" / "tiny.md").write_text(
        "---\n" + yaml.safe_dump(card, sort_keys=False) + "---\nTiny.\n", encoding="utf-8")
    return root


def test_the_full_script_resumes_pieces_and_stores_the_same_figures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    run = script()
    monkeypatch.setenv("CLAIMCHECK_TRAIN_CACHE", "unset by teardown")  # main() sets both
    monkeypatch.setenv("CLAIMCHECK_TRAIN_DEADLINE", "")
    monkeypatch.setattr(sys, "path", list(sys.path))
    arguments = ["--project", str(root), "--device", "cpu", "--piece-minutes", "1e-9"]
    assert run.main([*arguments, "--list"]) == run.EXIT_DONE
    codes = [run.main(arguments) for _ in range(2)]
    assert codes == [run.EXIT_MORE, run.EXIT_MORE]  # one epoch per piece: the deadline is past
    # 2 seeds x 2 epochs, each trained on three streams (the run, its data and init controls):
    # 12 pieces, one per call (two made above), then a call that stores the result
    for _ in range(12):
        if run.main(arguments) == run.EXIT_DONE:
            break
    else:
        pytest.fail("the script never finished")
    stored = json.loads((root / ".claimcheck" / "results" / "2101.12491__tiny-full.json")
                        .read_text(encoding="utf-8"))
    assert stored["budget"] == "full" and stored["error"] is None, stored["reason"]
    assert stored["device"] == "cpu" and stored["interval"]["k"] == 2
    assert stored["verdict"] == "verified" or stored["reason"].startswith("no signal")

    monkeypatch.delenv("CLAIMCHECK_TRAIN_CACHE", raising=False)
    monkeypatch.delenv("CLAIMCHECK_TRAIN_DEADLINE", raising=False)
    monkeypatch.syspath_prepend(str(ROOT))
    from models.training.run import run_training

    straight = run_training(SPEC, SimpleNamespace(budget="full", device="cpu", seed=0,
                                                   progress=lambda m, f: None))
    assert stored["interval"]["values"] == straight["per_seed"]
