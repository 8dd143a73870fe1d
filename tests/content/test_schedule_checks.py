"""The schedule checks measure what the training loop does: the paper's 2-px shifts (and none
where a schedule does not augment), and a learning rate that follows the schedule's decay."""

from __future__ import annotations

import dataclasses

from models.checks import schedule


def test_the_capsnet_paper_schedule_shifts_by_two_pixels(make_ctx) -> None:
    args = {"model": "capsnet", "schedule": "paper", "dataset": "mnist"}
    assert schedule.largest_shift(make_ctx(args)).measured == 2


def test_a_schedule_without_augmentation_shifts_nothing(make_ctx, monkeypatch) -> None:
    from models.training import schedules

    paper = schedules.SCHEDULES["capsnet"]["paper"]
    monkeypatch.setitem(schedules.SCHEDULES["capsnet"], "paper",
                        dataclasses.replace(paper, augment="none"))
    assert schedule.largest_shift(make_ctx({})).measured == 0


def test_the_learning_rate_decays_with_the_steps(make_ctx) -> None:
    def rate(step: int) -> float:
        evidence = schedule.learning_rate_at(make_ctx({"step": step}))
        assert isinstance(evidence.measured, float)
        return evidence.measured

    assert rate(0) == 1e-3
    assert abs(rate(2000) - 1e-3 * 0.96) < 1e-12
