"""Real (small) training runs: determinism and the train check end to end. Marked slow."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from models.training.run import run_training, train_seeds

pytestmark = pytest.mark.slow

# Two optimiser steps (batch 16), so that the loss depends on the first update: these tests
# read what a run records, not how well it learns (the MultiMNIST test below does). 50 held-out
# digits, so that even a barely trained network scores above 0% (the train check's test asks).
TINY = {"model": "efficient_capsnet", "preset": "mnist", "dataset": "mnist-5k",
        "train_size": 32, "eval_size": 50, "epochs": 1, "seeds": 1}


def context(seed: int = 0, messages: list[str] | None = None) -> Any:
    sink = messages if messages is not None else []
    return SimpleNamespace(budget="smoke", device="cpu", seed=seed,
                           progress=lambda message, fraction: sink.append(message))


def own_streams(spec: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """A training run on its own random streams only: the controls (two more trainings per
    seed) are tested once, by test_controls_train_the_same_seeds_on_other_random_streams."""
    return train_seeds(spec, ctx, controls=False).result


def test_cpu_training_is_deterministic_for_a_seed() -> None:
    first = own_streams(TINY, context())
    second = own_streams(TINY, context())
    other = own_streams(TINY, context(seed=1))
    losses = [[row["loss"] for row in c["epochs"]] for c in first["curves"]]
    assert losses == [[row["loss"] for row in c["epochs"]] for c in second["curves"]]
    assert first["per_seed"] == second["per_seed"]
    assert losses != [[row["loss"] for row in c["epochs"]] for c in other["curves"]]


def test_controls_train_the_same_seeds_on_other_random_streams() -> None:
    messages: list[str] = []
    result = run_training(TINY, context(messages=messages))
    controls = result["controls"]
    assert [c["stream"] for c in controls] == [{"data": 1}, {"init": 1}]
    assert all(len(c["per_seed"]) == len(result["per_seed"]) for c in controls)
    assert any("(data stream 1)" in m for m in messages)
    assert any("(init stream 1)" in m for m in messages)
    throughput = run_training({**TINY, "metric": "images_per_second"}, context())
    assert throughput["controls"] == []


def test_result_names_data_schedule_seeds_device_and_progress() -> None:
    messages: list[str] = []
    result = own_streams({**TINY, "seeds": 2}, context(messages=messages))
    assert result["seeds"] == [0, 1] and len(result["per_seed"]) == 2
    assert result["data"]["name"] == "mnist-5k" and "training split" in result["data"]["origin"]
    assert result["schedule"]["name"] == "official" and result["schedule"]["batch_size"] == 16
    assert result["device"] == "cpu" and result["fidelity"] == "proxy"
    assert result["images_per_second"] > 0
    assert any("loss" in m and "accuracy" in m for m in messages)


def test_multimnist_run_uses_two_labels() -> None:
    spec = {"model": "efficient_capsnet", "preset": "multimnist", "dataset": "multimnist-5k",
            "train_size": 32, "eval_size": 20, "epochs": 1, "metric": "error", "seeds": 1}
    result = own_streams(spec, context())
    assert 0.0 <= result["per_seed"][0] <= 100.0
    assert result["data"]["name"] == "multimnist(mnist-5k)"


def test_train_check_end_to_end_with_the_project_trainer(tmp_path: Path) -> None:
    from claimcheck.checks.api import CheckContext
    from claimcheck.checks.train import train_check
    from claimcheck.core.config import load_config

    config = load_config(Path(__file__).resolve().parents[2])
    ctx = CheckContext(args=TINY, device="cpu", budget="smoke", seed=0,
                       scratch=tmp_path, root=config.root, config=config)
    evidence = train_check(ctx)
    assert isinstance(evidence.measured, float) and 0.0 < evidence.measured <= 100.0
    curve = json.loads((tmp_path / "curve.json").read_text(encoding="utf-8"))
    assert curve["curves"][0]["epochs"][0]["epoch"] == 1
    assert ET.parse(tmp_path / "curve.svg").getroot().tag.endswith("svg")
    assert evidence.artifacts["reconstructions_png"] == "reconstructions.png"
    assert (tmp_path / "reconstructions.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_multimnist_pipeline_learns_on_a_tiny_fixed_budget() -> None:
    """3 epochs of 2,000 overlaid pairs lift a very narrow CapsNet clearly above guessing both
    digits (1/45), by the same rule that makes a verdict say "no signal".

    The network is ``capsnet_narrow`` cut down further (16 conv channels, 2 primary capsule
    types, a small decoder, one routing iteration: a step costs about an eighth of the preset's) and
    trained at 3x the paper's learning rate; the data, the paper schedule's loss and shifts, and
    the both-digits accuracy are the pipeline's own. Seed 0 reaches 30.7% (seeds 1-3: 26-31%)
    on the 300 held-out pairs; the rule asks for an interval above 12%."""
    from claimcheck.checks.stats import ChanceLevel, seed_interval

    spec = {"model": "capsnet_narrow", "preset": "multimnist", "dataset": "multimnist-5k",
            "overrides": {"conv_channels": 16, "primary_types": 2, "decoder_hidden": [64, 128],
                          "iterations": 1},
            "schedule": "paper", "schedule_overrides": {"lr": 0.003}, "metric": "accuracy",
            "train_size": 1000, "train_pairs_per_image": 2, "eval_size": 300, "epochs": 3,
            "seeds": 1}
    result = own_streams(spec, context())
    evaluation = result["evaluation"]
    assert evaluation["chance"] == pytest.approx(100 / 45) and evaluation["examples"] == 300
    values = tuple(result["per_seed"])
    interval = seed_interval(values, proportions=[values[0] / 100], n=300, bounds=(0, 100),
                             chance=[ChanceLevel("accuracy", evaluation["chance"], True, values)])
    assert interval.without_signal() == [], interval.text()
