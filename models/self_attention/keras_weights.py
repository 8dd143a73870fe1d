"""Load the official Efficient-CapsNet Keras weights (``bin/*.h5``) into the PyTorch port.

The official repository (EscVM/Efficient-CapsNet, Apache-2.0) ships its trained weights as Keras
HDF5 files written by ``Model.save_weights``: one group per top-level layer of the training
graph (the encoder model and the ``Generator``), each with a ``weight_names`` attribute listing
its tensors as ``<layer>/<variable>:0`` in the order Keras built them. They are read with
``h5py`` (a well-kept HDF5 reader; nothing here parses HDF5 by hand).

Mapping. Keras layers are grouped by name in the order they first appear; the port's leaf
modules with weights are taken in registration order (the forward order: ``stem.k.0`` conv,
``stem.k.2`` norm, ``primary_caps.conv``, ``digit_caps``, then the decoder); the two sequences
are paired one to one and each pair must be of the same kind:

============ ======================================= =====================================
kind         Keras tensors                           PyTorch tensors
============ ======================================= =====================================
conv         kernel (kh, kw, in/groups, out), bias   weight (out, in/groups, kh, kw), bias
dense        kernel (in, out), bias                  weight (out, in) = kernelᵀ, bias
batch norm   gamma, beta, moving_mean/variance       weight, bias, running_mean/var
instance n.  gamma, beta                             weight, bias
FCCaps       W (n_out, n_in, d_in, d_out), b         weight (same layout), log_prior (n_out,
             (n_out, n_in, 1)                        n_in)
============ ======================================= =====================================

:func:`port_weights` reports every tensor that is missing (in the port, not in the file),
unexpected (in the file, not in the port) or of the wrong shape after the transposition, and
loads nothing unless all three lists are empty. The BatchNorm ``num_batches_tracked`` counter
has no Keras counterpart and is not a weight.

Input scaling, for evaluating with these weights: the official MNIST pipeline divides pixels by
256 (``utils/pre_process_mnist.py``), MultiMNIST by 255.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

KerasTensor = tuple[str, np.ndarray]  # ("conv2d_4/kernel:0", array)
NORM_KEYS = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
             "moving_variance": "running_var"}


@dataclass
class PortReport:
    """What :func:`port_weights` found; ``ok`` only when every tensor found its place."""

    loaded: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    wrong_shape: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.missing or self.unexpected or self.wrong_shape)

    @property
    def problems(self) -> int:
        return len(self.missing) + len(self.unexpected) + len(self.wrong_shape)

    def text(self) -> str:
        parts = [f"{len(self.loaded)} tensors mapped"]
        for label, items in (("missing", self.missing), ("unexpected", self.unexpected),
                             ("wrong shape", self.wrong_shape)):
            shown = ", ".join(items[:6]) + (" ..." if len(items) > 6 else "")
            parts.append(f"{len(items)} {label}" + (f" ({shown})" if items else ""))
        return "; ".join(parts)


def read_keras_h5(path: Path) -> dict[str, list[KerasTensor]]:
    """``{model group: [(weight name, array), ...]}`` in ``weight_names`` order."""
    import h5py

    groups: dict[str, list[KerasTensor]] = {}
    with h5py.File(path, "r") as handle:
        for raw in handle.attrs["layer_names"]:
            name = raw.decode() if isinstance(raw, bytes) else str(raw)
            group = handle[name]
            names = [n.decode() if isinstance(n, bytes) else str(n)
                     for n in group.attrs.get("weight_names", [])]
            if names:
                groups[name] = [(n, np.asarray(group[n])) for n in names]
    return groups


def keras_layers(tensors: Iterable[KerasTensor]) -> list[tuple[str, dict[str, np.ndarray]]]:
    """Group ``layer/variable:0`` tensors by layer, in the order each layer first appears."""
    layers: dict[str, dict[str, np.ndarray]] = {}
    for name, array in tensors:
        layer, _, variable = name.rpartition("/")
        layers.setdefault(layer, {})[variable.split(":")[0]] = array
    return list(layers.items())


def torch_layers(model: Any) -> list[tuple[str, str, Any]]:
    """``(module name, kind, module)`` for every leaf module with weights, in forward order."""
    from torch import nn

    from models.self_attention.routing import SelfAttentionRouting

    kinds = ((SelfAttentionRouting, "fccaps"), (nn.Conv2d, "conv"), (nn.Linear, "dense"),
             (nn.BatchNorm2d, "batch_norm"), (nn.InstanceNorm2d, "instance_norm"))
    found = []
    for name, module in model.named_modules():
        for cls, kind in kinds:
            if isinstance(module, cls) and any(True for _ in module.parameters(recurse=False)):
                found.append((name, kind, module))
                break
    return found


def keras_kind(variables: dict[str, np.ndarray]) -> str:
    keys = set(variables)
    if keys == {"W", "b"}:
        return "fccaps"
    if keys in ({"kernel", "bias"}, {"kernel"}):
        return "conv" if variables["kernel"].ndim == 4 else "dense"
    if keys == {"gamma", "beta", "moving_mean", "moving_variance"}:
        return "batch_norm"
    if keys == {"gamma", "beta"}:
        return "instance_norm"
    return "unknown(" + ",".join(sorted(keys)) + ")"


def converted(kind: str, variables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Keras variables of one layer as the PyTorch state-dict entries of its module."""
    if kind == "conv":
        out = {"weight": variables["kernel"].transpose(3, 2, 0, 1)}
    elif kind == "dense":
        out = {"weight": variables["kernel"].T}
    elif kind == "fccaps":
        return {"weight": variables["W"], "log_prior": variables["b"].reshape(
            variables["b"].shape[0], -1)}
    else:
        return {NORM_KEYS[key]: value for key, value in variables.items()}
    if "bias" in variables:
        out["bias"] = variables["bias"]
    return out


def port_weights(model: Any, groups: dict[str, list[KerasTensor]]) -> PortReport:
    """Map every Keras tensor of ``groups`` onto ``model``; load them only if all fit."""
    import torch

    report = PortReport()
    ours = torch_layers(model)
    theirs = [(f"{group}/{layer}", variables) for group, tensors in groups.items()
              for layer, variables in keras_layers(tensors)]
    state = model.state_dict()
    expected = {key for key in state if not key.endswith("num_batches_tracked")}
    updates: dict[str, torch.Tensor] = {}
    flagged: set[str] = set()  # port tensors already reported as of the wrong shape or kind
    for index, (source, variables) in enumerate(theirs):
        if index >= len(ours):
            report.unexpected.extend(f"{source}/{key}" for key in variables)
            continue
        target, kind, _ = ours[index]
        if keras_kind(variables) != kind:
            report.wrong_shape.append(f"{source} is a {keras_kind(variables)}, {target} a {kind}")
            flagged.update(key for key in expected if key.startswith(f"{target}."))
            continue
        for key, array in converted(kind, variables).items():
            name = f"{target}.{key}"
            if name not in state:
                report.unexpected.append(f"{source}/{key} -> {name}")
            elif tuple(state[name].shape) != array.shape:
                report.wrong_shape.append(f"{source}/{key} {array.shape} -> {name} "
                                          f"{tuple(state[name].shape)}")
                flagged.add(name)
            else:
                updates[name] = torch.from_numpy(np.ascontiguousarray(array))
    report.missing.extend(sorted(expected - set(updates) - flagged))
    report.loaded = sorted(updates)
    if report.ok:
        model.load_state_dict({**state, **updates})
    return report
