"""Confidence intervals for measurements repeated over seeds on a finite held-out set.

A training claim measures a figure (an accuracy or error in percent, or a difference of two)
once per seed, k times, each time on the same n held-out examples. Two sources of uncertainty
separate the mean of those k figures from the figure the claim is about:

* **seed spread**: another k seeds would give another mean. Its variance is estimated by
  ``s² / k`` (``s`` the sample standard deviation over seeds), with ``k - 1`` degrees of freedom.
* **the finite held-out set**: another n examples would give another figure even for the same
  trained networks. Every seed is evaluated on the same examples, so this part is shared by all
  seeds and does not shrink with k. It is the binomial variance of a proportion, ``p(1 - p) / n``,
  computed with the Agresti–Coull adjustment ``p̃ = (x + z²/2) / (n + z²)``, ``ñ = n + z²``, so
  that a run that got every example right still has an honest, non-zero uncertainty. It is
  treated as known (infinite degrees of freedom).

The two are added (combined standard uncertainty ``u² = s²/k + p̃(1 - p̃)/ñ``, scaled to the
figure's unit) and the interval is ``mean ± t·u``, where ``t`` is Student's quantile at the
Welch–Satterthwaite effective degrees of freedom ``ν = u⁴ / ((s²/k)² / (k - 1))``, truncated to
the next lower integer as the GUM (JCGM 100:2008, G.4) prescribes. With one seed nothing is known
about the seed spread: the interval holds the binomial part only, and the record says so. A
difference of two proportions measured on the same examples (an ablation: arm b minus arm a,
paired by seed) adds both arms' binomial variances, which over-states the shared-set part
(the arms' errors are positively correlated), so its interval is conservative.

Why not a plain t-interval over seeds: with three seeds that happen to agree, it would be
narrower than the sampling error of the held-out set itself (1,000 digits at 98% accuracy have
±0.9 points at 95%), and a claim would be "verified" by luck. Why not a bootstrap: three to five
values do not describe their own distribution.

Everything here is pure Python (``math``, ``statistics``): Student's quantile comes from the
closed form of its CDF for integer degrees of freedom (Abramowitz & Stegun 26.7.3-4) and
bisection, exact to 1e-9. Nothing imports torch or scipy, so reading a stored result stays cheap.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

DEFAULT_LEVEL = 0.95
_NORMAL_BEYOND_DF = 100_000  # Student's t and the normal agree to 1e-5 beyond this


def _t_two_sided_mass(t: float, df: int) -> float:
    """P(|T| ≤ t) for Student's T with integer ``df`` (A&S 26.7.3 odd, 26.7.4 even)."""
    theta = math.atan(t / math.sqrt(df))
    sin, cos = math.sin(theta), math.cos(theta)
    if df % 2 == 0:
        term = total = 1.0
        for j in range(1, df // 2):
            term *= cos * cos * (2 * j - 1) / (2 * j)
            total += term
        return sin * total
    if df == 1:
        return 2.0 * theta / math.pi
    term = total = cos
    for j in range(1, (df - 1) // 2):
        term *= cos * cos * (2 * j) / (2 * j + 1)
        total += term
    return 2.0 / math.pi * (theta + sin * total)


def t_quantile(level: float, df: int | None) -> float:
    """The two-sided critical value: ``P(|T| ≤ t) = level``; ``df=None`` means the normal."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must lie strictly between 0 and 1, got {level}")
    if df is None or df > _NORMAL_BEYOND_DF:
        return statistics.NormalDist().inv_cdf(0.5 + level / 2.0)
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    low, high = 0.0, 1.0
    while _t_two_sided_mass(high, df) < level:
        low, high = high, high * 2.0
    while high - low > 1e-10 * max(1.0, high):
        middle = (low + high) / 2.0
        if _t_two_sided_mass(middle, df) < level:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def binomial_variance(fraction: float, n: int, level: float) -> float:
    """Agresti–Coull variance of a proportion ``fraction`` measured on ``n`` examples."""
    if n < 1:
        raise ValueError(f"a proportion needs at least one example, got n={n}")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"a proportion lies in [0, 1], got {fraction}")
    z2 = t_quantile(level, None) ** 2
    n_tilde = n + z2
    p_tilde = (fraction * n + z2 / 2.0) / n_tilde
    return p_tilde * (1.0 - p_tilde) / n_tilde


@dataclass(frozen=True)
class ChanceLevel:
    """What guessing would score on one measured percentage, which must clear it.

    ``values`` are that percentage's per-seed figures (the measurement itself, or one arm of a
    comparison), each measured on ``n`` held-out examples (default: the parent interval's);
    ``higher_is_better`` says which side is signal (accuracy: above chance; error: below).
    """

    label: str
    chance: float
    higher_is_better: bool
    values: tuple[float, ...]
    n: int | None = None


@dataclass(frozen=True)
class Control:
    """The same figure measured again with another valid random stream (another order and
    augmentation of the data, or another initialisation), same seeds, same held-out examples.

    ``values`` are its per-seed figures, ``proportions`` and ``chance`` as for the interval it
    controls. The engine judges it like the run's own figure; a verdict that differs between
    them depends on the random draw and is "not decided at this budget"
    (:mod:`claimcheck.verdicts.interval`).
    """

    label: str
    values: tuple[float, ...]
    proportions: tuple[float, ...] = ()
    chance: tuple[ChanceLevel, ...] = ()


@dataclass(frozen=True)
class Interval:
    """A mean over seeds with its confidence interval, and everything needed to recompute it.

    ``values`` are the per-seed figures; ``proportions`` the held-out proportions (0..1) whose
    binomial variance enters (one for a plain figure, two for a difference), each measured on
    ``n`` examples; ``scale`` turns a proportion into the figure's unit (100 for percent).
    ``df`` is ``None`` when the normal quantile was used (no seed spread to estimate).
    ``chance`` lists the proportions that must beat guessing for the figure to mean anything.
    """

    mean: float
    low: float
    high: float
    level: float
    std: float | None
    k: int
    df: int | None
    values: tuple[float, ...]
    proportions: tuple[float, ...] = ()
    n: int | None = None
    scale: float = 100.0
    bounds: tuple[float, float] | None = None
    chance: tuple[ChanceLevel, ...] = field(default_factory=tuple)
    controls: tuple[Control, ...] = field(default_factory=tuple)

    @property
    def method(self) -> str:
        """One phrase naming what the interval accounts for."""
        parts = []
        if self.k > 1:
            parts.append(f"seed spread over {self.k} seeds (t, {self.df or 'inf'} df)")
        if self.n:
            parts.append(f"binomial on n={self.n} held-out examples")
        return " + ".join(parts) or "a single value: no uncertainty known"

    def text(self) -> str:
        """``97.7 [97.1, 98.3] (95% CI, 3 seeds)``."""
        seeds = f"{self.k} seed{'s' if self.k != 1 else ''}"
        return (f"{self.mean:.4g} [{self.low:.4g}, {self.high:.4g}] "
                f"({self.level * 100:g}% CI, {seeds})")

    def chance_interval(self, entry: ChanceLevel) -> Interval:
        """The interval of one chance-checked percentage, at this interval's level."""
        return seed_interval(entry.values, self.level,
                             proportions=[statistics.fmean(entry.values) / 100.0],
                             n=entry.n or self.n, scale=100.0, bounds=(0.0, 100.0))

    def control_intervals(self) -> list[tuple[str, Interval]]:
        """Each control's own interval, at this interval's level and on its examples."""
        return [(control.label, seed_interval(
            control.values, self.level, proportions=control.proportions, n=self.n,
            scale=self.scale, bounds=self.bounds, chance=control.chance))
            for control in self.controls]

    def without_signal(self, margin: float = 0.1) -> list[str]:
        """The chance-checked proportions whose interval does not clearly beat chance, as
        ``label mean [low, high] vs chance c`` (see :func:`clears_chance`)."""
        failing = []
        for entry in self.chance:
            own = self.chance_interval(entry)
            if not clears_chance(entry, own, margin):
                failing.append(f"{entry.label} {own.mean:.4g} [{own.low:.4g}, {own.high:.4g}] "
                               f"vs chance {entry.chance:.4g}")
        return failing

    def as_record(self) -> dict[str, Any]:
        """The JSON form stored with a result (plain lists and numbers)."""
        record = asdict(self)
        record["values"] = list(self.values)
        record["proportions"] = list(self.proportions)
        record["bounds"] = None if self.bounds is None else list(self.bounds)
        record["chance"] = [_chance_record(item) for item in self.chance]
        record["controls"] = [{"label": control.label, "values": list(control.values),
                               "proportions": list(control.proportions),
                               "chance": [_chance_record(item) for item in control.chance]}
                              for control in self.controls]
        record["method"] = self.method
        return record


def _chance_record(item: ChanceLevel) -> dict[str, Any]:
    return {**asdict(item), "values": list(item.values)}


def seed_interval(values: Sequence[float], level: float = DEFAULT_LEVEL, *,
                  proportions: Sequence[float] = (), n: int | None = None, scale: float = 100.0,
                  bounds: tuple[float, float] | None = None,
                  chance: Sequence[ChanceLevel] = (),
                  controls: Sequence[Control] = ()) -> Interval:
    """The interval of the mean of ``values`` (see the module docstring for the statistics).

    ``proportions`` with ``n`` add the binomial part of each (in ``scale`` units); ``bounds``
    clip the interval to the figure's possible range (``(0, 100)`` for a percentage);
    ``controls`` are the same figure under other valid random streams (:class:`Control`).
    """
    numbers = [float(v) for v in values]
    if not numbers or not all(math.isfinite(v) for v in numbers):
        raise ValueError(f"an interval needs finite values, got {list(values)!r}")
    if proportions and not n:
        raise ValueError("binomial proportions need the number of examples n")
    k = len(numbers)
    mean = statistics.fmean(numbers)
    std = statistics.stdev(numbers) if k > 1 else None
    seed_var = (std or 0.0) ** 2 / k
    binom_var = sum(binomial_variance(p, n or 0, level) for p in proportions) * scale**2
    total = seed_var + binom_var
    if seed_var > 0.0:
        df: int | None = max(1, math.floor(total**2 / (seed_var**2 / (k - 1))))
    else:
        df = None
    half = t_quantile(level, df) * math.sqrt(total)
    low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    interval = Interval(mean=mean, low=low, high=high, level=level, std=std, k=k, df=df,
                        values=tuple(numbers), proportions=tuple(float(p) for p in proportions),
                        n=n, scale=scale, bounds=bounds, chance=tuple(chance),
                        controls=tuple(controls))
    for entry in interval.chance:  # refuse, now, a chance level that could not be judged
        if not (entry.n or n):
            raise ValueError(f"chance level {entry.label!r} needs the number of examples n")
        interval.chance_interval(entry)
    for control in interval.controls:  # and a control that could not be
        if len(control.values) != k:
            raise ValueError(f"control {control.label!r} has {len(control.values)} values for "
                             f"{k} seeds")
    interval.control_intervals()
    return interval


def clears_chance(entry: ChanceLevel, own: Interval, margin: float = 0.1,
                  top: float = 100.0) -> bool:
    """Whether the whole interval ``own`` of ``entry`` beats chance by a clear margin.

    Clear means: the interval's worse end lies beyond chance by at least ``margin`` of the
    distance from chance to a perfect score (``top`` for an accuracy, 0 for an error). With
    MNIST's 10% chance accuracy an interval must start above 19%; with MultiMNIST's 2.2% (both
    digits right), above 12%; an error must end below 90% of the chance error.
    """
    if entry.higher_is_better:
        return own.low >= entry.chance + margin * (top - entry.chance)
    return own.high <= entry.chance - margin * entry.chance


def interval_from_record(record: Any, level: float | None = None) -> Interval | None:
    """Rebuild a stored interval, recomputed at ``level`` when that differs from the stored one.

    Anything malformed gives ``None`` (the caller then judges the plain measurement).
    """
    if not isinstance(record, Mapping):
        return None
    try:
        values = [float(v) for v in record["values"]]
        stored_level = float(record["level"])
        proportions = [float(p) for p in record.get("proportions") or ()]
        n = record.get("n")
        bounds_raw = record.get("bounds")
        bounds = None if bounds_raw is None else (float(bounds_raw[0]), float(bounds_raw[1]))
        chance = [_chance_from(entry) for entry in record.get("chance") or ()]
        controls = [Control(str(entry["label"]), tuple(float(v) for v in entry["values"]),
                            tuple(float(p) for p in entry.get("proportions") or ()),
                            tuple(_chance_from(item) for item in entry.get("chance") or ()))
                    for entry in record.get("controls") or ()]
        return seed_interval(
            values, level if level is not None else stored_level, proportions=proportions,
            n=int(n) if n is not None else None, scale=float(record.get("scale", 100.0)),
            bounds=bounds, chance=chance, controls=controls)
    except (KeyError, TypeError, ValueError, IndexError, OverflowError):
        return None


def _chance_from(entry: Mapping[str, Any]) -> ChanceLevel:
    return ChanceLevel(str(entry["label"]), float(entry["chance"]),
                       _strict_bool(entry["higher_is_better"]),
                       tuple(float(v) for v in entry["values"]),
                       None if entry.get("n") is None else int(entry["n"]))


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value
