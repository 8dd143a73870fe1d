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
    epochs / train_size / eval_size / time_budget_s / time_limit_s   # override budget defaults
    budgets: {smoke: {...}, short: {...}, full: {...}}  # per-budget overrides, any key above
    amp: true                       # bf16 autocast on cuda (default: only for logit models)

Budgets: ``smoke`` trains 1 epoch on a stratified 1,000-image subset and evaluates on 500
(seconds on CPU); ``short`` trains 3 epochs on the whole train part; ``full`` runs the schedule's
own epoch count on all data and expects a GPU. ``smoke`` and ``short`` cap the batch size at 16
(``max_batch_size``; ``null`` lifts the cap) so that a short run still takes enough optimiser
steps to show learning (a 1,000-image epoch at CapsNet's batch 128 is 8 steps); the cap is listed
among the proxy reasons. ``time_limit_s`` (smoke 60 s, short 600 s: twice the targets of ~30 s
and ~5 min) guards the whole check: past it the run raises ``BudgetExceeded`` and the claim is
unverified, never judged on fewer epochs than it states. ``time_budget_s`` instead deliberately
stops each seed's training once that much training time is spent, for equal-wall-clock
comparisons (then evaluated and reported as a proxy). A result is ``exact`` only on the
paper's dataset and test split, at ``full``, with a schedule that has no departures; otherwise
``proxy``, with the reasons listed.

Besides the contract's keys the result may carry ``artifacts: {"reconstructions_png":
"reconstructions.png"}``, a file written into ``ctx.scratch`` for capsule models with a decoder
(eight held-out inputs above their reconstructions, from the first seed's model).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from claimcheck import trainer

BUDGET_DEFAULTS: dict[str, dict[str, Any]] = {
    "smoke": {"epochs": 1, "train_size": 1000, "eval_size": 500, "time_limit_s": 60.0,
              "max_batch_size": 16},
    "short": {"epochs": 3, "train_size": None, "eval_size": None, "time_limit_s": 600.0,
              "max_batch_size": 16},
    "full": {"epochs": None, "train_size": None, "eval_size": None, "time_limit_s": None,
             "max_batch_size": None},
}
SPEC_KEYS = {"model", "preset", "overrides", "dataset", "data_folder", "shift", "schedule",
             "schedule_overrides", "metric", "seeds", "epochs", "train_size", "eval_size",
             "time_budget_s", "time_limit_s", "budgets", "amp", "allow_cpu_full",
             "train_pairs_per_image", "eval_pairs_per_image", "max_batch_size", "image_size"}
PAPER_MULTIMNIST_PAIRS = 1000  # arxiv:1710.09829 §6.1: 1K overlays per digit
METRICS = ("accuracy", "error", "images_per_second")


def effective_spec(spec: Mapping[str, Any], budget: str) -> dict[str, Any]:
    """Budget defaults, then the spec's flat keys, then ``budgets[budget]``."""
    if budget not in BUDGET_DEFAULTS:
        raise ValueError(f"unknown budget {budget!r}; use smoke, short or full")
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
    import torch

    from models.data import LabelledSplits, load_dataset
    from models.registry import build_model, model_config
    from models.train_loop import (
        Arrays,
        Batches,
        LoopSettings,
        run_seed,
        write_reconstruction_grid,
    )
    from models.train_schedules import resolve_schedule

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

        def train_data(seed: int) -> Any:
            return lambda epoch: fixed

        held_out_for = {s: Arrays(base.eval_images, base.eval_labels) for s in seeds}
    else:
        multi = replace(source, base=base)
        identity = multi.identity

        def train_data(seed: int) -> Any:
            def epoch_arrays(epoch: int) -> Arrays:
                pairs = multi.train_epoch(seed, epoch)
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
                        time_budget_s=settings.get("time_budget_s"))
    runs = []
    for index, seed in enumerate(seeds):
        def report(message: str, fraction: float | None, index: int = index) -> None:
            overall = None if fraction is None else (index + fraction) / len(seeds)
            ctx.progress(message, overall)

        runs.append(run_seed(
            lambda: build_model(settings["model"], settings["preset"], **overrides),
            train_data(seed), held_out_for[seed], schedule, batches, loop, seed, report,
            label=f"seed {seed}", keep_model=index == 0))
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    result = summarise(settings, schedule, identity.as_dict(), base, runs, device, amp,
                       ctx.budget)
    scratch = getattr(ctx, "scratch", None)
    first = runs[0].model
    runs[0].model = None
    if scratch is not None and first is not None and write_reconstruction_grid(
            first, held_out_for[seeds[0]], batches, Path(scratch) / "reconstructions.png"):
        result["artifacts"] = {"reconstructions_png": "reconstructions.png"}
    return result


