"""The built-in ``train`` check with a stand-in trainer: artifacts, summary, interruption."""

from __future__ import annotations

import json
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from claimcheck.checks.api import CheckContext, Fidelity
from claimcheck.checks.train import TrainerResultError, train_check, validate_result
from claimcheck.core.config import ProjectConfig

TRAINER_SOURCE = '''
def run(spec, ctx):
    if spec.get("interrupt"):
        raise KeyboardInterrupt
    values = spec["values"]
    return {
        "metric": "accuracy", "per_seed": values, "seeds": list(range(len(values))),
        "curves": [{"seed": s, "epochs": [
            {"epoch": 1, "loss": 0.5, "metric": v - 1, "seconds": 1.0},
            {"epoch": 2, "loss": 0.3, "metric": v, "seconds": 2.0}]}
            for s, v in enumerate(values)],
        "images_per_second": 123.0, "device": ctx.device,
        "data": {"name": "toy", "split": "train 2 / held-out 1", "size": 3, "origin": "test"},
        "schedule": {"name": "official"}, "fidelity": "proxy", "details": "stand-in trainer",
    }
'''


def make_context(tmp_path: Path, args: dict[str, Any]) -> CheckContext:
    module = f"stand_in_trainer_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(TRAINER_SOURCE, encoding="utf-8")
    config = ProjectConfig(root=tmp_path, wiki=tmp_path / "wiki", results=tmp_path / ".cc",
                           import_roots=(tmp_path,), trainer=f"{module}:run")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return CheckContext(args=args, device="cpu", budget="smoke", seed=0, scratch=scratch,
                        root=tmp_path, config=config)


def test_train_check_reports_mean_seeds_and_writes_curves(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"values": [90.0, 94.0]})
    evidence = train_check(ctx)
    assert evidence.measured == pytest.approx(92.0)
    assert evidence.fidelity == Fidelity.PROXY
    assert "± 2.8" in evidence.details and "seed 0: 90" in evidence.details
    assert "data toy" in evidence.details and "device cpu" in evidence.details
    assert evidence.data is not None and evidence.data["name"] == "toy"
    assert evidence.artifacts == {"curve_json": "curve.json", "curve_svg": "curve.svg"}
    stored = json.loads((ctx.scratch / "curve.json").read_text(encoding="utf-8"))
    assert stored["curves"][1]["epochs"][1]["metric"] == 94.0
    svg = ET.parse(ctx.scratch / "curve.svg").getroot()
    assert svg.tag.endswith("svg")
    assert "held-out accuracy" in (ctx.scratch / "curve.svg").read_text(encoding="utf-8")
    assert evidence.timings["images_per_second"] == 123.0


def test_interrupt_propagates_and_leaves_no_artifacts(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"values": [1.0], "interrupt": True})
    with pytest.raises(KeyboardInterrupt):
        train_check(ctx)
    assert list(ctx.scratch.iterdir()) == []


@pytest.mark.parametrize("broken, message", [
    ([], "not a dict"),
    ({"metric": "accuracy"}, "lacks"),
])
def test_contract_violations_are_errors(broken: Any, message: str) -> None:
    with pytest.raises(TrainerResultError, match=message):
        validate_result(broken)


def test_non_finite_metric_is_rejected() -> None:
    result = {"metric": "accuracy", "per_seed": [float("nan")], "seeds": [0], "curves": [],
              "device": "cpu", "data": {}, "fidelity": "proxy", "details": ""}
    with pytest.raises(TrainerResultError, match="finite"):
        validate_result(result)


def test_interrupt_inside_training_propagates_without_result() -> None:
    from types import SimpleNamespace

    from models.training.run import run_training

    def interrupt(message: str, fraction: float | None) -> None:
        raise KeyboardInterrupt

    ctx = SimpleNamespace(budget="smoke", device="cpu", seed=0, progress=interrupt)
    spec = {"model": "efficient_capsnet", "preset": "mnist", "dataset": "mnist-5k",
            "train_size": 20, "eval_size": 10, "schedule_overrides": {"recon_weight": 0.0}}
    with pytest.raises(KeyboardInterrupt):
        run_training(spec, ctx)


def test_time_limit_makes_the_run_fail_instead_of_shrinking_it() -> None:
    from types import SimpleNamespace

    from models.training.loop import BudgetExceeded
    from models.training.run import run_training

    ctx = SimpleNamespace(budget="smoke", device="cpu", seed=0, progress=lambda m, f: None)
    spec = {"model": "efficient_capsnet", "preset": "mnist", "dataset": "mnist-5k",
            "train_size": 20, "eval_size": 10, "time_limit_s": 0.0}
    with pytest.raises(BudgetExceeded, match="time limit of 0 s passed in epoch 1"):
        run_training(spec, ctx)
