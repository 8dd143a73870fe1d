"""An independent forward pass of the official Efficient-CapsNet encoder, in NumPy, straight
from the released Keras HDF5 file (arxiv:2101.12491; EscVM/Efficient-CapsNet).

It shares no code with the port's mapping (:mod:`models.self_attention.keras_weights`) or with the
PyTorch model: it reads the raw tensors with ``h5py`` in Keras' own layouts (images channels-last
(B, H, W, C), convolution kernels HWIO (kh, kw, in/groups, out), ``FCCaps.W`` (N, n_in, d_in, D)
and ``FCCaps.b`` (N, n_in, 1)) and computes the class capsules the official graph computes:

* stem: four VALID convolutions, each followed by ReLU and BatchNormalization (MNIST,
  MultiMNIST; Keras ε 1e-3) or LeakyReLU (Keras' default slope 0.3) and InstanceNormalization
  (smallNORB; per image and channel, ε 1e-3);
* PrimaryCaps: a depthwise convolution (``groups`` = channels), reshaped row-major to capsules
  of 8 consecutive channels, squashed with eq. 2, (1 − 1/(e^{‖s‖} + ε))·s/(‖s‖ + ε), ε 1e-20;
* FCCaps (eqs. 3-6): û = u W, scores û_i · Σ_k û_k / √D, a softmax over the parents, plus the
  priors b after it, s = Σ_i c û, squash.

The strides are not stored in the file; :data:`STRIDES` gives them per dataset from the official
graphs (``models/efficient_capsnet_graph_*.py``). Layers are found by their variables in the
order the file lists them: the first four 4-D ``kernel`` tensors are the stem, the fifth the
primary capsules, ``gamma``/``beta`` the norms, ``W``/``b`` the routing layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

KERAS_NORM_EPS = 1e-3
SQUASH_EPS = 1e-20
LEAKY_SLOPE = 0.3  # tf.keras.layers.LeakyReLU()'s default alpha


@dataclass(frozen=True)
class Graph:
    """What the file does not store: strides and the kind of activation and norm."""

    stem_strides: tuple[int, int, int, int]
    primary_stride: int
    instance_norm: bool
    capsule_dim: int = 8


STRIDES = {
    "mnist": Graph((1, 1, 1, 2), 1, instance_norm=False),
    "multimnist": Graph((1, 1, 2, 2), 2, instance_norm=False),
    "smallnorb": Graph((2, 1, 1, 2), 1, instance_norm=True),
}


@dataclass
class EncoderTensors:
    """The raw encoder tensors of one file, in Keras layouts."""

    kernels: list[tuple[np.ndarray, np.ndarray]]  # (HWIO kernel, bias), stem then primary
    norms: list[dict[str, np.ndarray]]  # gamma, beta (and moving_mean/variance for BN)
    routing_w: np.ndarray  # (N, n_in, d_in, D)
    routing_b: np.ndarray  # (N, n_in, 1)


def read_encoder(path: Path) -> EncoderTensors:
    """The encoder's tensors from a Keras ``save_weights`` HDF5 file (the group holding ``W``)."""
    import h5py

    with h5py.File(path, "r") as handle:
        for raw in handle.attrs["layer_names"]:
            group = handle[raw.decode() if isinstance(raw, bytes) else str(raw)]
            names = [n.decode() if isinstance(n, bytes) else str(n)
                     for n in group.attrs.get("weight_names", [])]
            layers: dict[str, dict[str, np.ndarray]] = {}
            for name in names:
                layer, _, variable = name.rpartition("/")
                layers.setdefault(layer, {})[variable.split(":")[0]] = np.asarray(group[name])
            if any("W" in variables for variables in layers.values()):
                return _encoder(list(layers.values()), path)
    raise ValueError(f"{path}: no layer with a routing matrix W")


def _encoder(layers: list[dict[str, np.ndarray]], path: Path) -> EncoderTensors:
    kernels = [(v["kernel"], v["bias"]) for v in layers if "kernel" in v and v["kernel"].ndim == 4]
    norms = [v for v in layers if "gamma" in v]
    routing = [v for v in layers if "W" in v]
    if len(kernels) != 5 or len(norms) != 4 or len(routing) != 1:
        raise ValueError(f"{path}: expected 5 convolutions, 4 norms and 1 routing layer, found "
                         f"{len(kernels)}, {len(norms)} and {len(routing)}")
    return EncoderTensors(kernels, norms, routing[0]["W"], routing[0]["b"])


def conv_valid(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray, stride: int) -> np.ndarray:
    """A VALID convolution of NHWC ``x`` with an HWIO kernel; depthwise when I is 1 < C."""
    k_h, k_w, k_in, _ = kernel.shape
    windows = sliding_window_view(x, (k_h, k_w), axis=(1, 2))[:, ::stride, ::stride]
    # windows: (B, H', W', C, k_h, k_w)
    if k_in == 1 and x.shape[-1] > 1:
        return np.einsum("bhwcij,ijc->bhwc", windows, kernel[:, :, 0, :]) + bias
    return np.einsum("bhwcij,ijco->bhwo", windows, kernel) + bias


def squash(s: np.ndarray) -> np.ndarray:
    """arxiv:2101.12491 eq. 2 as the official ``Squash`` layer writes it."""
    n = np.linalg.norm(s, axis=-1, keepdims=True)
    return (1.0 - 1.0 / (np.exp(n) + SQUASH_EPS)) * (s / (n + SQUASH_EPS))


def _normalised(x: np.ndarray, norm: dict[str, np.ndarray], instance: bool) -> np.ndarray:
    if instance:
        mean = x.mean(axis=(1, 2), keepdims=True)
        var = x.var(axis=(1, 2), keepdims=True)
    else:
        mean, var = norm["moving_mean"], norm["moving_variance"]
    return (x - mean) / np.sqrt(var + KERAS_NORM_EPS) * norm["gamma"] + norm["beta"]


def class_capsules(tensors: EncoderTensors, images: np.ndarray, graph: Graph) -> np.ndarray:
    """Class capsules (B, N, D) of NHWC ``images`` (float64 throughout)."""
    x = images.astype(np.float64)
    for (kernel, bias), norm, stride in zip(tensors.kernels[:4], tensors.norms,
                                            graph.stem_strides, strict=True):
        x = conv_valid(x, kernel.astype(np.float64), bias.astype(np.float64), stride)
        x = np.where(x > 0, x, LEAKY_SLOPE * x) if graph.instance_norm else np.maximum(x, 0.0)
        x = _normalised(x, {k: v.astype(np.float64) for k, v in norm.items()},
                        graph.instance_norm)
    kernel, bias = tensors.kernels[4]
    x = conv_valid(x, kernel.astype(np.float64), bias.astype(np.float64), graph.primary_stride)
    u = squash(x.reshape(x.shape[0], -1, graph.capsule_dim))  # (B, n_in, d_in)
    w = tensors.routing_w.astype(np.float64)
    u_hat = np.einsum("bid,nide->bnie", u, w)  # (B, N, n_in, D)
    scores = np.einsum("bnie,bne->bni", u_hat, u_hat.sum(axis=2)) / np.sqrt(w.shape[-1])
    scores = np.exp(scores - scores.max(axis=1, keepdims=True))
    coupling = scores / scores.sum(axis=1, keepdims=True) + tensors.routing_b[..., 0]
    return squash(np.einsum("bni,bnie->bne", coupling, u_hat))
