"""Checks for slips a port makes around the model rather than in its formulas: a fast path that
keeps a copy of its weights, dropout on the wrong side of a norm, the second digit's shift tied
across its axes, a flip about the wrong axis, and random streams that two runs share.

Each measures the path the network or the training loop runs (``docs/checks-that-can-fail.md``):

* :func:`window_conv_after_update`: the primary capsules' fast depthwise path
  (``models.capsules.WindowDepthwiseConv2d``), read through a forward hook while the *network*
  runs, after optimiser steps and after ``load_state_dict``, not only on a fresh layer;
* :func:`dropout_before_norm`: every inverted-routing capsule layer of the network, as the
  concurrent routing calls it, in train mode with dropout switched on;
* :func:`multimnist_joint_shifts`: the generator the trainer calls, each digit's (row, column)
  shift as one draw over its 81 cells, and the two digits' shifts against each other;
* :func:`crop_flip_distribution`: the training loop's epoch function on probe images whose
  markers say which way an image was mirrored and how far it was moved;
* :func:`data_streams_distinct`: the loop's epochs over a grid of seeds and epochs, no two of
  which may share an order or an augmentation.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence
from models.checks.common import (
    DTYPE,
    EfficientPresetArgs,
    Finding,
    at_least,
    at_most,
    generator,
    max_abs,
    property_evidence,
)
from models.checks.epochs import EpochArgs
from models.checks.schedule import ShiftArgs

TOL = 1e-10

# --- the primary capsules' fast path after the weights change ---------------------------------


def _gap(value: float) -> float:
    """A NaN gap is an infinite one (``max`` of NaN and a number keeps the number)."""
    return value if value == value else float("inf")


def _kept_graph_gradients(output: Tensor, inputs: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """As :func:`models.checks.gradients.gradients` (zeros where the output does not reach an
    input), keeping the graph for the training step that follows."""
    if not output.requires_grad:
        return tuple(torch.zeros_like(x) for x in inputs)
    found = torch.autograd.grad(output, inputs, retain_graph=True, allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g
                 for g, x in zip(found, inputs, strict=True))


def _window_findings(conv: Any, x: Tensor, out: Tensor, seed: int, phase: str) -> list[Finding]:
    """The layer's output ``out`` on ``x`` (as the network called it) and its gradients with
    respect to the kernel, the bias and ``x``, against ``F.conv2d`` with groups = channels."""
    g = torch.randn(out.shape, generator=generator(seed + 7), dtype=out.dtype)
    ref_x = x.detach().contiguous().requires_grad_(True)
    ref_w = conv.weight.detach().clone().requires_grad_(True)
    ref_b = conv.bias.detach().clone().requires_grad_(True)
    expected = F.conv2d(ref_x, ref_w, ref_b, conv.stride, 0, 1, conv.groups)
    wanted = torch.autograd.grad((expected * g).sum(), (ref_x, ref_w, ref_b))
    findings = [at_most(f"{phase}: max |output - grouped conv|", _gap(max_abs(out, expected)),
                        TOL)]
    try:
        got = _kept_graph_gradients((out * g).sum(), (x, conv.weight, conv.bias))
        gaps = [_gap(max_abs(a.contiguous(), b)) for a, b in zip(got, wanted, strict=True)]
    except RuntimeError as exc:  # a stale graph that cannot be differentiated again
        gaps, phase = [float("inf")] * 3, f"{phase} (backward raised {type(exc).__name__})"
    for name, gap in zip(("kernel", "bias", "input"), gaps[1:] + gaps[:1], strict=True):
        findings.append(at_most(f"{phase}: max |d/d{name} - grouped conv's|", gap, TOL))
    return findings


@claim_check(args=EfficientPresetArgs)
def window_conv_after_update(ctx: CheckContext) -> Evidence:
    """The network's primary depthwise layer, read by a forward hook on every network forward,
    against the grouped convolution of the weights it holds at that moment: on the first call,
    after each of two Adam steps on the network's loss, and after ``load_state_dict`` of
    another initialisation. Values and gradients (kernel, bias, input), float64, to 1e-10."""
    from models.registry import build_model

    preset = EfficientPresetArgs.of(ctx).preset
    torch.manual_seed(ctx.seed)
    model = build_model("efficient_capsnet", preset).double().train()
    torch.manual_seed(ctx.seed + 1)
    other = build_model("efficient_capsnet", preset).double()
    conv = model.primary_caps.conv
    calls: list[tuple[Tensor, Tensor]] = []
    hook = conv.register_forward_hook(lambda _m, inputs, out: calls.append((inputs[0], out)))
    config = model.config
    images = torch.rand((3, config.in_channels, config.image_size, config.image_size),
                        generator=generator(ctx.seed), dtype=DTYPE)
    optimiser = torch.optim.Adam(model.parameters(), lr=0.05)
    findings: list[Finding] = []
    layouts: list[bool] = []
    moved: list[float] = []
    try:
        for step, phase in enumerate(("first call", "after one Adam step", "after two Adam steps",
                                      "after load_state_dict")):
            if phase == "after load_state_dict":
                model.load_state_dict(other.state_dict())
            before = conv.weight.detach().clone()
            calls.clear()
            scores = model(images).scores
            if len(calls) != 1:
                raise RuntimeError(f"the primary layer ran {len(calls)} times in one forward")
            x, out = calls[0]
            layouts.append(x.is_contiguous(memory_format=torch.channels_last))
            findings += _window_findings(conv, x, out, ctx.seed + step, phase)
            if phase in ("first call", "after one Adam step"):
                optimiser.zero_grad()
                (scores * torch.linspace(-1.0, 1.0, scores.shape[1], dtype=DTYPE)).sum().backward()
                optimiser.step()
                moved.append(max_abs(conv.weight, before))
    finally:
        hook.remove()
    findings.append(Finding("the layer's input is the stem's channels-last tensor at every call",
                            all(layouts), str(layouts)))
    findings.append(at_least("smallest kernel change made by an Adam step", min(moved), 1e-3))
    return property_evidence(
        f"efficient_capsnet/{preset} in train mode (float64, 3 random images): primary_caps.conv "
        f"as the network calls it, {tuple(conv.weight.shape)} kernel, against F.conv2d with "
        f"groups={conv.groups}", findings)


# --- inverted routing: dropout before LayerNorm -------------------------------------------------


@dataclass(frozen=True)
class DropoutArgs(CheckArgs):
    """``preset`` of inverted_capsnet; ``dropout``: the rate the layers are built with."""

    preset: str = "cifar10_simple"
    dropout: float = 0.5


@claim_check(args=DropoutArgs)
def dropout_before_norm(ctx: CheckContext) -> Evidence:
    """Every capsule layer's parent poses, read by forward hooks while the network routes
    (each layer at every pass) in train mode with dropout on: mean 0 over each pose's entries
    (1e-9), no variance above 1 (LayerNorm's ε = 1e-5 lowers a pose's variance v to
    v / (v + ε), never raises it) and the median variance 1 within 1e-3 (a pose whose every entry
    was dropped is 0 and left out); and the dropout really ran (train and eval scores differ)."""
    from models.registry import build_model

    args = DropoutArgs.of(ctx)
    torch.manual_seed(ctx.seed)
    model = build_model("inverted_capsnet", args.preset, dropout=args.dropout).double().train()
    config = model.config
    poses: list[tuple[int, Tensor]] = []
    hooks = [layer.register_forward_hook(
        lambda _m, _inputs, out, k=k: poses.append((k, out.detach())))
        for k, layer in enumerate(model.capsule_layers)]
    images = torch.rand((2, config.in_channels, config.image_size, config.image_size),
                        generator=generator(ctx.seed), dtype=DTYPE)
    try:
        with torch.no_grad():
            torch.manual_seed(ctx.seed + 1)
            train_scores = model(images).scores
            model.eval()
            eval_scores = model(images).scores
    finally:
        for hook in hooks:
            hook.remove()
    calls = len(model.capsule_layers) * config.iterations
    measured = poses[:calls]
    entries = torch.cat([p.reshape(-1, p.shape[-1]) for _, p in measured])
    mean = entries.mean(dim=-1)
    var = ((entries - mean[:, None]) ** 2).mean(dim=-1)
    dropped = (entries == 0).all(dim=-1)
    kept_var = var[~dropped]
    findings = [
        Finding(f"capsule layer calls in train mode ({len(model.capsule_layers)} layers × "
                f"{config.iterations} passes)", len(poses) >= calls and len(measured) == calls,
                f"{len(poses)} calls recorded in train and eval"),
        at_most(f"max |mean of a pose's entries| over {len(entries)} poses",
                _gap(float(mean.abs().max())), 1e-9),
        at_most("max variance - 1 of a pose (LayerNorm's ε only lowers it below 1)",
                _gap(float((kept_var - 1).max())), 1e-9),
        at_most("|median variance - 1| of the poses not wholly dropped",
                _gap(float((kept_var.median() - 1).abs())), 1e-3),
        at_least("dropout ran: max |train score - eval score|",
                 _gap(float((train_scores - eval_scores).abs().max())), 1e-6),
    ]
    return property_evidence(
        f"inverted_capsnet/{args.preset} built with dropout {args.dropout}, train mode, float64, "
        f"2 random images, LayerNorm at its initial gain and bias; {int(dropped.sum())} pose(s) "
        "had every entry dropped (LayerNorm maps them to 0)", findings)


# --- MultiMNIST: each digit's shift a joint draw over its 81 cells ------------------------------


@dataclass(frozen=True)
class JointShiftArgs(CheckArgs):
    """``max_shift``: the largest shift in px per axis; ``digits``: probe digits; ``epochs``:
    training epochs drawn."""

    max_shift: int = 4
    digits: int = 250
    epochs: int = 8


@claim_check(args=JointShiftArgs)
def multimnist_joint_shifts(ctx: CheckContext) -> Evidence:
    """The trainer's MultiMNIST generator on one-pixel probe digits: each digit's (row, column)
    shift uniform over the (2·max_shift + 1)² cells and every cell seen (X² at p = 1e-4); the
    base's and the top digit's shifts independent, by X² over the cells of each pair of one
    base axis and one top axis (row-row, column-column, row-column, column-row)."""
    from models.checks.multimnist import placements, probe_source
    from models.checks.schedule import chi_bound, chi_square_uniform

    args = JointShiftArgs.of(ctx)
    source = probe_source(args.digits, args.max_shift)
    found = np.concatenate([placements(source.train_epoch(ctx.seed, epoch))
                            for epoch in range(args.epochs)])
    lost = int((found[:, :, 0] < 0).sum())
    kept = found[(found[:, :, 0] >= 0).all(axis=1)]
    span = range(-args.max_shift, args.max_shift + 1)
    cells: list[object] = [(a, b) for a in span for b in span]
    total = len(kept)
    findings = [at_most(f"digits not found as one pixel (of {found.size // 3})", lost, 0)]
    for part, name in ((0, "base"), (1, "top")):
        joint = Counter((int(dy), int(dx)) for dy, dx in kept[:, part, 1:])
        findings.append(at_most(f"{name} digit: (row, column) cells never drawn",
                                len(set(cells) - set(joint)), 0))
        findings.append(at_most(f"{name} digit: cells drawn outside ±{args.max_shift}",
                                len(set(joint) - set(cells)), 0))
        findings.append(at_most(f"X² of the {name} digit's (row, column) shift over "
                                f"{len(cells)} cells", chi_square_uniform(joint, cells, total),
                                chi_bound(len(cells))))
    for base_axis, top_axis, label in ((1, 1, "row, row"), (2, 2, "column, column"),
                                       (1, 2, "row, column"), (2, 1, "column, row")):
        joint = Counter((int(a), int(b)) for a, b in zip(kept[:, 0, base_axis],
                                                         kept[:, 1, top_axis], strict=True))
        findings.append(at_most(f"X² of (base {label.split(', ')[0]}, top "
                                f"{label.split(', ')[1]}) over {len(cells)} cells "
                                "(independent digits)", chi_square_uniform(joint, cells, total),
                                chi_bound(len(cells))))
    return property_evidence(
        f"MultiMnistSource.train_epoch (shift {args.max_shift}) on {args.digits} one-pixel probe "
        f"digits, {args.epochs} epochs ({total} pairs), seed {ctx.seed}", findings)


# --- CIFAR: random crop and a left-right flip, through the loop ---------------------------------

CIFAR_SIDE = 32
MARK_ROW, MARK_COL = 14, 16  # the identity pixel; markers 2 px right (channel 1), 3 px down (2)
RIGHT, DOWN = 2, 3


def flip_probe_images(count: int) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3, 32, 32) uint8 images: channel 0 holds image ``n``'s identity ``n + 1`` at
    (14, 16), channel 1 a marker 2 px to its right, channel 2 a marker 3 px below it; labels
    ``n % 10``. A mirror left-right puts the first marker on the left, up-down the second
    above."""
    if not 1 <= count <= 255:
        raise ValueError("probe images are identified by one pixel value: 1..255")
    images = np.zeros((count, 3, CIFAR_SIDE, CIFAR_SIDE), dtype=np.uint8)
    images[:, 0, MARK_ROW, MARK_COL] = np.arange(1, count + 1, dtype=np.uint8)
    images[:, 1, MARK_ROW, MARK_COL + RIGHT] = 255
    images[:, 2, MARK_ROW + DOWN, MARK_COL] = 255
    return images, np.arange(count, dtype=np.int64) % 10


