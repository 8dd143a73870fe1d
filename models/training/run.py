"""The trainer behind the built-in ``train`` check (docs/architecture.md, "Trainer contract").

``run_training(spec, ctx)`` trains a registry model on a named dataset with a named schedule,
once per seed, and returns a plain dict: final metric per seed, per-epoch curves, images per
second, device, data identity, schedule and fidelity.

Spec keys (a claim's ``args``)::

    model: efficient_capsnet        # registry name          preset: mnist
    overrides: {iterations: 1}      # model config fields (optional)
    dataset: mnist-5k               # models.data.load_dataset name; data_folder: optional path
    shift: 4                        # MultiMNIST only (6 = the Efficient-CapsNet code)
    train_pairs_per_image: 1        # MultiMNIST pairs per digit (the paper: 1000 for both)
    eval_pairs_per_image: 1
    image_size: 48                  # smallNORB resize (default: the model config's image_size;
                                    # no crops, unlike the official pipelines)
    schedule: official              # "paper" | "official"; schedule_overrides: {lr: 1e-3}
    metric: accuracy                # "accuracy" | "error" (percent) | "images_per_second"
    seeds: 3                        # a count (ctx.seed, ctx.seed+1, ...) or a list
    multi_accuracy: both            # MultiMNIST: "both" | "per_digit" (default: per model)
    epochs / train_size / eval_size / time_limit_s   # override budget defaults
    budgets: {smoke: {...}, short: {...}, full: {...}}  # per-budget overrides, any key above
    amp: true                       # bf16 autocast on cuda (default: only for logit models)
    compile: true                   # torch.compile each seed's model (default false; below)

Budgets are amounts of work, never a clock, so that a seed measures the same value on a slow
laptop and a fast server (on CPU bit for bit, see :mod:`models.training.loop`): ``smoke`` trains
1 epoch on a stratified 1,000-image subset and evaluates on 500; ``short`` trains 3 epochs on the
whole train part; ``full`` runs the schedule's own epoch count on all data and expects a GPU.
Each budget runs 3 seeds unless the claim says otherwise (``seeds``), so that every figure has a
confidence interval (:mod:`claimcheck.checks.stats`). ``smoke`` and ``short`` cap the batch size at
16 (``max_batch_size``; ``null`` lifts the cap) so that a short run still takes enough optimiser
steps to show learning (a 1,000-image epoch at CapsNet's batch 128 is 8 steps); the cap is listed
among the proxy reasons. No budget stops early: the engine's task timeout is the safety net, and
a claim may set its own ``time_limit_s``, past which the run raises ``BudgetExceeded`` (an error
of that run, never a verdict on fewer epochs). A result is ``exact`` only on the paper's dataset
and test split, at ``full``, with a schedule that has no departures; otherwise ``proxy``, with the
reasons listed.

``compile: true`` compiles each seed's network (``nn.Module.compile``) before it trains: the same
computation with fused elementwise kernels, equal up to rounding. It pays only for long runs: for
Efficient-CapsNet on one CPU thread it took 44 s to compile and then saved 6% of a batch-16 step
and 15% at batch 64, so about 20,000 steps to break even at batch 16 (``benchmarks/README.md``);
the ``smoke`` and ``short`` budgets are far shorter, and every check runs in a fresh process.
The result records it (``compile``).

Every result says what guessing would score (``evaluation.chance``: 1/K for K classes; on
MultiMNIST 1/45 when both digits must be right, 2/K per digit) and on how many held-out examples
the figure was measured (``evaluation.examples``), from which the ``train`` check builds the
interval and the verdict its "no signal at this budget" rule. MultiMNIST accuracy follows each
paper (``multi_accuracy``): ``both`` (arxiv:1710.09829 §6.2: the two longest capsules are the two
digits; the default for CapsNet and its baseline) or ``per_digit`` (the Efficient-CapsNet code's
``multiAccuracy``, ``utils/tools.py`` L51-58: half a point for each of the two digits among the
two longest capsules; the default for Efficient-CapsNet).

Besides the contract's keys the result may carry ``artifacts: {"reconstructions_png":
"reconstructions.png"}``, a file written into ``ctx.scratch`` for capsule models with a decoder
(eight held-out inputs above their reconstructions, from the first seed's model).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from claimcheck import trainer
from models.training.summary import (
    evaluation_record,
    fidelity_reasons,
    final_metric,
    multi_accuracy_rule,
    summarise,
)

__all__ = ["BUDGET_DEFAULTS", "CONTROL_STREAMS", "TrainedSeeds", "effective_spec",
           "fidelity_reasons", "run_training", "seed_list", "stream_label", "train_seeds"]

BUDGET_DEFAULTS: dict[str, dict[str, Any]] = {
    "smoke": {"epochs": 1, "train_size": 1000, "eval_size": 500, "seeds": 3,
              "max_batch_size": 16},
    "short": {"epochs": 3, "train_size": None, "eval_size": None, "seeds": 3,
              "max_batch_size": 16},
    "full": {"epochs": None, "train_size": None, "eval_size": None, "seeds": 3,
             "max_batch_size": None},
}
SPEC_KEYS = {"model", "preset", "overrides", "dataset", "data_folder", "shift", "schedule",
             "schedule_overrides", "metric", "seeds", "epochs", "train_size", "eval_size",
             "time_limit_s", "budgets", "amp", "compile", "allow_cpu_full", "multi_accuracy",
             "train_pairs_per_image", "eval_pairs_per_image", "max_batch_size", "image_size"}
REMOVED_KEYS = {"time_budget_s": "time_budget_s was removed: a budget is an amount of work "
                                 "(images, epochs, seeds), never a clock; set epochs or "
                                 "train_size instead"}
METRICS = ("accuracy", "error", "images_per_second")
# The controls every accuracy or error claim runs beside its own seeds: the same seeds with
# another valid data stream (order, augmentation, MultiMNIST pairs), then with another valid
# initialisation stream (models.training.loop.data_rng, init_seed). The engine judges each; a
# verdict that differs between them is "not decided at this budget" (docs/statistics.md).
CONTROL_STREAMS: tuple[dict[str, int], ...] = ({"data": 1}, {"init": 1})


def stream_label(stream: Mapping[str, int]) -> str:
    """`` (data stream 1)`` for a control, ``""`` for the run's own streams."""
    return "".join(f" ({kind} stream {number})" for kind, number in stream.items())


