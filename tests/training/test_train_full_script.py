"""benchmarks/train_full.py on CPU: a tiny full-shaped claim trains in pieces and is stored.

The claim has the shape of a real ``full`` claim (its own ``budgets.full``, several seeds and
epochs) but trains 2 epochs of 32 digits, with ``allow_cpu_full``. The first pieces' deadline has
already passed when they start, so each of them trains exactly one epoch before it pauses: both
seeds' own runs are paused after their first epoch and resumed from the checkpoint. A last piece
with time to spare trains the rest (the seeds' data and init controls) and stores the claim. The
stored figures, all of them from resumed runs, must equal an uninterrupted run's, figure for
figure.
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
        "budgets": {"full": {"allow_cpu_full": True, "epochs": 2, "train_size": 32,
                             "eval_size": 20, "max_batch_size": 16}}}


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
    project_device = ["--project", str(root), "--device", "cpu"]
    past = [*project_device, "--piece-minutes", "1e-9"]  # the deadline has passed at once
    assert run.main([*past, "--list"]) == run.EXIT_DONE
    # One epoch per piece: seed 0's first epoch, its second (resumed), then seed 1's two. Each
    # seed then trains on two more streams (its data and init controls): a piece with an hour
    # to spare trains those four runs and stores the claim.
    codes = [run.main(past) for _ in range(4)]
    assert codes == [run.EXIT_MORE] * 4
    assert run.main([*project_device, "--piece-minutes", "60"]) == run.EXIT_DONE
    assert run.main(past) == run.EXIT_DONE  # stored fresh at full: nothing is left to train
    stored = json.loads((root / ".claimcheck" / "results" / "2101.12491__tiny-full.json")
                        .read_text(encoding="utf-8"))
    assert stored["budget"] == "full" and stored["error"] is None, stored["reason"]
    assert stored["device"] == "cpu" and stored["interval"]["k"] == 2
    assert stored["verdict"] == "verified" or stored["reason"].startswith("no signal")

    monkeypatch.delenv("CLAIMCHECK_TRAIN_CACHE", raising=False)
    monkeypatch.delenv("CLAIMCHECK_TRAIN_DEADLINE", raising=False)
    monkeypatch.syspath_prepend(str(ROOT))
    from models.training.run import train_seeds

    # the stored values are the seeds' own runs: the uninterrupted run needs no controls
    straight = train_seeds(SPEC, SimpleNamespace(budget="full", device="cpu", seed=0,
                                                 progress=lambda m, f: None), controls=False)
    assert stored["interval"]["values"] == straight.result["per_seed"]
    # and so are the stored curves, to the last bit of every epoch's training loss (a held-out
    # accuracy on 20 digits moves in steps of 5 points and may hide a resumed run's drift)
    curve = json.loads((root / ".claimcheck" / stored["artifacts"]["curve_json"])
                       .read_text(encoding="utf-8"))
    assert losses(curve) == losses(straight.result)


def losses(result: dict[str, Any]) -> list[list[float]]:
    return [[row["loss"] for row in seed["epochs"]] for seed in result["curves"]]
