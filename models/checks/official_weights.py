"""Exact-model checks with the official Efficient-CapsNet weights (arxiv:2101.12491 code).

* :func:`weights_outputs` loads a released ``.h5`` file into the port
  (:mod:`models.self_attention.keras_weights`; a tensor missing, unexpected or of the wrong shape is
  an error), runs the loaded port and an independent NumPy forward pass of the
  official graph over the raw HDF5 tensors (:mod:`models.self_attention.keras_reference`) on the
  same random images, and measures the largest difference between their class capsules: a port whose
  names and shapes all fit but whose kernels are transposed, or whose norms are swapped,
  fails it.
* :func:`weights_accuracy` then classifies MNIST digits with the loaded network. The digits we
  have (``mnist-5k``, all 5,000) come from the MNIST *training* split, which the official network
  was trained on, so the figure is a **port-fidelity** check, not the paper's test error: a
  faithful port of a network that reached 0.22% test error classifies its own training digits
  almost perfectly, while a mis-mapped tensor (a kernel not transposed, a capsule grouping
  shuffled) drops it towards chance. Its interval is the binomial one of 5,000 examples (one
  network, no seeds).

Without the weight file both checks raise ``DataUnavailable`` ("weights not available", with the
command that fetches and verifies it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import CheckContext, Evidence, Fidelity
from claimcheck.checks.stats import ChanceLevel, seed_interval

# The official pipelines scale pixels by 1/256 (MNIST, utils/pre_process_mnist.py) or 1/255.
INPUT_DIVISOR = {"mnist": 256.0, "multimnist": 255.0}


def loaded_model(preset: str, folder: Any) -> tuple[Any, Any, str]:
    """(model in eval mode, port report, file name) for ``preset``'s official weights."""
    from models.data.weight_files import find_weights
    from models.registry import build_model
    from models.self_attention.keras_weights import port_weights, read_keras_h5

    path = find_weights(preset, folder)
    model = build_model("efficient_capsnet", preset)
    report = port_weights(model, read_keras_h5(path))
    return model.eval(), report, path.name


@dataclass(frozen=True)
class WeightsArgs(CheckArgs):
    """``preset`` of efficient_capsnet (default mnist); ``data_folder`` holding the weights."""

    preset: str = "mnist"
    data_folder: str | None = None


@dataclass(frozen=True)
class OutputsArgs(WeightsArgs):
    """As :class:`WeightsArgs`, and ``images``: how many random images to compare on."""

    images: int = 4


def measure_port_outputs(model: Any, path: Any, preset: str, seed: int,
                         count: int = 4) -> tuple[float, str]:
    """(max |class capsules of the port − of the NumPy forward|, details) on ``count`` random
    images in [0, 1], both in float64 from the same stored tensors."""
    import torch

    from models.self_attention.keras_reference import STRIDES, class_capsules, read_encoder

    config = model.config
    generator = np.random.default_rng(seed)
    images = generator.random((count, config.image_size, config.image_size, config.in_channels))
    expected = class_capsules(read_encoder(path), images, STRIDES[preset])
    with torch.no_grad():
        poses = model.double().eval()(torch.from_numpy(images.transpose(0, 3, 1, 2))).poses
    got = poses.numpy()
    if got.shape != expected.shape:
        raise ValueError(f"class capsules of shape {got.shape}, the file gives {expected.shape}")
    gap = float(np.abs(got - expected).max())
    agree = int((np.linalg.norm(got, axis=-1).argmax(1)
                 == np.linalg.norm(expected, axis=-1).argmax(1)).sum())
    return gap, (f"{count} random {config.image_size}×{config.image_size}×{config.in_channels} "
                 f"images (seed {seed}), float64: max |port − NumPy forward| over the class "
                 f"capsules {gap:.3g} (largest entry {float(np.abs(expected).max()):.3g}); "
                 f"same predicted class for {agree}/{count}")


@claim_check(args=OutputsArgs)
def weights_outputs(ctx: CheckContext) -> Evidence:
    """Measured: the largest difference between the ported network's class capsules and an
    independent NumPy forward pass of the official graph on the raw file (0 up to rounding)."""
    from models.data.weight_files import find_weights

    args = OutputsArgs.of(ctx)
    model, report, name = loaded_model(args.preset, args.data_folder)
    if not report.ok:
        raise ValueError(f"the official weights do not fit the port: {report.text()}")
    gap, details = measure_port_outputs(model, find_weights(args.preset, args.data_folder),
                                        args.preset, ctx.seed, args.images)
    return Evidence(measured=gap, details=f"{name} in efficient_capsnet/{args.preset}: {details}",
                    fidelity=Fidelity.EXACT,
                    data={"name": name, "split": "released weights", "size": len(report.loaded),
                          "origin": "EscVM/Efficient-CapsNet bin/ (Apache-2.0), pinned commit"})


@claim_check(args=WeightsArgs)
def weights_accuracy(ctx: CheckContext) -> Evidence:
    """Measured: accuracy (%) of the ported official network on every ``mnist-5k`` digit."""
    import torch

    from models.data.mnist import SAMPLE_NOTE, SAMPLE_ORIGIN, load_mnist_5k_arrays

    args = WeightsArgs.of(ctx)
    preset = args.preset
    model, report, name = loaded_model(preset, args.data_folder)
    if not report.ok:
        raise ValueError(f"the official weights do not fit the port: {report.text()}")
    images, labels = load_mnist_5k_arrays()
    divisor = INPUT_DIVISOR.get(preset, 255.0)
    model = model.to(ctx.device)
    correct = 0
    with torch.no_grad():
        for start in range(0, len(labels), 500):
            batch = torch.from_numpy(images[start:start + 500, None].astype(np.float32)) / divisor
            scores = model(batch.to(ctx.device)).scores
            correct += int((scores.argmax(dim=1).cpu().numpy() == labels[start:start + 500]).sum())
    accuracy = 100.0 * correct / len(labels)
    interval = seed_interval([accuracy], ctx.config.confidence, proportions=[accuracy / 100.0],
                             n=len(labels), bounds=(0.0, 100.0),
                             chance=[ChanceLevel("accuracy", 10.0, True, (accuracy,))])
    return Evidence(
        measured=interval.mean,
        details=(f"{name} ported into efficient_capsnet/{preset} ({report.text()}); "
                 f"{correct}/{len(labels)} mnist-5k digits right, inputs scaled by 1/{divisor:g} "
                 f"as the official pipeline does; port-fidelity check: {SAMPLE_NOTE}, and the "
                 "official network was trained on these digits"),
        fidelity=Fidelity.EXACT, interval=interval.as_record(),
        data={"name": "mnist-5k", "split": "all 5000 digits (MNIST training split)",
              "size": len(labels), "origin": SAMPLE_ORIGIN})
