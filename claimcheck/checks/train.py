"""The built-in ``train`` check kind: run the project's trainer and report its metric.

The check knows nothing about models or datasets. It calls the trainer configured as
``[tool.claimcheck] trainer`` (a claim may name another one marked ``@trainer`` with
``args.trainer: "module:function"``) with the claim's remaining args and the context, and
expects the plain dict described in docs/architecture.md, "Trainer contract". It then

* reports ``measured`` = the mean of ``per_seed`` (``details`` carry the std and every seed)
  and ``interval``, its confidence interval at the project's level (``[tool.claimcheck]
  confidence``, :mod:`claimcheck.checks.stats`): seed spread plus, when the trainer says the figure
  is a percentage of ``evaluation.examples`` held-out examples, the binomial error of that set;
  with the trainer's ``evaluation.chance``, the verdict can say "no signal at this budget";
* records the trainer's optional ``controls`` (the same seeds under other valid random streams:
  another data order and augmentation, another initialisation) in the interval, so that the
  engine, not the check, decides whether the verdict depends on the random draw ("not decided
  at this budget", :mod:`claimcheck.verdicts.interval`);
* takes ``fidelity`` and the data identity from the trainer (``exact`` only for the paper's own
  protocol);
* writes ``curve.json`` (the full result) and ``curve.svg`` (loss and metric per epoch, one line
  per seed) into ``ctx.scratch`` and names them as artifacts, together with any files the
  trainer wrote there itself and listed in its optional ``artifacts`` mapping (name -> file
  name), such as a grid of reconstructions.

Budgets are the trainer's business, as amounts of work (images, epochs, seeds): ``smoke`` is
sized for a few tens of CPU seconds per check, ``short`` a few minutes, ``full`` the paper's
protocol on a GPU. A missing dataset surfaces as
``DataUnavailable`` from the trainer. ``KeyboardInterrupt`` propagates untouched, so an
interrupted run leaves no artifact and no result.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from claimcheck.checks.api import CheckContext, Evidence, Fidelity, register_check
from claimcheck.checks.stats import ChanceLevel, Control, Interval, seed_interval
from claimcheck.core import strict_json

REQUIRED_KEYS = ("metric", "per_seed", "seeds", "curves", "device", "data", "fidelity", "details")


class TrainerResultError(ValueError):
    """The trainer returned something that breaks the trainer contract."""


def validate_result(result: Any) -> dict[str, Any]:
    """Check the trainer's dict against the contract and return it."""
    if not isinstance(result, Mapping):
        raise TrainerResultError(f"the trainer returned {type(result).__name__}, not a dict")
    missing = [key for key in REQUIRED_KEYS if key not in result]
    if missing:
        raise TrainerResultError(f"the trainer's result lacks {missing}")
    per_seed = result["per_seed"]
    if not isinstance(per_seed, Sequence) or not per_seed or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
        for v in per_seed
    ):
        raise TrainerResultError(
            f"per_seed must be a non-empty list of finite numbers: {per_seed!r}")
    if len(result["seeds"]) != len(per_seed):
        raise TrainerResultError("seeds and per_seed differ in length")
    controls = result.get("controls", [])
    if not isinstance(controls, Sequence) or isinstance(controls, str) or not all(
        isinstance(c, Mapping) and isinstance(c.get("label"), str)
        and isinstance(c.get("per_seed"), Sequence) and len(c["per_seed"]) == len(per_seed)
        and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in c["per_seed"])
        for c in controls
    ):
        raise TrainerResultError("controls must be a list of {label, per_seed} with one finite "
                                 "number per seed")
    if result["fidelity"] not in ("exact", "proxy"):
        raise TrainerResultError(f"fidelity must be 'exact' or 'proxy', got {result['fidelity']!r}")
    data = result["data"]
    if not isinstance(data, Mapping) or not {"name", "split", "size", "origin"} <= set(data):
        raise TrainerResultError("data must name the dataset: name, split, size and origin")
    return dict(result)


def summary_line(result: Mapping[str, Any]) -> str:
    """Mean, std and every seed, then data, schedule and device, in one line."""
    values = [float(v) for v in result["per_seed"]]
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    seeds = ", ".join(f"seed {s}: {v:.4g}" for s, v in zip(result["seeds"], values, strict=True))
    data = result["data"]
    schedule = result.get("schedule") or {}
    schedule_text = schedule.get("name", "?") if isinstance(schedule, Mapping) else str(schedule)
    controls = "".join(
        f"; control with {c['label']}: mean {statistics.fmean(float(v) for v in c['per_seed']):.4g}"
        f" {[float(v) for v in c['per_seed']]}" for c in result.get("controls", []))
    return (f"{result['metric']} mean {statistics.fmean(values):.4g} ± {spread:.2g} (std over "
            f"{len(values)} seed(s); {seeds}){controls}; data {data['name']} [{data['split']}; "
            f"{data['size']} images; {data['origin']}]; schedule {schedule_text}; device "
            f"{result['device']}")