def fidelity_reasons(settings: Mapping[str, Any], schedule: Any, base: Any, runs: list[Any],
                     budget: str) -> list[str]:
    """Why a run is a proxy; an empty list means it follows the paper's protocol exactly."""
    reasons = []
    if budget != "full":
        reasons.append(f"budget {budget} (only full runs the paper's protocol)")
    dataset = str(settings["dataset"])
    if dataset not in schedule.paper_datasets:
        papers = ", ".join(schedule.paper_datasets)
        reasons.append(f"dataset {dataset} is not the paper's ({papers})")
    if not base.eval_is_test:
        reasons.append("evaluated on a held-out part of training digits, not the test split")
    if "subsample" in base.identity.extra:
        reasons.append(base.identity.extra["subsample"])
    if dataset.startswith("multimnist"):
        pairs = (settings.get("train_pairs_per_image", 1), settings.get("eval_pairs_per_image", 1))
        if pairs != (PAPER_MULTIMNIST_PAIRS, PAPER_MULTIMNIST_PAIRS):
            reasons.append(f"MultiMNIST with {pairs[0]} train / {pairs[1]} eval pair(s) per digit "
                           f"instead of {PAPER_MULTIMNIST_PAIRS}")
        if int(settings.get("shift", 4)) != 4:
            reasons.append(f"MultiMNIST shift ±{settings.get('shift')} px, not the paper's ±4")
    if int(settings["epochs"] or schedule.epochs) != schedule.epochs:
        reasons.append(f"{settings['epochs']} epochs instead of {schedule.epochs}")
    reasons.extend(schedule.departures)
    reasons.extend(sorted({run.stopped for run in runs if run.stopped}))
    return reasons


def summarise(settings: Mapping[str, Any], schedule: Any, data: dict[str, Any], base: Any,
              runs: list[Any], device: str, amp: bool, budget: str) -> dict[str, Any]:
    metric = settings["metric"]
    curve_metric = "error" if metric == "error" else "accuracy"

    def final(run: Any) -> float:
        if metric == "images_per_second":
            return run.images_trained / max(run.train_seconds, 1e-9)
        return 100.0 - run.accuracy if metric == "error" else run.accuracy

    per_seed = [round(final(run), 4) for run in runs]
    curves = [{"seed": run.seed, "epochs": [
        {**row, "metric": round(100.0 - row["accuracy"] if curve_metric == "error"
                                else row["accuracy"], 4)} for row in run.epochs]}
        for run in runs]
    images = sum(run.images_trained for run in runs)
    seconds = sum(run.train_seconds for run in runs)
    reasons = fidelity_reasons(settings, schedule, base, runs, budget)
    described = schedule.describe()
    described["epochs_run"] = max(len(run.epochs) for run in runs)
    described["epochs"] = int(settings["epochs"] or schedule.epochs)
    mean = statistics.fmean(per_seed)
    spread = statistics.stdev(per_seed) if len(per_seed) > 1 else 0.0
    details = (f"{settings['model']}/{settings['preset']} on {data['name']} ({data['split']}), "
               f"schedule {schedule.name} [{schedule.optimizer} lr {schedule.lr:g}, batch "
               f"{schedule.batch_size}, {described['epochs_run']} epoch(s)], {metric} "
               f"{mean:.4g} ± {spread:.2g} over seeds {[run.seed for run in runs]}: {per_seed}; "
               f"{images / max(seconds, 1e-9):.0f} img/s on {device}"
               f"{' with bf16 autocast' if amp else ''}")
    if metric != "images_per_second":
        evaluated = len(base.eval_labels) * int(settings.get("eval_pairs_per_image", 1))
        accuracy = statistics.fmean(run.accuracy for run in runs) / 100.0
        error_bar = 100.0 * (accuracy * (1.0 - accuracy) / max(evaluated, 1)) ** 0.5
        details += f"; binomial s.e. ±{error_bar:.2g} pp on {evaluated} eval images"
    if data.get("note"):
        details += f"; {data['note']}"
    if reasons:
        details += "; proxy because: " + "; ".join(reasons)
    return {
        "metric": metric,
        "curve_metric": curve_metric,
        "per_seed": per_seed,
        "seeds": [run.seed for run in runs],
        "curves": curves,
        "images_per_second": images / max(seconds, 1e-9),
        "device": device,
        "amp": amp,
        "data": data,
        "schedule": described,
        "budget": budget,
        "fidelity": "proxy" if reasons else "exact",
        "fidelity_reasons": reasons,
        "details": details,
    }
