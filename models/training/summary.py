"""What a training run reports: the final figure per seed, chance, fidelity and one summary line.

Split from :mod:`models.training.run` (which runs the seeds) so that the reporting rules read in one
place:

* **metric**: ``accuracy`` or ``error`` in percent of the held-out examples, or
  ``images_per_second``; the per-epoch curves always hold the accuracy too.
* **chance** (:func:`evaluation_record`): what a uniform guess scores, in the metric's unit:
  1/K of K classes; on MultiMNIST 1/C(K, 2) = 1/45 when both digits must be right
  (arxiv:1710.09829 §6.2) and 2/K when each of the two digits counts half (the Efficient-CapsNet
  code's ``multiAccuracy``). The ``train`` check turns it into the verdict's "no signal" rule.
* **fidelity** (:func:`fidelity_reasons`): ``exact`` only for the paper's protocol; every other
  run lists why it is a proxy.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from typing import Any

PAPER_MULTIMNIST_PAIRS = 1000  # arxiv:1710.09829 §6.1: 1K overlays per digit
MULTI_ACCURACY_RULES = ("both", "per_digit")
# Which MultiMNIST accuracy each model's paper uses (see the module docstring).
MULTI_ACCURACY_DEFAULTS = {"capsnet": "both", "capsnet_narrow": "both",
                           "capsnet_baseline": "both", "efficient_capsnet": "per_digit"}


def multi_accuracy_rule(settings: Mapping[str, Any]) -> str:
    """``both`` or ``per_digit``: the claim's choice, else its model's paper's."""
    rule = settings.get("multi_accuracy") or MULTI_ACCURACY_DEFAULTS.get(
        str(settings["model"]), "both")
    if rule not in MULTI_ACCURACY_RULES:
        raise ValueError(f"multi_accuracy must be one of {MULTI_ACCURACY_RULES}, got {rule!r}")
    return str(rule)


def evaluation_record(settings: Mapping[str, Any], num_classes: int,
                      examples: int) -> dict[str, Any]:
    """How the figure was measured: held-out ``examples``, ``chance`` and its direction."""
    metric = settings["metric"]
    if str(settings["dataset"]).startswith("multimnist"):
        rule = multi_accuracy_rule(settings)
        if rule == "both":
            chance_accuracy = 100.0 / math.comb(num_classes, 2)
            definition = "both digits are the two longest capsules (1710.09829 §6.2)"
        else:
            chance_accuracy = 100.0 * 2 / num_classes
            definition = "half a point per digit among the two longest (2101.12491 code)"
    else:
        chance_accuracy = 100.0 / num_classes
        definition = "the longest capsule (or largest logit) is the label"
    record: dict[str, Any] = {"examples": examples, "definition": definition}
    if metric == "images_per_second":
        return record
    error = metric == "error"
    record.update(chance=100.0 - chance_accuracy if error else chance_accuracy,
                  higher_is_better=not error, percent=True)
    return record


def fidelity_reasons(settings: Mapping[str, Any], schedule: Any, base: Any, runs: list[Any],
                     budget: str) -> list[str]:
    """Why a run is a proxy; an empty list means it follows the paper's protocol exactly."""
    reasons = []
    if budget != "full":
        reasons.append(f"budget {budget} (only full runs the paper's protocol)")
    dataset = str(settings["dataset"])
    if not schedule.paper_datasets:
        reasons.append(f"{settings['model']} is the wiki's own variant, not a paper's network")
    elif dataset not in schedule.paper_datasets:
        papers = ", ".join(schedule.paper_datasets)
        reasons.append(f"dataset {dataset} is not the paper's ({papers})")
    if settings.get("overrides"):
        changed = ", ".join(f"{k}={v!r}" for k, v in sorted(dict(settings["overrides"]).items()))
        reasons.append(f"model {settings['model']}/{settings['preset']} changed ({changed}): "
                       "not the paper's network")
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
    return reasons


def final_metric(metric: str, run: Any) -> float:
    """One seed's figure for the result: its last held-out accuracy or error (percent, 4
    decimals), or its training throughput."""
    if metric == "images_per_second":
        return round(float(run.images_trained / max(run.train_seconds, 1e-9)), 4)
    return round(float(100.0 - run.accuracy if metric == "error" else run.accuracy), 4)


def summarise(settings: Mapping[str, Any], schedule: Any, data: dict[str, Any], base: Any,
              runs: list[Any], device: str, amp: bool, budget: str,
              evaluation: dict[str, Any]) -> dict[str, Any]:
    """The trainer contract's dict (docs/architecture.md, "Trainer contract")."""
    metric = settings["metric"]
    curve_metric = "error" if metric == "error" else "accuracy"
    per_seed = [final_metric(metric, run) for run in runs]
    curves = [{"seed": run.seed, "epochs": [
        {**row, "metric": round(100.0 - row["accuracy"] if curve_metric == "error"
                                else row["accuracy"], 4)} for row in run.epochs]}
        for run in runs]
    images = sum(run.images_trained for run in runs)
    seconds = sum(run.train_seconds for run in runs)
    reasons = fidelity_reasons(settings, schedule, base, runs, budget)
    described = schedule.describe()
    described["epochs"] = int(settings["epochs"] or schedule.epochs)
    mean = statistics.fmean(per_seed)
    spread = statistics.stdev(per_seed) if len(per_seed) > 1 else 0.0
    details = (f"{settings['model']}/{settings['preset']} on {data['name']} ({data['split']}), "
               f"schedule {schedule.name} [{schedule.optimizer} lr {schedule.lr:g}, batch "
               f"{schedule.batch_size}, {described['epochs']} epoch(s)], {metric} "
               f"{mean:.4g} ± {spread:.2g} over seeds {[run.seed for run in runs]}: {per_seed}; "
               f"{images / max(seconds, 1e-9):.0f} img/s on {device}"
               f"{' with bf16 autocast' if amp else ''}")
    if "chance" in evaluation:
        details += (f"; chance {evaluation['chance']:.3g}% on {evaluation['examples']} "
                    f"held-out examples ({evaluation['definition']})")
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
        "evaluation": evaluation,
        "fidelity": "proxy" if reasons else "exact",
        "fidelity_reasons": reasons,
        "details": details,
    }
