"""The MultiMNIST recipe of arxiv:1710.09829 §6.1, measured on the data the training checks use.

§6.1: a digit is overlaid on another digit of a *different* class from the same split, each
shifted by up to 4 px in each direction, giving 36×36 images. The crowding assumption (§8, at
most one instance of an entity type per location) is why two digits of one class never meet.
The check builds the ``multimnist-5k`` source as the trainer loads it and measures, on the
held-out pairs and on one training epoch: that no pair repeats a class, that each overlay is the
pixel-wise ``min(a + b, 255)`` of its two components, that images are 1×36×36, and, for the
first ``probe`` held-out pairs, the shift of the base digit, recovered by matching it against
every placement within ±8 px.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import Finding, at_most, property_evidence
from models.data import MultiMnistArrays, MultiMnistSource, load_dataset
from models.data.multimnist import shift_onto_canvas

SEARCH = 8  # px: wider than both the paper's 4 and the Efficient-CapsNet code's 6


def recovered_shift(digit: np.ndarray, component: np.ndarray) -> int | None:
    """The largest |dy| or |dx| that places ``digit`` (28×28) exactly as ``component`` (36×36)."""
    for reach in range(SEARCH + 1):
        for dy in range(-reach, reach + 1):
            for dx in range(-reach, reach + 1):
                if max(abs(dy), abs(dx)) != reach:
                    continue
                placed = shift_onto_canvas(digit[None], np.array([dy]), np.array([dx]))[0]
                if np.array_equal(placed, component):
                    return reach
    return None


def pair_findings(name: str, arrays: MultiMnistArrays) -> list[Finding]:
    """Different classes in every pair, the overlay rule and the image shape."""
    same = int((arrays.labels[:, 0] == arrays.labels[:, 1]).sum())
    merged = np.minimum(arrays.components[:, 0].astype(np.uint16) + arrays.components[:, 1], 255)
    rule = int((merged.astype(np.uint8) != arrays.images).sum())
    return [
        at_most(f"{name}: pairs of one class (of {len(arrays.labels)})", same, 0),
        at_most(f"{name}: pixels where the overlay is not min(a + b, 255)", rule, 0),
        Finding(f"{name}: image shape", tuple(arrays.images.shape[1:]) == (1, 36, 36),
                str(tuple(arrays.images.shape[1:]))),
    ]


@dataclass(frozen=True)
class RecipeArgs(CheckArgs):
    """``max_shift``: the largest shift in px (default 4); ``probe``: held-out pairs probed."""

    max_shift: int = 4
    probe: int = 200


@claim_check(args=RecipeArgs)
def multimnist_recipe(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §6.1 on ``multimnist-5k``. Args: ``max_shift`` (the paper's 4) and
    ``probe`` (held-out pairs whose base shift is recovered, default 200)."""
    args = RecipeArgs.of(ctx)
    max_shift, probe = args.max_shift, args.probe
    source = load_dataset("multimnist-5k")
    if not isinstance(source, MultiMnistSource):
        raise TypeError(f"multimnist-5k loaded as {type(source).__name__}, not MultiMNIST")
    held = source.eval_set(ctx.seed)
    train = source.train_epoch(ctx.seed, 0)
    findings = pair_findings("held-out", held) + pair_findings("training epoch 0", train)
    digits = source.base.eval_images.reshape(-1, 28, 28)
    shifts = [recovered_shift(digits[index % len(digits)], held.components[index, 0, 0])
              for index in range(min(probe, len(held.labels)))]
    unmatched = sum(shift is None for shift in shifts)
    largest = max((shift for shift in shifts if shift is not None), default=0)
    findings += [
        at_most(f"base digits of the first {len(shifts)} held-out pairs not found at any shift "
                f"within ±{SEARCH} px", unmatched, 0),
        at_most("largest recovered shift (px)", largest, max_shift),
    ]
    return property_evidence(f"multimnist-5k as the trainer loads it (seed {ctx.seed})",
                             findings)
