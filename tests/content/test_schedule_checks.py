"""The schedule and data checks measure what the training loop and the generator do: shifts as a
whole distribution, the rate the optimiser holds at a given update, new randomness every epoch,
and both MultiMNIST digits. Each wrong variant of those classes flips its check."""

from __future__ import annotations

import dataclasses

import pytest

from models.checks import epochs, multimnist, schedule
from models.variants import data as data_variants
from models.variants import loop as loop_variants


@pytest.fixture
def patched_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wrong variants applied in this test are undone when it ends."""
    from models.variants import patching

    monkeypatch.setattr(patching, "APPLY", monkeypatch.setattr)


def test_the_capsnet_paper_schedule_shifts_uniformly_by_up_to_two_pixels(make_ctx) -> None:
    args = {"model": "capsnet", "schedule": "paper", "dataset": "mnist", "reach": 2}
    evidence = schedule.shift_distribution(make_ctx(args))
    assert evidence.measured is True, evidence.details


def test_a_schedule_without_augmentation_fails_the_shift_claim(make_ctx, monkeypatch) -> None:
    from models.training import schedules

    paper = schedules.SCHEDULES["capsnet"]["paper"]
    monkeypatch.setitem(schedules.SCHEDULES["capsnet"], "paper",
                        dataclasses.replace(paper, augment="none"))
    assert schedule.shift_distribution(make_ctx({})).measured is False


@pytest.mark.parametrize("variant", ["shifts_one_direction", "shifts_one_per_batch",
                                     "shifts_short_range", "shifts_same_both_axes"])
def test_every_shift_slip_fails_the_shift_claim(make_ctx, variant, patched_variants) -> None:
    getattr(loop_variants, variant)()
    assert schedule.shift_distribution(make_ctx({})).measured is False


def rate(make_ctx, **args: int) -> float:
    evidence = schedule.loop_learning_rate(make_ctx(args))
    assert isinstance(evidence.measured, float)
    return evidence.measured


def test_the_rate_is_read_from_the_optimiser_inside_the_loop(make_ctx) -> None:
    assert rate(make_ctx) == 1e-3
    smooth = rate(make_ctx, epoch=2, epoch_start=300, step=333)
    assert smooth == pytest.approx(1e-3 * 0.96 ** (333 / 2000), rel=1e-9)


def test_a_staircase_and_a_once_per_epoch_rate_differ_off_the_round_steps(
        make_ctx, patched_variants) -> None:
    loop_variants.schedule_staircase_decay()
    assert rate(make_ctx, epoch=2, epoch_start=300, step=333) == 1e-3


def test_a_rate_set_once_per_epoch_is_seen_inside_the_epoch(make_ctx, patched_variants) -> None:
    loop_variants.loop_rate_set_once_per_epoch()
    assert rate(make_ctx, epoch=2, epoch_start=300, step=333) == pytest.approx(
        1e-3 * 0.96 ** (300 / 2000), rel=1e-9)


def test_a_step_outside_the_probe_range_is_refused(make_ctx) -> None:
    with pytest.raises(ValueError, match="step must lie in"):
        rate(make_ctx, epoch_start=10, step=5)


def test_each_epoch_draws_anew_and_a_seed_repeats(make_ctx, patched_variants) -> None:
    args = {"model": "efficient_capsnet", "schedule": "official", "dataset": "mnist"}
    assert epochs.epoch_randomness(make_ctx(args)).measured is True
    loop_variants.loop_same_order_every_epoch()
    assert epochs.epoch_randomness(make_ctx(args)).measured is False


@pytest.mark.parametrize("variant", ["", "multimnist_shift_six", "multimnist_top_unshifted",
                                     "multimnist_top_shift_like_base",
                                     "multimnist_same_pairs_every_epoch"])
def test_both_multimnist_digits_are_shifted_on_their_own(make_ctx, variant,
                                                         patched_variants) -> None:
    if variant:
        getattr(data_variants, variant)()
    evidence = multimnist.multimnist_shifts(make_ctx({"max_shift": 4}))
    assert evidence.measured is (not variant), evidence.details