def effective_spec(spec: Mapping[str, Any], budget: str) -> dict[str, Any]:
    """Budget defaults, then the spec's flat keys, then ``budgets[budget]``."""
    if budget not in BUDGET_DEFAULTS:
        raise ValueError(f"unknown budget {budget!r}; use smoke, short or full")
    for key, why in REMOVED_KEYS.items():
        if key in spec or key in ((spec.get("budgets") or {}).get(budget) or {}):
            raise ValueError(why)
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ValueError(f"unknown train spec key(s) {unknown}; allowed: {sorted(SPEC_KEYS)}")
    merged: dict[str, Any] = dict(BUDGET_DEFAULTS[budget])
    merged.update({k: v for k, v in spec.items() if k != "budgets"})
    per_budget = (spec.get("budgets") or {}).get(budget) or {}
    bad = sorted(set(per_budget) - SPEC_KEYS)
    if bad:
        raise ValueError(f"unknown key(s) {bad} in budgets.{budget}")
    merged.update(per_budget)
    for key in ("model", "preset", "dataset"):
        if not merged.get(key):
            raise ValueError(f"train spec needs {key!r}")
    if merged.setdefault("metric", "accuracy") not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {merged['metric']!r}")
    merged.setdefault("schedule", "official")
    return merged


def seed_list(value: Any, base: int) -> list[int]:
    if value is None:
        return [base]
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ValueError(f"seeds must be >= 1, got {value}")
        return [base + i for i in range(value)]
    if isinstance(value, list) and value and all(isinstance(s, int) for s in value):
        return list(value)
    raise ValueError(f"seeds must be a positive count or a list of ints, got {value!r}")


@trainer
def run_training(spec: Mapping[str, Any], ctx: Any) -> dict[str, Any]:
    """Train per ``spec`` at ``ctx.budget`` on ``ctx.device``; see the module docstring."""
    return train_seeds(spec, ctx).result


@dataclass
class TrainedSeeds:
    """A training result with what produced it: one trained model per seed (only with
    ``keep_models``), the held-out arrays and the batch maker that fed them."""

    result: dict[str, Any]
    models: list[Any]
    held_out: Any
    batches: Any


