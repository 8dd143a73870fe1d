"""Schedules, budget/spec merging, augmentation, losses and fidelity rules (no training)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from models.data.mnist import load_mnist_5k
from models.training.loop import correct_count, crop_flip_augment, shift_augment
from models.training.run import effective_spec, fidelity_reasons, run_training, seed_list
from models.training.schedules import resolve_schedule
from models.training.summary import evaluation_record, multi_accuracy_rule


def test_efficient_capsnet_official_learning_rate_law() -> None:
    schedule = resolve_schedule("efficient_capsnet", "official", None)
    assert (schedule.optimizer, schedule.batch_size, schedule.epochs) == ("adam", 16, 150)
    assert schedule.lr_at(0, 0) == pytest.approx(5e-4)
    assert schedule.lr_at(10, 0) == pytest.approx(5e-4 * 0.97**10)
    assert schedule.lr_at(100, 0) == pytest.approx(5e-5)  # the floor, reached from epoch 76


def test_capsnet_paper_decays_per_step_and_slower_on_multimnist() -> None:
    mnist = resolve_schedule("capsnet", "paper", None, "mnist")
    multi = resolve_schedule("capsnet", "paper", None, "multimnist-5k")
    assert mnist.lr_at(0, 2000) == pytest.approx(1e-3 * 0.96)
    assert multi.lr_at(0, 20000) == pytest.approx(1e-3 * 0.96)
    assert resolve_schedule("capsnet", "official", None).margin_reduction == "tf_official"


def test_inverted_routing_official_multistep() -> None:
    schedule = resolve_schedule("inverted_capsnet", "official", None)
    assert [schedule.lr_at(e, 0) for e in (0, 149, 150, 250)] == pytest.approx(
        [0.1, 0.1, 0.01, 0.001])


def test_unknown_or_unreadable_schedules_are_explained() -> None:
    with pytest.raises(ValueError, match="could not be read"):
        resolve_schedule("efficient_capsnet", "paper", None)
    with pytest.raises(ValueError, match="unknown schedule field"):
        resolve_schedule("capsnet", "paper", {"learning_rate": 1.0})


def test_overrides_are_recorded_as_departures() -> None:
    schedule = resolve_schedule("capsnet", "paper", {"lr": 0.01, "batch_size": 16})
    assert schedule.lr == 0.01 and schedule.batch_size == 16
    assert any("overridden" in d and "lr=0.01" in d for d in schedule.departures)


def test_spec_merging_order_and_validation() -> None:
    spec = {"model": "capsnet", "preset": "mnist", "dataset": "mnist-5k", "epochs": 2,
            "budgets": {"smoke": {"train_size": 300}, "full": {"dataset": "mnist"}}}
    smoke = effective_spec(spec, "smoke")
    assert (smoke["epochs"], smoke["train_size"], smoke["dataset"]) == (2, 300, "mnist-5k")
    assert smoke["metric"] == "accuracy" and smoke["schedule"] == "official"
    full = effective_spec(spec, "full")
    assert (full["dataset"], full["train_size"]) == ("mnist", None)
    with pytest.raises(ValueError, match="unknown train spec key"):
        effective_spec({**spec, "epoch": 3}, "smoke")
    with pytest.raises(ValueError, match="needs 'model'"):
        effective_spec({"preset": "mnist", "dataset": "mnist-5k"}, "smoke")
    with pytest.raises(ValueError, match="metric"):
        effective_spec({**spec, "metric": "f1"}, "smoke")


def test_seed_list() -> None:
    assert seed_list(None, 7) == [7]
    assert seed_list(3, 7) == [7, 8, 9]
    assert seed_list([1, 5], 7) == [1, 5]
    with pytest.raises(ValueError):
        seed_list(0, 7)


def test_shift_augment_moves_at_most_two_pixels() -> None:
    images = np.zeros((200, 1, 28, 28), dtype=np.uint8)
    images[:, 0, 14, 14] = 255
    moved = shift_augment(images, 2, np.random.default_rng(0))
    positions = np.argwhere(moved[:, 0] == 255)[:, 1:]
    assert len(positions) == 200
    assert np.abs(positions - 14).max() == 2
    assert crop_flip_augment(np.zeros((4, 3, 32, 32), np.uint8),
                             np.random.default_rng(0)).shape == (4, 3, 32, 32)


def test_multimnist_accuracy_both_digits_or_per_digit() -> None:
    scores = torch.tensor([[0.9, 0.8, 0.1], [0.9, 0.1, 0.8], [0.1, 0.9, 0.8]])
    labels = torch.tensor([[1, 0], [0, 1], [0, 1]])
    assert correct_count(scores, labels) == 1  # arxiv:1710.09829 §6.2: both must be right
    assert correct_count(scores, labels, "per_digit") == 2.0  # 1 + 0.5 + 0.5


@pytest.mark.parametrize("spec, chance, higher", [
    ({"model": "capsnet", "dataset": "mnist-5k", "metric": "accuracy"}, 10.0, True),
    ({"model": "capsnet", "dataset": "mnist-5k", "metric": "error"}, 90.0, False),
    ({"model": "capsnet", "dataset": "multimnist-5k", "metric": "error"}, 100 - 100 / 45, False),
    ({"model": "efficient_capsnet", "dataset": "multimnist-5k", "metric": "accuracy"}, 20.0,
     True),
    ({"model": "efficient_capsnet", "dataset": "multimnist-5k", "metric": "accuracy",
      "multi_accuracy": "both"}, 100 / 45, True),
])
def test_chance_level_of_each_metric(spec: dict[str, str], chance: float, higher: bool) -> None:
    record = evaluation_record(spec, 10, 500)
    assert record["chance"] == pytest.approx(chance)
    assert record["higher_is_better"] is higher and record["examples"] == 500


def test_budgets_are_work_with_three_seeds_and_no_clock() -> None:
    spec = {"model": "capsnet", "preset": "mnist", "dataset": "mnist-5k"}
    for budget in ("smoke", "short", "full"):
        merged = effective_spec(spec, budget)
        assert merged["seeds"] == 3 and merged.get("time_limit_s") is None
    with pytest.raises(ValueError, match="budget is an amount of work"):
        effective_spec({**spec, "time_budget_s": 10}, "smoke")
    with pytest.raises(ValueError, match="budget is an amount of work"):
        effective_spec({**spec, "budgets": {"short": {"time_budget_s": 10}}}, "short")
    with pytest.raises(ValueError, match="multi_accuracy"):
        multi_accuracy_rule({"model": "capsnet", "multi_accuracy": "any"})


def test_fidelity_is_exact_only_for_the_paper_protocol() -> None:
    schedule = resolve_schedule("capsnet", "paper", None, "mnist")
    test_split = SimpleNamespace(eval_is_test=True, identity=SimpleNamespace(extra={}))
    full = {"dataset": "mnist", "epochs": None}
    assert fidelity_reasons(full, schedule, test_split, [], "full") == []
    sample = load_mnist_5k()
    reasons = fidelity_reasons({"dataset": "mnist-5k", "epochs": 2}, schedule, sample, [],
                               "smoke")
    assert len(reasons) == 4
    departing = resolve_schedule("efficient_capsnet", "official", None)
    assert fidelity_reasons(full, departing, test_split, [], "full")


def test_full_budget_on_cpu_is_reported_as_unavailable() -> None:
    from claimcheck.checks.api import DataUnavailable

    ctx = SimpleNamespace(budget="full", device="cpu", seed=0, progress=lambda m, f: None)
    with pytest.raises(DataUnavailable, match="expects a GPU"):
        run_training({"model": "capsnet", "preset": "mnist", "dataset": "mnist-5k"}, ctx)
