"""Squash, length, margin loss, masks and decoders (models/capsules.py)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from models.capsules import (
    MLPDecoder,
    UpsamplingDecoder,
    WindowDepthwiseConv2d,
    capsule_length,
    count_parameters,
    label_mask,
    longest_mask,
    margin_loss,
    masked_poses,
    squash_efficient,
    squash_sabour,
    top_k_masks,
)

SQUASHES = [squash_sabour, squash_efficient]


@pytest.mark.parametrize("squash", SQUASHES)
def test_squash_keeps_direction_and_maps_lengths_into_unit_interval(squash):
    torch.manual_seed(0)
    s = torch.randn(64, 8, dtype=torch.float64) * torch.logspace(-3, 1, 64).unsqueeze(1)
    v = squash(s)
    cosine = torch.nn.functional.cosine_similarity(s, v, dim=-1)
    assert torch.allclose(cosine, torch.ones_like(cosine))
    lengths = v.norm(dim=-1)
    assert (lengths >= 0).all() and (lengths < 1).all()


@pytest.mark.parametrize(
    ("norm", "sabour", "efficient"),
    [(1.0, 0.5, 1 - math.exp(-1)), (2.0, 0.8, 1 - math.exp(-2)), (3.0, 0.9, 1 - math.exp(-3))],
)
def test_squash_lengths_follow_the_equations(norm, sabour, efficient):
    s = torch.tensor([[norm, 0.0, 0.0]], dtype=torch.float64)
    assert squash_sabour(s).norm().item() == pytest.approx(sabour)
    assert squash_efficient(s).norm().item() == pytest.approx(efficient)


@pytest.mark.parametrize("function", [*SQUASHES, capsule_length])
def test_value_and_gradient_are_finite_at_zero(function):
    s = torch.zeros(3, 8, requires_grad=True)
    out = function(s)
    out.sum().backward()
    assert torch.isfinite(out).all() and (out == 0).all()
    assert s.grad is not None and torch.isfinite(s.grad).all()


def test_squash_operates_on_the_requested_dim():
    s = torch.randn(4, 8, 5)
    assert torch.allclose(squash_sabour(s, dim=1), squash_sabour(s.transpose(1, 2)).transpose(1, 2))


def test_capsule_length_eps_goes_under_the_root():
    v = torch.zeros(2, 3, 4)
    assert torch.allclose(capsule_length(v, eps=1e-6), torch.full((2, 3), 1e-3))


@pytest.mark.parametrize(
    ("length", "present", "expected"),
    [(0.5, 1, 0.16), (0.5, 0, 0.08), (0.95, 1, 0.0), (0.05, 0, 0.0)],
)
def test_margin_loss_reference_values(length, present, expected):
    lengths = torch.tensor([[length, 0.0]], dtype=torch.float64)
    targets = torch.tensor([[present, 0]])
    assert margin_loss(lengths, targets).item() == pytest.approx(expected)


def test_margin_loss_reductions_relate_as_documented():
    torch.manual_seed(1)
    lengths = torch.rand(6, 10)
    labels = torch.randint(0, 10, (6,))
    per_class = margin_loss(lengths, labels, reduction="none")
    paper = margin_loss(lengths, labels, reduction="paper")
    official = margin_loss(lengths, labels, reduction="tf_official")
    assert per_class.shape == (6, 10)
    assert paper.item() == pytest.approx(per_class.sum(1).mean().item())
    assert official.item() == pytest.approx(paper.item() / 20)
    assert margin_loss(lengths, label_mask(labels, 10)).item() == pytest.approx(paper.item())


def test_margin_loss_rejects_bad_reduction_and_shapes():
    with pytest.raises(ValueError, match="reduction"):
        margin_loss(torch.rand(2, 3), torch.tensor([0, 1]), reduction="mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="targets"):
        margin_loss(torch.rand(2, 3), torch.zeros(2, 4))


def test_masks_select_label_longest_and_top_two():
    lengths = torch.tensor([[0.1, 0.9, 0.5], [0.7, 0.2, 0.8]])
    assert label_mask(torch.tensor([2, 0]), 3).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert longest_mask(lengths).tolist() == [[0, 1, 0], [0, 0, 1]]
    top = top_k_masks(lengths, 2)
    assert top.shape == (2, 2, 3)
    assert top[0].tolist() == [[0, 1, 0], [0, 0, 1]]
    assert top[1].tolist() == [[0, 0, 1], [1, 0, 0]]


def test_masked_poses_zero_all_other_capsules():
    poses = torch.randn(2, 3, 4)
    mask = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    flat = masked_poses(poses, mask).view(2, 3, 4)
    assert torch.equal(flat[0, 1], poses[0, 1]) and torch.equal(flat[1, 0], poses[1, 0])
    assert flat[0, 0].abs().sum() == 0 and flat[1, 2].abs().sum() == 0


@pytest.mark.parametrize(
    ("decoder", "in_features", "out_shape", "params"),
    [
        (lambda: MLPDecoder(160, (1, 28, 28)), 160, (1, 28, 28), 1_411_344),
        (lambda: MLPDecoder(160, (1, 36, 36)), 160, (1, 36, 36), 1_936_144),
        (lambda: UpsamplingDecoder(80, 2), 80, (2, 48, 48), 229_570),
    ],
)
def test_decoders_shapes_ranges_and_parameter_counts(decoder, in_features, out_shape, params):
    module = decoder()
    assert count_parameters(module) == params
    out = module(torch.randn(2, in_features))
    assert out.shape == (2, *out_shape)
    assert (out >= 0).all() and (out <= 1).all()


@pytest.mark.parametrize(
    ("channels", "kernel", "stride", "side", "bias"),
    [
        (16, 9, 1, 9, False),  # the MNIST primary capsules: the window is the map
        (16, 8, 1, 8, True),  # smallNORB
        (16, 5, 2, 6, True),  # MultiMNIST: a 6×6 map, one window at stride 2
        (8, 3, 1, 5, True),  # a 3×3 map: the convolution itself
    ],
)
@pytest.mark.parametrize("layout", [torch.contiguous_format, torch.channels_last])
def test_window_depthwise_conv_equals_the_depthwise_conv_with_gradients(
    channels, kernel, stride, side, bias, layout
):
    torch.manual_seed(0)
    conv = WindowDepthwiseConv2d(channels, channels, kernel, stride, groups=channels, bias=bias)
    conv.double()
    x = torch.randn(3, channels, side, side, dtype=torch.float64).to(memory_format=layout)
    x.requires_grad_()
    out = conv(x)
    expected = F.conv2d(x, conv.weight, conv.bias, stride, groups=channels)
    assert out.shape == expected.shape
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    upstream = torch.randn_like(out)
    params = [x, *conv.parameters()]
    ours = torch.autograd.grad(out, params, upstream)
    reference = torch.autograd.grad(expected, params, upstream)
    for got, want in zip(ours, reference, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
