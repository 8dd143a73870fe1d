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


@dataclass(frozen=True)
class PairShiftArgs(CheckArgs):
    """``max_shift``: the largest shift in px per axis (the paper's 4); ``digits``: probe digits
    per split; ``epochs``: training epochs drawn."""

    max_shift: int = 4
    digits: int = 250
    epochs: int = 8


def probe_source(digits: int, shift: int) -> MultiMnistSource:
    """The trainer's MultiMNIST source on one-pixel probe digits: digit ``n`` is black but for
    pixel value ``n + 1`` at the centre, so a component's pixel tells which digit it is and
    where the generator put it. Labels ``n % 10``; the same digits in both splits."""
    from models.checks.loop_probe import probe_images
    from models.data import DataIdentity, LabelledSplits

    images, labels = probe_images(digits)
    identity = DataIdentity(name="probe", split="probe", size=digits, origin="one-pixel probes")
    base = LabelledSplits(train_images=images, train_labels=labels, eval_images=images,
                          eval_labels=labels, identity=identity, eval_is_test=False,
                          num_classes=10)
    return MultiMnistSource(base, shift=shift)


def placements(arrays: MultiMnistArrays) -> np.ndarray:
    """(N, 2, 3): for each pair and each digit (base, top) its identity, dy and dx, read from
    the component's one bright pixel (identity -1 when it is not exactly one pixel)."""
    centre = 18  # a 28×28 digit's centre on the 36×36 canvas (4 px of padding)
    found = np.full((len(arrays.labels), 2, 3), -1, dtype=np.int64)
    for index in range(len(arrays.labels)):
        for part in range(2):
            where = np.argwhere(arrays.components[index, part, 0])
            if len(where) == 1:
                row, col = where[0]
                value = int(arrays.components[index, part, 0, row, col])
                found[index, part] = (value - 1, row - centre, col - centre)
    return found


@claim_check(args=PairShiftArgs)
def multimnist_shifts(ctx: CheckContext) -> Evidence:
    """arxiv:1710.09829 §6.1, each independent part of the generator the trainer calls
    (``MultiMnistSource.train_epoch`` and ``eval_set``), on one-pixel probe digits: both the
    base and the top digit shifted by every integer in [-max_shift, max_shift] per axis,
    uniformly (X² at p = 1e-4), nothing beyond; the top digit's shift independent of the
    base's (the joint distribution uniform, equal shifts no more common than chance); every
    base digit used once per epoch, each top digit another class; a new draw of partners and
    shifts each epoch, the same one for the same seed."""
    from collections import Counter

    from models.checks.schedule import chi_bound, chi_square_uniform

    args = PairShiftArgs.of(ctx)
    source = probe_source(args.digits, args.max_shift)
    epochs = [source.train_epoch(ctx.seed, epoch) for epoch in range(args.epochs)]
    found = np.concatenate([placements(arrays) for arrays in epochs])
    lost = int((found[:, :, 0] < 0).sum())
    kept = found[(found[:, :, 0] >= 0).all(axis=1)]
    span = list(range(-args.max_shift, args.max_shift + 1))
    total = len(kept)
    findings: list[Finding] = [at_most(f"digits not found as one pixel (of {found.size // 3})",
                                       lost, 0)]
    for part, name in ((0, "base"), (1, "top")):
        for axis, label in ((1, "row"), (2, "column")):
            counts = Counter(int(v) for v in kept[:, part, axis])
            findings.append(Finding(f"{name} digit {label} shifts seen", set(counts) == set(span),
                                    str(sorted(counts))))
            findings.append(at_most(f"X² of {name} {label} shifts against uniform",
                                    chi_square_uniform(counts, list(span), total),
                                    chi_bound(len(span))))
    pairs: list[object] = [(a, b) for a in span for b in span]
    for axis, label in ((1, "row"), (2, "column")):
        joint = Counter((int(a), int(b)) for a, b in kept[:, :, axis])
        findings.append(at_most(f"X² of (base, top) {label} shifts against uniform "
                                "(independent digits)", chi_square_uniform(joint, pairs, total),
                                chi_bound(len(pairs))))
    alike = float(((kept[:, 0, 1:] == kept[:, 1, 1:]).all(axis=1)).mean()) if total else 1.0
    findings.append(at_most(f"share of pairs whose two digits share (dy, dx) (chance "
                            f"{1 / len(pairs):.4f})", alike, 3.0 / len(pairs)))
    first = placements(epochs[0])
    findings += [
        Finding("every base digit once per epoch",
                sorted(first[:, 0, 0].tolist()) == list(range(args.digits)), "epoch 0"),
        at_most("pairs whose top digit has the base digit's class",
                int((kept[:, 0, 0] % 10 == kept[:, 1, 0] % 10).sum()), 0),
        Finding("epoch 1 draws other partners and shifts than epoch 0",
                not np.array_equal(first, placements(epochs[1])), "epochs compared"),
        Finding("the same seed repeats epoch 0",
                np.array_equal(first, placements(source.train_epoch(ctx.seed, 0))),
                "epoch 0 drawn twice"),
        Finding("the same seed repeats the held-out pairs",
                np.array_equal(placements(source.eval_set(ctx.seed)),
                               placements(source.eval_set(ctx.seed))), "drawn twice"),
    ]
    return property_evidence(
        f"MultiMnistSource (shift {args.max_shift}) on {args.digits} one-pixel probe digits, "
        f"{args.epochs} training epochs, seed {ctx.seed}", findings)
