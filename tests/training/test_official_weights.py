"""Porting Keras weights: the layout mapping, the three kinds of misfit, the file verification."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from claimcheck.checks.api import DataUnavailable
from models.data.weight_files import FILES, find_weights, git_blob_id, verify
from models.registry import build_model
from models.self_attention.keras_weights import port_weights, read_keras_h5, torch_layers

h5py = pytest.importorskip("h5py")


def keras_layout(model: Any, group: str = "Efficient_CapsNet") -> dict[str, list[Any]]:
    """The model's weights as Keras would store them (the inverse of the documented mapping),
    with Keras-style layer names and BatchNorm statistics after all trainable tensors."""
    trainable, statistics = [], []
    for index, (_, kind, module) in enumerate(torch_layers(model)):
        layer = f"{kind}_{index}"
        weight = module.weight.detach().numpy()
        if kind == "conv":
            trainable += [(f"{layer}/kernel:0", weight.transpose(2, 3, 1, 0)),
                          (f"{layer}/bias:0", module.bias.detach().numpy())]
        elif kind == "dense":
            trainable += [(f"{layer}/kernel:0", weight.T),
                          (f"{layer}/bias:0", module.bias.detach().numpy())]
        elif kind == "fccaps":
            prior = module.log_prior.detach().numpy()
            trainable += [(f"{layer}/W:0", weight), (f"{layer}/b:0", prior[..., None])]
        else:
            trainable += [(f"{layer}/gamma:0", weight),
                          (f"{layer}/beta:0", module.bias.detach().numpy())]
            if kind == "batch_norm":
                statistics += [(f"{layer}/moving_mean:0", module.running_mean.numpy()),
                               (f"{layer}/moving_variance:0", module.running_var.numpy())]
    return {group: trainable + statistics}


def write_h5(path: Path, groups: dict[str, list[Any]]) -> Path:
    with h5py.File(path, "w") as handle:
        handle.attrs["layer_names"] = [name.encode() for name in groups]
        for name, tensors in groups.items():
            group = handle.create_group(name)
            group.attrs["weight_names"] = [t[0].encode() for t in tensors]
            for tensor_name, array in tensors:
                group.create_dataset(tensor_name, data=np.ascontiguousarray(array))
    return path


def randomised(model: Any) -> Any:
    with torch.no_grad():
        for _, buffer in model.named_buffers():
            if buffer.dtype.is_floating_point:
                buffer.uniform_(0.5, 1.5)
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.1)
    return model.eval()


@pytest.mark.parametrize("preset", ["mnist", "smallnorb", "multimnist"])
def test_a_keras_file_of_the_same_network_ports_exactly(tmp_path: Path, preset: str) -> None:
    torch.manual_seed(0)
    source = randomised(build_model("efficient_capsnet", preset))
    path = write_h5(tmp_path / "w.h5", keras_layout(source))
    target = build_model("efficient_capsnet", preset).eval()
    report = port_weights(target, read_keras_h5(path))
    assert report.ok and report.problems == 0, report.text()
    inputs = torch.rand(3, source.config.in_channels, source.config.image_size,
                        source.config.image_size)
    with torch.no_grad():
        assert torch.equal(source(inputs).poses, target(inputs).poses)


def test_missing_unexpected_and_wrong_shape_tensors_are_each_reported(tmp_path: Path) -> None:
    groups = keras_layout(randomised(build_model("efficient_capsnet", "mnist")))
    tensors = groups["Efficient_CapsNet"]
    dropped = [t for t in tensors if not t[0].endswith("/moving_variance:0")][:]
    target = build_model("efficient_capsnet", "mnist", decoder="none")
    fresh = {k: v.clone() for k, v in target.state_dict().items()}
    report = port_weights(target, read_keras_h5(write_h5(tmp_path / "a.h5",
                                                         {"Efficient_CapsNet": dropped})))
    assert not report.ok and report.wrong_shape  # a BN layer lacking its variance
    assert all(torch.equal(fresh[k], v) for k, v in target.state_dict().items())  # untouched
    short = [t for t in tensors if not t[0].startswith(("dense_", "fccaps_"))] + [
        t for t in tensors if t[0].startswith("fccaps_")]
    report = port_weights(build_model("efficient_capsnet", "mnist"),
                          {"Efficient_CapsNet": short})
    assert [m for m in report.missing if m.startswith("decoder.")]
    extra = {"Efficient_CapsNet": tensors, "Extra": [("dense_99/kernel:0", np.zeros((2, 2))),
                                                     ("dense_99/bias:0", np.zeros(2))]}
    report = port_weights(build_model("efficient_capsnet", "mnist"), extra)
    assert report.unexpected == ["Extra/dense_99/kernel", "Extra/dense_99/bias"]
    bad = [(n, a.T if n.startswith("conv_0/kernel") else a) for n, a in tensors]
    report = port_weights(build_model("efficient_capsnet", "mnist"), {"Efficient_CapsNet": bad})
    assert [w for w in report.wrong_shape if w.startswith("Efficient_CapsNet/conv_0/weight")]


def test_weight_files_are_verified_by_git_blob_id(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAIMCHECK_DATA", raising=False)
    assert git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git's empty blob
    assert "git blob id" in verify(FILES["mnist"], b"not the weights")
    folder = tmp_path / "efficient-capsnet"
    folder.mkdir()
    (folder / FILES["smallnorb"].name).write_bytes(b"tampered")
    with pytest.raises(ValueError, match="is not the official"):
        find_weights("smallnorb", tmp_path)
    with pytest.raises(DataUnavailable, match="weights not available: efficient_capsnet_MNIST"):
        find_weights("mnist", tmp_path / "nowhere")


def test_the_released_smallnorb_weights_port_with_no_misfit() -> None:
    try:
        path = find_weights("smallnorb")
    except DataUnavailable as exc:
        pytest.skip(str(exc))
    report = port_weights(build_model("efficient_capsnet", "smallnorb"), read_keras_h5(path))
    assert report.ok and len(report.loaded) == 30, report.text()