def read_flip_probe(image: np.ndarray) -> tuple[int, bool, bool, int, int] | None:
    """(identity, mirrored left-right, mirrored up-down, dy, dx) of one received probe image,
    the shift measured in the mirrored frame; None when its markers are not where a crop and
    axis flips can put them."""
    spots = []
    for channel in range(3):
        where = np.argwhere(image[channel])
        if len(where) != 1:
            return None
        spots.append((int(where[0][0]), int(where[0][1])))
    (row, col), (r1, c1), (r2, c2) = spots
    if r1 != row or c2 != col or abs(c1 - col) != RIGHT or abs(r2 - row) != DOWN:
        return None
    left_right, up_down = c1 - col == -RIGHT, r2 - row == -DOWN
    dy = (CIFAR_SIDE - 1 - row if up_down else row) - MARK_ROW
    dx = (CIFAR_SIDE - 1 - col if left_right else col) - MARK_COL
    return int(image[0, row, col]) - 1, left_right, up_down, dy, dx


@claim_check(args=ShiftArgs)
def crop_flip_distribution(ctx: CheckContext) -> Evidence:
    """The training loop's own epochs (``train_one_epoch``, the schedule's optimiser, a probe
    model that keeps every batch) on marked 3×32×32 probe images (args as for
    :func:`models.checks.schedule.shift_distribution`, ``reach`` the crop's padding): the share
    mirrored left-right within the binomial band of ½ at p = 1e-4, none mirrored up-down, every
    crop shift in
    [-reach, reach] on both axes, uniform per axis and jointly (X² at p = 1e-4), none beyond,
    and a uniform's spread (std within 5%)."""
    from models.checks.loop_probe import ProbeModel
    from models.checks.schedule import chi_bound, chi_square_uniform
    from models.training.loop import Arrays, Batches, LoopSettings, SeedRun, train_one_epoch
    from models.training.schedules import resolve_schedule

    args = ShiftArgs.of(ctx)
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    images, labels = flip_probe_images(args.images)
    model = ProbeModel()
    optimizer = schedule.make_optimizer(model.parameters())
    settings = LoopSettings(epochs=args.epochs, device="cpu", amp=False, deadline=None,
                            time_limit_s=None)
    run, step = SeedRun(ctx.seed), 0
    received: list[tuple[int, bool, bool, int, int] | None] = []
    for epoch in range(args.epochs):
        model.inputs.clear()
        step = train_one_epoch(model, optimizer, Arrays(images, labels), schedule,
                               Batches("cpu", None, None), settings, run, epoch, step)
        for batch in model.inputs:
            values = torch.round(batch.double() * 255.0).to(torch.int64).numpy()
            received.extend(read_flip_probe(image) for image in values)
    seen = [entry for entry in received if entry is not None]
    total = len(seen)
    span = list(range(-args.reach, args.reach + 1))
    rows = Counter(dy for *_, dy, _ in seen)
    cols = Counter(dx for *_, dx in seen)
    joint = Counter((dy, dx) for *_, dy, dx in seen)
    cells: list[object] = [(a, b) for a in span for b in span]
    mirrored = sum(lr for _, lr, _, _, _ in seen) / max(total, 1)
    band = NormalDist().inv_cdf(1.0 - 0.5e-4) * (0.25 / max(total, 1)) ** 0.5
    findings = [
        at_most(f"images not read as a probe (of {len(received)})", len(received) - total, 0),
        Finding("every image fed once per epoch",
                sorted(identity for identity, *_ in seen)
                == sorted(list(range(args.images)) * args.epochs), f"{total} images"),
        at_most(f"|share mirrored left-right - 1/2| (binomial band at p = 1e-4: {band:.3f})",
                abs(mirrored - 0.5), band),
        at_most("images mirrored up-down", sum(ud for _, _, ud, _, _ in seen), 0),
        Finding("row shifts seen", set(rows) == set(span), str(sorted(rows))),
        Finding("column shifts seen", set(cols) == set(span), str(sorted(cols))),
        at_most("X² of row shifts against uniform", chi_square_uniform(rows, list(span), total),
                chi_bound(len(span))),
        at_most("X² of column shifts against uniform",
                chi_square_uniform(cols, list(span), total), chi_bound(len(span))),
        at_most(f"X² of (row, column) shifts over {len(cells)} cells",
                chi_square_uniform(joint, cells, total), chi_bound(len(cells))),
    ]
    wanted = (args.reach * (args.reach + 1) / 3.0) ** 0.5
    for name, counts in (("row", rows), ("column", cols)):
        values = np.array([v for v, n in counts.items() for _ in range(n)], dtype=float)
        spread = float(values.std()) if total else 0.0
        findings.append(at_most(f"|std of {name} shifts - {wanted:.3f}| (a uniform's spread)",
                                abs(spread - wanted), 0.05 * wanted))
    return property_evidence(
        f"{args.model}/{args.schedule} on {args.dataset}: {args.epochs} epoch(s) of the training "
        f"loop on {args.images} marked 3×32×32 probe images, seed {ctx.seed}; share mirrored "
        f"left-right {mirrored:.3f}", findings)


