"""The official Keras Efficient-CapsNet and the port give the same outputs on the same weights.

The strongest evidence that the port is the paper's model: build the official MNIST graph with
the official layer code (``utils/layers.py``, ``models/efficient_capsnet_graph_mnist.py`` of
EscVM/Efficient-CapsNet), give it random weights (and random BatchNorm statistics), carry them
over with :func:`models.self_attention.keras_weights.port_weights`, and compare the class capsules
on the same inputs. Needs TensorFlow and a checkout of the official repository, named by
``$CLAIMCHECK_OFFICIAL_EFFICIENT_CAPSNET``; without either the test is skipped (CI installs
neither: TensorFlow is 600 MB). With the released ``efficient_capsnet_MNIST.h5`` in a data folder
the same comparison also runs on the trained weights and MNIST-5k digits.

Run it::

    pip install tensorflow-cpu
    export CLAIMCHECK_OFFICIAL_EFFICIENT_CAPSNET=/path/to/Efficient-CapsNet
    pytest tests/training/test_official_keras.py
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

OFFICIAL = os.environ.get("CLAIMCHECK_OFFICIAL_EFFICIENT_CAPSNET", "")
tf = pytest.importorskip("tensorflow", reason="TensorFlow is not installed")
pytestmark = pytest.mark.skipif(
    not (Path(OFFICIAL) / "utils" / "layers.py").is_file(),
    reason="set CLAIMCHECK_OFFICIAL_EFFICIENT_CAPSNET to a checkout of EscVM/Efficient-CapsNet")


def load_file(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def official_mnist_graph() -> Any:
    """The official encoder graph, built from its own files (``utils/__init__`` is skipped: it
    imports the data pipelines, which need packages the graph does not)."""
    root = Path(OFFICIAL)
    package = types.ModuleType("utils")
    package.__path__ = [str(root / "utils")]
    saved = {name: sys.modules.get(name) for name in ("utils", "utils.layers")}
    sys.modules["utils"] = package
    layers = load_file("utils.layers", root / "utils" / "layers.py")
    # A known defect of the official code (reference sheet 2101.12491 §7, "smaller code
    # defects"): FCCaps.compute_output_shape names undefined attributes. Keras 2 never called it
    # in this graph; Keras 3 does, so it gets the shape the layer really returns.
    layers.FCCaps.compute_output_shape = lambda self, shape: (shape[0], self.N, self.D)
    sys.modules["utils.layers"] = layers
    try:
        graph = load_file("official_graph_mnist", root / "models" /
                          "efficient_capsnet_graph_mnist.py")
        return graph.efficient_capsnet_graph([28, 28, 1])
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def keras_tensors(model: Any) -> list[tuple[str, np.ndarray]]:
    return [(getattr(w, "path", w.name), np.asarray(w.numpy())) for w in model.weights]


def ported(tensors: list[tuple[str, np.ndarray]]) -> Any:
    from models.registry import build_model
    from models.self_attention.keras_weights import port_weights

    model = build_model("efficient_capsnet", "mnist", decoder="none")
    report = port_weights(model, {"Efficient_CapsNet": tensors})
    assert report.ok, report.text()
    return model.eval()


def compare(keras_model: Any, model: Any, images: np.ndarray) -> float:
    import torch

    poses, lengths = keras_model(images.transpose(0, 2, 3, 1), training=False)
    with torch.no_grad():
        out = model(torch.from_numpy(images))
    assert np.allclose(out.scores.numpy(), np.asarray(lengths), atol=1e-5)
    return float(np.abs(out.poses.numpy() - np.asarray(poses)).max())


def test_same_random_weights_give_the_same_capsules(official_mnist_graph: Any) -> None:
    rng = np.random.default_rng(0)
    for weight in official_mnist_graph.weights:  # BatchNorm statistics away from 0 and 1,
        name = getattr(weight, "path", weight.name)  # log priors away from their zero init
        if name.endswith("/b"):
            weight.assign(rng.normal(0.0, 0.05, weight.shape).astype(np.float32))
        elif "moving_mean" in name:
            weight.assign(rng.normal(0.0, 0.3, weight.shape).astype(np.float32))
        elif "moving_variance" in name:
            weight.assign(rng.uniform(0.5, 2.0, weight.shape).astype(np.float32))
    model = ported(keras_tensors(official_mnist_graph))
    images = rng.uniform(0.0, 1.0, (8, 1, 28, 28)).astype(np.float32)
    assert compare(official_mnist_graph, model, images) < 1e-5


def test_released_mnist_weights_agree_on_real_digits(official_mnist_graph: Any) -> None:
    from claimcheck.checks.api import DataUnavailable
    from models.data.mnist import load_mnist_5k_arrays
    from models.data.weight_files import find_weights
    from models.self_attention.keras_weights import keras_layers, read_keras_h5

    try:
        path = find_weights("mnist")
    except DataUnavailable as exc:
        pytest.skip(str(exc))
    encoder = next(tensors for tensors in read_keras_h5(path).values()
                   if any(name.endswith("/W:0") for name, _ in tensors))
    released = keras_layers(encoder)
    built = keras_layers(keras_tensors(official_mnist_graph))
    assert len(released) == len(built)
    by_path = {getattr(w, "path", w.name): w for w in official_mnist_graph.weights}
    for (layer, variables), (_, stored) in zip(built, released, strict=True):
        for variable in variables:
            by_path[f"{layer}/{variable}"].assign(stored[variable])
    images, _ = load_mnist_5k_arrays()
    sample = (images[::50, None] / 256.0).astype(np.float32)
    assert compare(official_mnist_graph, ported(encoder), sample) < 1e-4
