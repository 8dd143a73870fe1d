"""The ablation checks: paired differences over seeds, and pose against length under shifts."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

from claimcheck import CheckArgsError
from claimcheck.checks.api import CheckContext
from claimcheck.checks.stats import interval_from_record
from claimcheck.core.config import ProjectConfig
from models.checks import ablations


def context(tmp_path: Path, args: dict[str, Any], budget: str = "smoke") -> CheckContext:
    config = ProjectConfig(root=tmp_path, wiki=tmp_path / "wiki", results=tmp_path / ".cc",
                           import_roots=(tmp_path,))
    return CheckContext(args=args, device="cpu", budget=budget, seed=0, scratch=tmp_path,
                        root=tmp_path, config=config)


def fake_result(values: list[float], examples: int = 1000) -> dict[str, Any]:
    return {"metric": "error", "per_seed": values, "seeds": list(range(len(values))),
            "evaluation": {"examples": examples, "chance": 90.0, "higher_is_better": False},
            "data": {"name": "mnist-5k", "split": "s", "size": 1, "origin": "o"},
            "images_per_second": 1.0, "details": "fake"}


def test_paired_difference_is_b_minus_a_per_seed(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def trainer(spec: dict[str, Any], ctx: Any) -> dict[str, Any]:
        calls.append(spec)
        return fake_result([2.0, 2.2, 2.1] if spec["arm"] == "a" else [3.0, 3.4, 3.2])

    monkeypatch.setattr("models.training.run.run_training", trainer)
    args = {"common": {"model": "m", "arm": "common"}, "a": {"arm": "a"}, "b": {"arm": "b"},
            "label_a": "r=1", "label_b": "r=3"}
    evidence = ablations.paired_difference(context(tmp_path, args))
    assert [c["arm"] for c in calls] == ["a", "b"] and calls[0]["model"] == "m"
    assert evidence.measured == pytest.approx(1.1)
    interval = interval_from_record(evidence.interval)
    assert interval is not None and interval.values == pytest.approx((1.0, 1.2, 1.1))
    assert [c.label for c in interval.chance] == ["r=1", "r=3"]
    assert interval.without_signal() == []
    assert "r=3 minus r=1" in evidence.details


def test_arms_must_share_seeds_and_held_out_set(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    results = iter([fake_result([1.0, 2.0]), fake_result([1.0, 2.0], examples=500)])
    monkeypatch.setattr("models.training.run.run_training", lambda spec, ctx: next(results))
    with pytest.raises(ValueError, match="same held-out"):
        ablations.paired_difference(context(tmp_path, {"a": {}, "b": {}}))
    with pytest.raises(CheckArgsError, match="missing required key 'a'"):
        ablations.paired_difference(context(tmp_path, {"b": {}}))


def test_shifted_pads_with_zeros() -> None:
    images = np.arange(16, dtype=np.uint8).reshape(1, 1, 4, 4) + 1
    moved = ablations.shifted(images, 1, -2)
    assert moved[0, 0, 0].tolist() == [0, 0, 0, 0]
    assert moved[0, 0, 1].tolist() == [3, 4, 0, 0]


class ShiftProbe(torch.nn.Module):
    """Class capsule 0 whose orientation follows the digit's column and whose length is fixed:
    a perfectly equivariant pose with an invariant length."""

    def forward(self, x: torch.Tensor) -> Any:
        columns = torch.arange(x.shape[-1], dtype=x.dtype)
        mass = x.sum(dim=(1, 2))
        centre = (mass * columns).sum(1) / mass.sum(1).clamp_min(1e-9)
        pose = torch.stack([torch.cos(centre / 4), torch.sin(centre / 4)], dim=1) * 0.9
        poses = torch.stack([pose, pose * 0.1], dim=1)
        return SimpleNamespace(poses=poses, scores=poses.norm(dim=2))


def test_orientation_and_length_change_tell_equivariance_from_invariance() -> None:
    from models.training.loop import Batches

    images = np.zeros((4, 1, 8, 8), dtype=np.uint8)
    images[:, 0, 3:5, 3:5] = 255
    turn, stretch, used = ablations.orientation_and_length_change(
        ShiftProbe(), images, np.zeros(4, dtype=np.int64), Batches("cpu", None, None))
    assert used == 4 and turn > 0.1 and stretch < 1e-6


@pytest.mark.slow
def test_both_checks_run_end_to_end_on_a_tiny_budget(tmp_path: Path) -> None:
    # One optimiser step per network (each arm trains 2 seeds on 3 streams); 40 held-out digits,
    # so that even a barely trained network classifies some correctly for the pose check.
    tiny = {"dataset": "mnist-5k", "preset": "mnist", "schedule": "official", "metric": "error",
            "train_size": 16, "eval_size": 40, "seeds": 2}
    evidence = ablations.paired_difference(context(tmp_path, {
        "common": tiny, "a": {"model": "efficient_capsnet_dynamic"},
        "b": {"model": "efficient_capsnet"}}))
    interval = interval_from_record(evidence.interval)
    assert interval is not None and interval.k == 2 and interval.n == 40
    pose = ablations.pose_vs_length_under_shift(context(tmp_path, {
        "train": {**tiny, "model": "efficient_capsnet", "metric": "accuracy"}}))
    assert isinstance(pose.measured, float) and pose.interval is not None
    assert "orientation" in pose.details


def test_the_dynamic_routing_arm_keeps_the_backbone_and_swaps_the_routing() -> None:
    from models.dynamic.routing import DynamicRouting
    from models.registry import build_model

    torch.manual_seed(0)
    ablated = build_model("efficient_capsnet_dynamic", "mnist", iterations=2)
    original = build_model("efficient_capsnet", "mnist")
    assert isinstance(ablated.digit_caps, DynamicRouting) and ablated.digit_caps.iterations == 2
    for part in ("stem", "primary_caps", "decoder"):
        assert [p.shape for p in getattr(ablated, part).parameters()] == \
            [p.shape for p in getattr(original, part).parameters()]
    with torch.no_grad():
        out = ablated.eval()(torch.rand(2, 1, 28, 28))
    assert out.scores.shape == (2, 10) and out.poses.shape == (2, 10, 16)
    assert float(out.scores.max()) < 1.0
