"""The Model contract, and a CPU forward and backward pass, for every registered (name, preset)."""

from __future__ import annotations

import pytest
import torch

from models.capsules import ClassifierOutput
from models.registry import available_models, build_model


def _input(model: torch.nn.Module, batch: int) -> torch.Tensor:
    config = model.config
    size = getattr(config, "image_size", 32)
    return torch.rand(batch, config.in_channels, size, size)


@pytest.mark.parametrize(("name", "preset"), available_models())
def test_forward_backward_and_contract(name, preset):
    torch.manual_seed(0)
    model = build_model(name, preset)
    x = _input(model, batch=1)
    out = model(x)
    assert isinstance(out, ClassifierOutput)
    num_classes = model.config.num_classes
    assert out.scores.shape == (1, num_classes)
    assert model.score_kind in ("lengths", "logits")
    if model.score_kind == "lengths":
        assert out.poses is not None
        assert torch.allclose(out.scores, out.poses.norm(dim=-1), atol=1e-3)
    if out.poses is not None:
        assert out.poses.shape[:2] == (1, num_classes)
    loss = out.scores.square().sum()
    if getattr(model, "decoder", None) is not None:
        mask = torch.nn.functional.one_hot(torch.tensor([1]), num_classes).float()
        image = model.reconstruct(out.poses, mask)
        assert image.shape == x.shape
        loss = loss + (image - x).square().sum()
    loss.backward()
    for param_name, param in model.named_parameters():
        assert param.grad is not None, f"{param_name} got no gradient"
        assert torch.isfinite(param.grad).all(), f"{param_name} has a non-finite gradient"


@pytest.mark.parametrize(
    ("name", "preset"), [("capsnet", "mnist"), ("inverted_capsnet", "cifar10_simple")]
)
def test_models_follow_the_input_dtype(name, preset):
    model = build_model(name, preset).double().eval()
    with torch.no_grad():
        out = model(_input(model, batch=1).double())
    assert out.scores.dtype == torch.float64


def test_decoderless_capsnet_refuses_to_reconstruct():
    model = build_model("capsnet", "mnist", decoder=False)
    with pytest.raises(RuntimeError, match="decoder"):
        model.reconstruct(torch.zeros(1, 10, 16), torch.zeros(1, 10))