def write_curve_svg(result: Mapping[str, Any], path: Path) -> None:
    """Two panels, training loss and held-out metric per epoch, one line per seed."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    metric_name = str(result.get("curve_metric", result["metric"]))
    figure = Figure(figsize=(8, 3.2))
    loss_axes, metric_axes = figure.subplots(1, 2)
    for curve in result["curves"]:
        rows = curve.get("epochs", [])
        epochs = [row["epoch"] for row in rows]
        loss_axes.plot(epochs, [row["loss"] for row in rows], marker="o",
                       label=f"seed {curve.get('seed')}")
        metric_axes.plot(epochs, [row["metric"] for row in rows], marker="o",
                         label=f"seed {curve.get('seed')}")
    loss_axes.set(xlabel="epoch", ylabel="training loss", title="loss")
    metric_axes.set(xlabel="epoch", ylabel=f"held-out {metric_name} (%)",
                    title=f"{result['data']['name']}, {result['device']}")
    for axes in (loss_axes, metric_axes):
        axes.grid(alpha=0.3)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.legend(fontsize="small")
    figure.tight_layout()
    with matplotlib.rc_context({"svg.hashsalt": "claimcheck", "svg.fonttype": "none"}):
        figure.savefig(path, format="svg", metadata={"Date": None})


@register_check("train", tier="train")
def train_check(ctx: CheckContext) -> Evidence:
    """Run the configured trainer on the claim's args; see the module docstring."""
    from claimcheck.checks.resolve import load_callable, load_configured
    from claimcheck.trust.roles import Role

    args = dict(ctx.args)
    named = args.pop("trainer", None)
    if named is not None:  # a card's choice: it must be a trainer marked @trainer
        trainer = load_callable(str(named), ctx.config, Role.TRAINER)
    else:
        trainer = load_configured(ctx.config, "trainer")  # "No trainer: ...", as lint says
    started = time.perf_counter()
    result = validate_result(trainer(args, ctx))
    elapsed = time.perf_counter() - started

    ctx.scratch.mkdir(parents=True, exist_ok=True)
    (ctx.scratch / "curve.json").write_text(
        strict_json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    write_curve_svg(result, ctx.scratch / "curve.svg")

    artifacts = {"curve_json": "curve.json", "curve_svg": "curve.svg"}
    extra = result.get("artifacts") or {}
    if isinstance(extra, Mapping):
        artifacts.update({str(name): str(file) for name, file in extra.items()
                          if (ctx.scratch / str(file)).is_file()
                          and Path(str(file)).name == str(file)})
    [float(v) for v in result["per_seed"]]
    timings = {"train_check_s": elapsed}
    if isinstance(result.get("images_per_second"), int | float):
        timings["images_per_second"] = float(result["images_per_second"])
    interval = result_interval(result, ctx.config.confidence)
    return Evidence(
        measured=interval.mean,
        details=f"{summary_line(result)}. {result['details']}",
        fidelity=Fidelity(result["fidelity"]),
        artifacts=artifacts,
        timings=timings,
        data=dict(result["data"]),
        interval=interval.as_record(),
    )


def result_interval(result: Mapping[str, Any], level: float) -> Interval:
    """The confidence interval of the mean of ``per_seed`` (see the module docstring), with
    the trainer's ``controls``: the same seeds under other valid random streams, each judged by
    the engine beside the run's own figure."""
    values = [float(v) for v in result["per_seed"]]
    others = [(str(c["label"]), [float(v) for v in c["per_seed"]])
              for c in result.get("controls", [])]
    evaluation = result.get("evaluation")
    if not isinstance(evaluation, Mapping) or not evaluation.get("percent"):
        return seed_interval(values, level, controls=[
            Control(label, tuple(figures)) for label, figures in others])
    examples = evaluation.get("examples")
    if not isinstance(examples, int) or isinstance(examples, bool) or examples < 1:
        raise TrainerResultError(f"evaluation.examples must be a positive int: {examples!r}")

    def chance(figures: list[float]) -> list[ChanceLevel]:
        if not isinstance(evaluation.get("chance"), int | float):
            return []
        return [ChanceLevel(f"held-out {result['metric']}", float(evaluation["chance"]),
                            bool(evaluation.get("higher_is_better", True)), tuple(figures))]

    def share(figures: list[float]) -> tuple[float]:
        return (statistics.fmean(figures) / 100.0,)

    controls = [Control(label, tuple(figures), share(figures), tuple(chance(figures)))
                for label, figures in others]
    return seed_interval(values, level, proportions=share(values), n=examples, scale=100.0,
                         bounds=(0.0, 100.0), chance=chance(values), controls=controls)
