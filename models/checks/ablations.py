"""The papers' own ablations at CPU scale: wiki experiments decided by confidence intervals.

* :func:`paired_difference` trains two arms (two train specs, ``a`` and ``b``, each merged over
  ``common``) on the same seeds and budget, and measures the mean over seeds of ``b - a`` in the
  metric's unit (percentage points of held-out error or accuracy). Its interval
  (:func:`claimcheck.checks.stats.seed_interval`) combines the spread of the per-seed differences
  with both arms' binomial error on the held-out set, a conservative bound for two networks scored
  on the same examples. Both arms must beat chance, or the verdict is "no signal at this budget".
* :func:`pose_vs_length_under_shift` trains capsule networks and, on held-out digits they
  classify correctly, shifts each input by 1 and 2 px (up, down, left, right) and compares how
  much the winning capsule changes: its **orientation** ``‖v'/‖v'‖ - v/‖v‖‖`` (the pose, which
  arxiv:1710.09829 §1-2 says carries the instantiation parameters, and so should move with the
  input) against its **length** ``|‖v'‖ - ‖v‖| / ‖v‖`` (the probability that the entity exists,
  which should not). Measured: the mean over seeds of the per-seed ratio of the two mean
  changes; above 1, the pose moves more than the length. The two quantities are independent
  (a direction can stay put while a length changes), so the ratio can fall either side of 1.
  Its interval is the seed spread (Student's t) only: each seed's ratio averages thousands of
  shifted images, whose own sampling error is small beside it.

All arms are proxies (MNIST-5k, a few epochs, CPU-scale models); the claims that use them say
so and accept proxies. Progress is reported per arm.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence, Fidelity
from claimcheck.checks.stats import ChanceLevel, Control, seed_interval

SHIFTS = ((1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (-2, 0), (0, 2), (0, -2))


@dataclass(frozen=True)
class PairedArgs(CheckArgs):
    """Two train specs ``a`` and ``b``, each merged over ``common``; ``label_a``/``label_b``
    name the arms in progress and details."""

    a: dict[str, Any]
    b: dict[str, Any]
    common: dict[str, Any] = field(default_factory=dict)
    label_a: str = "a"
    label_b: str = "b"


@dataclass(frozen=True)
class TrainSpecArgs(CheckArgs):
    """``train``: the train spec of the networks measured."""

    train: dict[str, Any]


def arm_spec(args: PairedArgs, arm: str) -> dict[str, Any]:
    """``common`` merged with the arm's own keys (the arm wins)."""
    own: Mapping[str, Any] = args.a if arm == "a" else args.b
    return {**args.common, **own}


def arm_context(ctx: CheckContext, index: int, label: str) -> CheckContext:
    """``ctx`` whose progress reports count this arm's half of the work."""

    def progress(message: str, fraction: float | None) -> None:
        ctx.progress(f"{label}: {message}", None if fraction is None else (index + fraction) / 2)

    return replace(ctx, progress=progress)


def chance_of(result: Mapping[str, Any], label: str) -> ChanceLevel:
    evaluation = result["evaluation"]
    return ChanceLevel(label, float(evaluation["chance"]), bool(evaluation["higher_is_better"]),
                       tuple(float(v) for v in result["per_seed"]), int(evaluation["examples"]))


def paired_controls(first: Mapping[str, Any], second: Mapping[str, Any],
                    labels: Mapping[str, str]) -> list[Control]:
    """The difference again under each of the trainer's control streams (both arms trained
    with the same other stream): the engine judges each beside the run's own."""
    controls = []
    for own_a, own_b in zip(first.get("controls", []), second.get("controls", []), strict=True):
        a = [float(v) for v in own_a["per_seed"]]
        b = [float(v) for v in own_b["per_seed"]]
        controls.append(Control(
            str(own_a["label"]), tuple(y - x for x, y in zip(a, b, strict=True)),
            (statistics.fmean(a) / 100.0, statistics.fmean(b) / 100.0),
            (chance_of({**first, "per_seed": a}, labels["a"]),
             chance_of({**second, "per_seed": b}, labels["b"]))))
    return controls