# --- the data stream: no two (seed, epoch) pairs alike ----------------------------------------


GRID_SEEDS, GRID_EPOCHS = 3, 3  # the run's seed and the next two; epochs 0, 1 and 2


@claim_check(args=EpochArgs)
def data_streams_distinct(ctx: CheckContext) -> Evidence:
    """One epoch of the training loop for every (seed, epoch) of a 3 × 3 grid (the run's seed
    and the next two; epochs 0-2), each on a fresh probe model (args as for
    :func:`models.checks.epochs.epoch_randomness`): every pair of grid points gives another order
    of the images and shifts that agree on no more images than independent draws would."""
    from models.checks.loop_probe import probe_images, run_epochs
    from models.training.schedules import resolve_schedule

    args = EpochArgs.of(ctx)
    schedule = resolve_schedule(args.model, args.schedule, None, args.dataset)
    images, labels = probe_images(args.images)
    grid = [(ctx.seed + s, e) for s in range(GRID_SEEDS) for e in range(GRID_EPOCHS)]
    records = {point: run_epochs(schedule, images, labels, [point[1]], point[0])[0]
               for point in grid}
    same_order: list[str] = []
    worst, worst_pair = 0.0, ""
    for a, b in combinations(grid, 2):
        if records[a].order == records[b].order:
            same_order.append(f"{a}={b}")
        first, second = records[a].shifts(), records[b].shifts()
        common = [key for key in first if key >= 0 and key in second]
        alike = sum(first[key] == second[key] for key in common) / max(len(common), 1)
        if alike >= worst:
            worst, worst_pair = alike, f"{a} and {b}"
    pairs = len(grid) * (len(grid) - 1) // 2
    findings = [
        Finding("every image seen once in every grid point",
                all(sorted(r.order) == list(range(args.images)) for r in records.values()),
                f"{len(grid)} epochs"),
        Finding(f"(seed, epoch) pairs with one order (of {pairs})", not same_order,
                ", ".join(same_order) or "none"),
    ]
    if schedule.augment != "none":
        findings.append(at_most(f"largest share of images shifted alike by two grid points "
                                f"({worst_pair}; independent draws: about 1/25 or less)",
                                worst, 0.15))
    return property_evidence(
        f"{args.model}/{args.schedule} on {args.dataset}: one epoch of the training loop for "
        f"each of seeds {ctx.seed}..{ctx.seed + GRID_SEEDS - 1} × epochs 0..{GRID_EPOCHS - 1} "
        f"on {args.images} one-pixel images, augmentation {schedule.augment}", findings)
