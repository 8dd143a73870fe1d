"""claimcheck.checks.stats: Student's quantiles, the combined seed + binomial interval, chance."""

from __future__ import annotations

import math
import statistics

import pytest

from claimcheck.checks.stats import (
    ChanceLevel,
    binomial_variance,
    interval_from_record,
    seed_interval,
    t_quantile,
)


@pytest.mark.parametrize("level, df, expected", [
    (0.95, 1, 12.7062), (0.95, 2, 4.3027), (0.95, 3, 3.1824), (0.95, 4, 2.7764),
    (0.95, 9, 2.2622), (0.95, 30, 2.0423), (0.99, 2, 9.9248), (0.90, 5, 2.0150),
    (0.95, None, 1.9600), (0.99, None, 2.5758),
])
def test_t_quantile_matches_the_tables(level: float, df: int | None, expected: float) -> None:
    assert t_quantile(level, df) == pytest.approx(expected, abs=5e-4)


def test_t_quantile_tends_to_the_normal() -> None:
    assert t_quantile(0.95, 90_000) == pytest.approx(1.95997, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.95, 0)


def test_binomial_variance_is_never_zero_and_matches_wald_away_from_the_edges() -> None:
    assert binomial_variance(1.0, 1000, 0.95) > 0.0
    assert binomial_variance(0.5, 10_000, 0.95) == pytest.approx(0.25 / 10_000, rel=1e-3)


def test_one_seed_gets_the_binomial_interval_only() -> None:
    interval = seed_interval([98.0], proportions=[0.98], n=1000, bounds=(0, 100))
    assert interval.std is None and interval.df is None
    # Agresti-Coull half-width at 98% of 1,000: about 0.88 points
    assert interval.high - interval.mean == pytest.approx(0.88, abs=0.03)
    assert "binomial on n=1000" in interval.method


def test_agreeing_seeds_never_give_an_interval_narrower_than_the_held_out_set() -> None:
    lucky = seed_interval([97.7, 97.7, 97.7], proportions=[0.977], n=1000, bounds=(0, 100))
    alone = seed_interval([97.7], proportions=[0.977], n=1000, bounds=(0, 100))
    assert lucky.low == pytest.approx(alone.low) and lucky.high == pytest.approx(alone.high)


def test_seed_spread_widens_the_interval_with_welch_satterthwaite_df() -> None:
    values = [97.0, 98.0, 97.5]
    interval = seed_interval(values, proportions=[0.975], n=1000, bounds=(0, 100))
    seed_var = statistics.stdev(values) ** 2 / 3
    binom_var = binomial_variance(0.975, 1000, 0.95) * 100**2
    total = seed_var + binom_var
    df = math.floor(total**2 / (seed_var**2 / 2))
    assert interval.df == df
    half = t_quantile(0.95, df) * math.sqrt(total)
    assert (interval.low, interval.high) == pytest.approx((97.5 - half, 97.5 + half))


def test_pure_seed_interval_is_the_t_interval() -> None:
    values = [10.0, 12.0, 14.0]
    interval = seed_interval(values, 0.95)
    assert interval.df == 2
    assert interval.high - 12.0 == pytest.approx(4.3027 * 2.0 / math.sqrt(3), rel=1e-4)


def test_bounds_clip_and_bad_input_is_refused() -> None:
    assert seed_interval([99.9], proportions=[0.999], n=100, bounds=(0, 100)).high == 100.0
    with pytest.raises(ValueError):
        seed_interval([])
    with pytest.raises(ValueError):
        seed_interval([float("nan")])
    with pytest.raises(ValueError):
        seed_interval([1.0], proportions=[0.5])


def test_chance_rule() -> None:
    at_chance = seed_interval([2.3, 2.0, 2.5], proportions=[0.0227], n=1000, bounds=(0, 100),
                              chance=[ChanceLevel("accuracy", 2.22, True, (2.3, 2.0, 2.5))])
    assert at_chance.without_signal() and "vs chance 2.22" in at_chance.without_signal()[0]
    learned = seed_interval([40.0, 42.0, 41.0], proportions=[0.41], n=1000, bounds=(0, 100),
                            chance=[ChanceLevel("accuracy", 2.22, True, (40.0, 42.0, 41.0))])
    assert learned.without_signal() == []
    errors = seed_interval([97.5, 97.8, 98.0], proportions=[0.977], n=500, bounds=(0, 100),
                           chance=[ChanceLevel("error", 97.78, False, (97.5, 97.8, 98.0))])
    assert errors.without_signal()


def test_record_round_trip_and_recomputation_at_another_level() -> None:
    interval = seed_interval([97.0, 98.0, 97.5], 0.95, proportions=[0.975], n=1000,
                             bounds=(0, 100),
                             chance=[ChanceLevel("acc", 10.0, True, (97.0, 98.0, 97.5))])
    record = interval.as_record()
    assert record["method"].startswith("seed spread over 3 seeds")
    same = interval_from_record(record)
    assert same is not None and (same.low, same.high) == pytest.approx(
        (interval.low, interval.high))
    wider = interval_from_record(record, 0.99)
    assert wider is not None and wider.level == 0.99
    assert wider.low < interval.low and wider.high > interval.high


@pytest.mark.parametrize("broken", [
    None, [], {"values": [1.0]}, {"values": ["x"], "level": 0.95},
    {"values": [1.0], "level": 2.0}, {"values": [50.0], "level": 0.95, "proportions": [0.5]},
    {"values": [50.0], "level": 0.95, "proportions": [1.5], "n": 10},
    {"values": [50.0], "level": 0.95, "chance": [{"label": "a", "chance": 1,
                                                  "higher_is_better": "no", "values": [1]}]},
])
def test_malformed_records_read_as_none(broken: object) -> None:
    assert interval_from_record(broken) is None


def test_chance_levels_that_could_not_be_judged_are_refused_up_front() -> None:
    with pytest.raises(ValueError, match="needs the number of examples"):
        seed_interval([1.0, 2.0], chance=[ChanceLevel("acc", 10.0, True, (50.0, 60.0))])
    with pytest.raises(ValueError):
        seed_interval([1.0, 2.0], chance=[ChanceLevel("acc", 10.0, True, (150.0,), 100)])
    own_n = seed_interval([1.0, 2.0], chance=[ChanceLevel("acc", 10.0, True, (55.0, 56.0), 500)])
    assert own_n.without_signal() == []