@claim_check(args=PairedArgs)
def paired_difference(ctx: CheckContext) -> Evidence:
    """Measured: mean over seeds of metric(b) - metric(a), in percentage points."""
    from models.training.run import run_training

    args = PairedArgs.of(ctx)
    labels = {"a": args.label_a, "b": args.label_b}
    results = {arm: run_training(arm_spec(args, arm), arm_context(ctx, i, labels[arm]))
               for i, arm in enumerate(("a", "b"))}
    first, second = results["a"], results["b"]
    if first["seeds"] != second["seeds"] or first["metric"] != second["metric"]:
        raise ValueError("the two arms must run the same seeds and metric")
    examples = int(first["evaluation"]["examples"])
    if int(second["evaluation"]["examples"]) != examples:
        raise ValueError("the two arms must be scored on the same held-out examples")
    differences = [b - a for a, b in zip(first["per_seed"], second["per_seed"], strict=True)]
    means = {arm: statistics.fmean(results[arm]["per_seed"]) for arm in results}
    interval = seed_interval(
        differences, ctx.config.confidence,
        proportions=[means["a"] / 100.0, means["b"] / 100.0], n=examples,
        chance=[chance_of(first, labels["a"]), chance_of(second, labels["b"])],
        controls=paired_controls(first, second, labels))
    metric = first["metric"]
    details = (f"{labels['b']} minus {labels['a']}, held-out {metric} (percentage points), "
               f"per seed {[round(d, 4) for d in differences]}; {labels['a']}: "
               f"{means['a']:.4g} {first['per_seed']}; {labels['b']}: {means['b']:.4g} "
               f"{second['per_seed']}. Arm {labels['a']}: {first['details']}. Arm "
               f"{labels['b']}: {second['details']}")
    return Evidence(measured=interval.mean, details=details, fidelity=Fidelity.PROXY,
                    interval=interval.as_record(), data=dict(first["data"]),
                    timings={"images_per_second_a": float(first["images_per_second"]),
                             "images_per_second_b": float(second["images_per_second"])})


def winning_capsules(model: Any, images: np.ndarray, classes: np.ndarray, batches: Any,
                     chunk: int = 250) -> Any:
    """The pose of capsule ``classes[i]`` for each image, (N, D), in chunks (no grad)."""
    import torch

    parts = []
    for start in range(0, len(images), chunk):
        inputs, _ = batches.images(images[start:start + chunk])
        poses = model(inputs).poses
        index = torch.from_numpy(classes[start:start + chunk]).to(poses.device)
        parts.append(poses[torch.arange(len(index), device=poses.device), index].float())
    return torch.cat(parts)


def orientation_and_length_change(model: Any, images: np.ndarray, labels: np.ndarray,
                                  batches: Any) -> tuple[float, float, int]:
    """(mean orientation change, mean relative length change, images used) of the true-class
    capsule under :data:`SHIFTS`, on the images ``model`` classifies correctly."""
    import torch

    model.eval()
    with torch.no_grad():
        scores = torch.cat([model(batches.images(images[i:i + 250])[0]).scores.float().cpu()
                            for i in range(0, len(images), 250)])
        right = scores.argmax(dim=1).numpy() == labels
        if not right.any():
            raise ValueError("the trained network classifies no held-out digit correctly")
        kept, classes = images[right], labels[right]
        base = winning_capsules(model, kept, classes, batches)
        base_length = base.norm(dim=1)
        base_unit = base / base_length[:, None]
        turns, stretches = [], []
        for dy, dx in SHIFTS:
            pose = winning_capsules(model, shifted(kept, dy, dx), classes, batches)
            length = pose.norm(dim=1)
            turns.append((pose / length[:, None] - base_unit).norm(dim=1))
            stretches.append((length - base_length).abs() / base_length)
    return (float(torch.cat(turns).mean()), float(torch.cat(stretches).mean()), len(kept))


def shifted(images: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """(N, C, H, W) images moved by (dy, dx) px with zero padding (nothing wraps round)."""
    out = np.roll(images, (dy, dx), axis=(2, 3))
    if dy > 0:
        out[:, :, :dy] = 0
    elif dy < 0:
        out[:, :, dy:] = 0
    if dx > 0:
        out[:, :, :, :dx] = 0
    elif dx < 0:
        out[:, :, :, dx:] = 0
    return out


@claim_check(args=TrainSpecArgs)
def pose_vs_length_under_shift(ctx: CheckContext) -> Evidence:
    """Measured: mean over seeds of (orientation change / relative length change) under 1-2 px
    shifts of correctly classified held-out digits."""
    from models.training.run import train_seeds

    spec = dict(TrainSpecArgs.of(ctx).train)
    if not spec:
        raise ValueError("pose_vs_length_under_shift needs args.train: a train spec")
    trained = train_seeds(spec, ctx, keep_models=True, controls=False)
    held = trained.held_out
    ratios, rows = [], []
    for seed, model in zip(trained.result["seeds"], trained.models, strict=True):
        turn, stretch, used = orientation_and_length_change(model, held.images, held.labels,
                                                            trained.batches)
        ratios.append(turn / max(stretch, 1e-12))
        rows.append(f"seed {seed}: orientation {turn:.4g}, length {stretch:.4g}, "
                    f"ratio {ratios[-1]:.3g} on {used} digits")
    result = trained.result
    interval = seed_interval(ratios, ctx.config.confidence,
                             chance=[chance_of(result, f"held-out {result['metric']}")])
    return Evidence(
        measured=interval.mean,
        details=(f"winning-capsule change under shifts {list(SHIFTS)}: " + "; ".join(rows)
                 + f". Trained proxies: {result['details']}"),
        fidelity=Fidelity.PROXY, interval=interval.as_record(), data=dict(result["data"]))
