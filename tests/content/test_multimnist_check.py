"""The MultiMNIST recipe check holds for the data module and fails for wrong recipes."""

from __future__ import annotations

import numpy as np

from models.checks.common import all_hold
from models.checks.multimnist import multimnist_recipe, pair_findings, recovered_shift
from models.data.multimnist import make_multimnist, shift_onto_canvas


def test_the_recipe_holds_on_multimnist_5k(make_ctx) -> None:
    evidence = multimnist_recipe(make_ctx({"probe": 50}))
    assert evidence.measured is True, evidence.details
    assert "largest recovered shift (px): 4" in evidence.details


def test_a_shift_of_six_is_recovered_and_exceeds_the_papers_four() -> None:
    rng = np.random.default_rng(0)
    digit = rng.integers(1, 255, size=(28, 28), dtype=np.uint8)
    placed = shift_onto_canvas(digit[None], np.array([-6]), np.array([2]))[0]
    assert recovered_shift(digit, placed) == 6


def test_pairs_of_one_class_and_a_plain_sum_fail() -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, size=(20, 28, 28), dtype=np.uint8)
    labels = np.repeat(np.arange(2), 10)
    good = make_multimnist(images, labels, 1, 4, rng)
    assert all_hold(pair_findings("good", good))
    same_class = type(good)(good.images, np.stack([good.labels[:, 0]] * 2, axis=1),
                            good.components)
    assert not all_hold(pair_findings("same class", same_class))
    summed = (good.components[:, 0].astype(np.uint16) + good.components[:, 1]) % 256
    wrapped = type(good)(summed.astype(np.uint8), good.labels, good.components)
    assert not all_hold(pair_findings("wrapped sum", wrapped))
