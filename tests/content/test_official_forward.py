"""The weight port is checked by its outputs: random weights written in Keras' own layouts, read
back by the port and by an independent NumPy forward pass, give the same class capsules; a port
with transposed kernels or swapped norms does not, judged against the card's own expectation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from power import apply_variant, claim_ref

from claimcheck import Evidence, Verdict, judge
from claimcheck.checks.api import DataUnavailable
from models.checks.official_weights import measure_port_outputs
from models.data.weight_files import find_weights
from models.registry import build_model
from models.self_attention.keras_weights import port_weights, read_keras_h5

h5py = pytest.importorskip("h5py")

# The official graphs' layers in Keras layouts: HWIO stem kernels, the depthwise kernel with one
# input channel per group, FCCaps W (N, n_in, d_in, D) and b (N, n_in, 1).
STEMS = {
    "mnist": ((5, 1, 32), (3, 32, 64), (3, 64, 64), (3, 64, 128)),
    "smallnorb": ((7, 2, 32), (3, 32, 64), (3, 64, 64), (3, 64, 128)),
}
PRIMARY_KERNEL = {"mnist": 9, "smallnorb": 8}
CLASSES = {"mnist": 10, "smallnorb": 5}
NORM = {"mnist": "batch_normalization", "smallnorb": "instance_normalization"}


def write_random_keras_file(path: Path, preset: str, seed: int = 0) -> Path:
    """A ``save_weights``-style file of random tensors in Keras layouts (written here, not by
    inverting the port's mapping): trainable tensors in layer order, BatchNorm statistics last."""
    rng = np.random.default_rng(seed)
    trainable: list[tuple[str, np.ndarray]] = []
    statistics: list[tuple[str, np.ndarray]] = []
    for index, (kernel, c_in, c_out) in enumerate(STEMS[preset]):
        suffix = f"_{index}" if index else ""
        fan_in = kernel * kernel * c_in
        trainable += [(f"conv2d{suffix}/kernel:0", rng.normal(0, (2 / fan_in) ** 0.5,
                                                             (kernel, kernel, c_in, c_out))),
                      (f"conv2d{suffix}/bias:0", rng.normal(0, 0.05, c_out))]
        norm = f"{NORM[preset]}{suffix}"
        trainable += [(f"{norm}/gamma:0", rng.uniform(0.5, 1.5, c_out)),
                      (f"{norm}/beta:0", rng.normal(0, 0.1, c_out))]
        if preset == "mnist":
            statistics += [(f"{norm}/moving_mean:0", rng.normal(0, 0.2, c_out)),
                           (f"{norm}/moving_variance:0", rng.uniform(0.5, 1.5, c_out))]
    k = PRIMARY_KERNEL[preset]
    trainable += [("conv2d_4/kernel:0", rng.normal(0, 1 / k, (k, k, 1, 128))),
                  ("conv2d_4/bias:0", rng.normal(0, 0.05, 128)),
                  ("digit_caps/W:0", rng.normal(0, 0.1, (CLASSES[preset], 16, 8, 16))),
                  ("digit_caps/b:0", rng.normal(0, 0.1, (CLASSES[preset], 16, 1)))]
    tensors = trainable + statistics
    with h5py.File(path, "w") as handle:
        handle.attrs["layer_names"] = [b"input_1", b"Efficient_CapsNet"]
        handle.create_group("input_1")
        group = handle.create_group("Efficient_CapsNet")
        group.attrs["weight_names"] = [name.encode() for name, _ in tensors]
        for name, array in tensors:
            group.create_dataset(name, data=array.astype(np.float32))
    return path


def ported_gap(path: Path, preset: str) -> float:
    model = build_model("efficient_capsnet", preset, decoder="none")
    report = port_weights(model, read_keras_h5(path))
    assert report.ok, report.text()
    gap, _ = measure_port_outputs(model, path, preset, seed=0)
    return gap


def verdict_of(gap: float, preset: str) -> Verdict:
    claim = claim_ref(f"2101.12491/official-weights-{preset}").claim
    return judge(claim, Evidence(measured=gap)).verdict


@pytest.mark.parametrize("preset", ["mnist", "smallnorb"])
def test_random_keras_weights_give_the_same_class_capsules(tmp_path: Path, preset: str) -> None:
    gap = ported_gap(write_random_keras_file(tmp_path / "w.h5", preset), preset)
    assert gap < 1e-9
    assert verdict_of(gap, preset) is Verdict.VERIFIED


@pytest.mark.parametrize("variant", ["port-transposed-kernels", "port-swapped-norm-affine",
                                     "depthwise-window-transposed"])
@pytest.mark.parametrize("preset", ["mnist", "smallnorb"])
def test_a_port_or_model_with_names_and_shapes_right_but_values_misplaced_fails(
        tmp_path: Path, preset: str, variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_random_keras_file(tmp_path / "w.h5", preset)
    apply_variant(variant, monkeypatch)
    gap = ported_gap(path, preset)
    assert gap > 1e-3
    assert verdict_of(gap, preset) is not Verdict.VERIFIED


def test_the_released_smallnorb_weights_match_the_numpy_forward() -> None:
    try:
        path = find_weights("smallnorb")
    except DataUnavailable as exc:
        pytest.skip(str(exc))
    model = build_model("efficient_capsnet", "smallnorb")
    assert port_weights(model, read_keras_h5(path)).ok
    gap, details = measure_port_outputs(model, path, "smallnorb", seed=0)
    assert gap < 1e-9, details