def train_seeds(spec: Mapping[str, Any], ctx: Any, keep_models: bool = False,
                controls: bool = True) -> TrainedSeeds:
    """:func:`run_training`, keeping every seed's trained model when asked (for checks that
    probe trained networks, such as the equivariance ablation); ``controls=False`` trains only
    the run's own random streams (the result's ``controls`` list is then empty)."""
    import torch

    from models.data import LabelledSplits, load_dataset
    from models.registry import build_model, model_config
    from models.training.allocator import reuse_freed_memory
    from models.training.artifacts import write_reconstruction_grid
    from models.training.loop import Arrays, Batches, LoopSettings, run_seed
    from models.training.resume import checkpoint_path
    from models.training.schedules import resolve_schedule

    started = time.perf_counter()
    settings = effective_spec(spec, ctx.budget)
    device = str(ctx.device)
    if ctx.budget == "full" and not device.startswith("cuda") and not settings.get(
            "allow_cpu_full"):
        from claimcheck.checks.api import DataUnavailable

        raise DataUnavailable("device not available: the full budget runs the paper's protocol "
                              "and expects a GPU (cuda); set allow_cpu_full: true to force CPU")
    schedule = resolve_schedule(settings["model"], settings["schedule"],
                                settings.get("schedule_overrides"), str(settings["dataset"]))
    cap = settings.get("max_batch_size")
    if cap is not None and schedule.batch_size > int(cap):
        schedule = replace(schedule, batch_size=int(cap), departures=(
            *schedule.departures, f"batch size capped at {cap} by the {ctx.budget} budget"))
    overrides = dict(settings.get("overrides") or {})
    config = model_config(settings["model"], settings["preset"], **overrides)  # fail early
    image_size = settings.get("image_size") or getattr(config, "image_size", None)
    source = load_dataset(settings["dataset"], settings.get("data_folder"), image_size=image_size,
                          shift=int(settings.get("shift", 4)),
                          train_pairs_per_image=int(settings.get("train_pairs_per_image", 1)),
                          eval_pairs_per_image=int(settings.get("eval_pairs_per_image", 1)))
    seeds = seed_list(settings.get("seeds"), int(ctx.seed))
    base = source if isinstance(source, LabelledSplits) else source.base
    base = base.subsample(settings.get("train_size"), settings.get("eval_size"), seed=0)
    epochs = int(settings["epochs"] or schedule.epochs)

    if isinstance(source, LabelledSplits):
        identity = base.identity
        fixed = Arrays(base.train_images, base.train_labels)

        def train_data(seed: int, stream: int = 0) -> Any:
            return lambda epoch: fixed

        held_out_for = {s: Arrays(base.eval_images, base.eval_labels) for s in seeds}
    else:
        multi = replace(source, base=base)
        identity = multi.identity

        def train_data(seed: int, stream: int = 0) -> Any:
            def epoch_arrays(epoch: int) -> Arrays:
                pairs = multi.train_epoch(seed, epoch, stream)
                return Arrays(pairs.images, pairs.labels, pairs.components)
            return epoch_arrays

        evaluation = multi.eval_set(seed=0)
        held_out_for = {s: Arrays(evaluation.images, evaluation.labels) for s in seeds}

    mean = std = None
    if schedule.augment == "crop_flip":
        pixels = base.train_images.astype(np.float32) / 255.0
        mean, std = pixels.mean(axis=(0, 2, 3)), pixels.std(axis=(0, 2, 3))
    batches = Batches(device, mean, std)
    probe = build_model(settings["model"], settings["preset"], **overrides)
    amp = bool(settings.get("amp", getattr(probe, "score_kind", "") == "logits"))
    del probe
    limit = settings.get("time_limit_s")
    loop = LoopSettings(epochs=epochs, device=device, amp=amp, time_limit_s=limit,
                        deadline=None if limit is None else started + float(limit),
                        multi_accuracy=multi_accuracy_rule(settings),
                        compile=bool(settings.get("compile", False)))
    reuse_freed_memory()  # no page faults per step; see models.training.allocator
    streams: list[dict[str, int]] = [{}]
    if controls and settings["metric"] != "images_per_second":
        streams += CONTROL_STREAMS
    runs_per_stream: list[list[Any]] = []
    for turn, stream in enumerate(streams):
        stream_loop = replace(loop, data_stream=stream.get("data", 0),
                              init_stream=stream.get("init", 0))
        runs = []
        for index, seed in enumerate(seeds):
            done = turn * len(seeds) + index

            def report(message: str, fraction: float | None, done: int = done) -> None:
                overall = None if fraction is None else (done + fraction) / (
                    len(seeds) * len(streams))
                ctx.progress(message, overall)

            keyed = {**settings, "random_stream": stream} if stream else settings
            runs.append(run_seed(
                lambda: build_model(settings["model"], settings["preset"], **overrides),
                train_data(seed, stream.get("data", 0)), held_out_for[seed], schedule, batches,
                stream_loop, seed, report, label=f"seed {seed}{stream_label(stream)}",
                keep_model=not stream and (keep_models or index == 0),
                checkpoint=checkpoint_path(keyed, schedule.describe(), seed, device)))
        runs_per_stream.append(runs)
    runs = runs_per_stream[0]
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    evaluated = len(held_out_for[seeds[0]].labels)
    result = summarise(settings, schedule, identity.as_dict(), base, runs, device, amp,
                       ctx.budget, evaluation_record(settings, base.num_classes, evaluated))
    result["controls"] = [
        {"label": stream_label(stream).strip(" ()"), "stream": stream,
         "per_seed": [final_metric(settings["metric"], run) for run in control]}
        for stream, control in zip(streams[1:], runs_per_stream[1:], strict=True)]
    result["compile"] = loop.compile
    scratch = getattr(ctx, "scratch", None)
    models = [run.model for run in runs] if keep_models else []
    first, runs[0].model = runs[0].model, None
    if scratch is not None and first is not None and write_reconstruction_grid(
            first, held_out_for[seeds[0]], batches, Path(scratch) / "reconstructions.png"):
        result["artifacts"] = {"reconstructions_png": "reconstructions.png"}
    return TrainedSeeds(result, models, held_out_for[seeds[0]], batches)
