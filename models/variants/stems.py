"""Wrong variants of what feeds the primary capsules: CapsNet's Conv1, Efficient-CapsNet's
stem blocks (official code: Conv -> ReLU -> BatchNorm; Conv -> LeakyReLU(0.3) -> InstanceNorm
for smallNORB) and the inverted-routing network's primary capsules."""

from __future__ import annotations

from typing import Any

from torch import nn

from claimcheck import wrong_variant
from models.variants.patching import Replaced, after_init, identity, module, replace

EFFICIENT = "models.self_attention.efficient_capsnet"


@wrong_variant
def conv1_without_relu() -> None:
    """CapsNet's Conv1 without its ReLU (§4: "and ReLU activation")."""
    import torch.nn.functional as F

    routing = module("models.dynamic.capsnet")
    replace(routing, "F", Replaced(F, relu=identity))


def _rebuilt_blocks(rebuild: Any) -> None:
    """Rebind Efficient-CapsNet's ``_stem_block`` to ``rebuild(block)`` of the official one."""
    network = module(EFFICIENT)
    original = network._stem_block

    def block(c_in: int, c_out: int, kernel: int, stride: int, norm: str) -> nn.Sequential:
        built: nn.Sequential = rebuild(original(c_in, c_out, kernel, stride, norm))
        return built

    replace(network, "_stem_block", block)


@wrong_variant
def stem_norm_before_activation() -> None:
    """Each Efficient-CapsNet stem block normalises before its activation (Conv, Norm, ReLU)."""
    _rebuilt_blocks(lambda b: nn.Sequential(b[0], b[2], b[1]))


@wrong_variant
def stem_batchnorm_keras_momentum() -> None:
    """Keras' BatchNorm momentum 0.99 passed to PyTorch, where it is the new batch's share: the
    running statistics follow each batch almost entirely instead of moving by 1%."""

    def momentum(block: nn.Sequential) -> nn.Sequential:
        if isinstance(block[2], nn.BatchNorm2d):
            block[2].momentum = 0.99
        return block

    _rebuilt_blocks(momentum)


@wrong_variant
def stem_torch_leaky_slope() -> None:
    """The smallNORB stem's LeakyReLU with PyTorch's default slope 0.01 instead of Keras' 0.3."""

    def slope(block: nn.Sequential) -> nn.Sequential:
        if isinstance(block[1], nn.LeakyReLU):
            block[1] = nn.LeakyReLU(0.01)
        return block

    _rebuilt_blocks(slope)


@wrong_variant
def stem_without_bias() -> None:
    """Efficient-CapsNet's stem convolutions built without biases (bias=False before a norm)."""

    def unbiased(block: nn.Sequential) -> nn.Sequential:
        conv = block[0]
        block[0] = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                             bias=False)
        return block

    _rebuilt_blocks(unbiased)


@wrong_variant
def primary_caps_without_bias() -> None:
    """CapsNet's PrimaryCaps convolution built without biases."""
    layer = module("models.dynamic.capsnet").PrimaryCaps
    original = layer.__init__

    def init(self: Any, in_channels: int, types: int, dim: int, kernel: int, stride: int,
             eps: float = 1e-8) -> None:
        original(self, in_channels, types, dim, kernel, stride, eps)
        self.conv = nn.Conv2d(in_channels, types * dim, kernel, stride, bias=False)

    replace(layer, "__init__", init)


@wrong_variant
def primary_caps_same_padding() -> None:
    """CapsNet's PrimaryCaps convolution with SAME padding instead of VALID: a 10×10 grid of
    3,200 primary capsules on MNIST instead of 6×6 and 1,152."""
    routing = module("models.dynamic.capsnet")
    layer = routing.PrimaryCaps
    original = layer.__init__

    def init(self: Any, in_channels: int, types: int, dim: int, kernel: int, stride: int,
             eps: float = 1e-8) -> None:
        original(self, in_channels, types, dim, kernel, stride, eps)
        self.conv = nn.Conv2d(in_channels, types * dim, kernel, stride, padding=kernel // 2)

    def grid(config: Any) -> int:
        conv_out = config.image_size - config.conv_kernel + 1
        padded = conv_out + 2 * (config.primary_kernel // 2)
        return int((padded - config.primary_kernel) // config.primary_stride + 1)

    replace(layer, "__init__", init)
    replace(routing.CapsNetConfig, "primary_grid", property(grid))


@wrong_variant
def stem_same_padding() -> None:
    """Efficient-CapsNet's stem convolutions with SAME padding instead of Keras' VALID: on MNIST
    a 14×14 stem output and 576 primary capsules instead of 16."""
    network = module(EFFICIENT)

    def padded(block: nn.Sequential) -> nn.Sequential:
        conv = block[0]
        block[0] = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride,
                             padding=conv.kernel_size[0] // 2)
        return block

    def stem_size(config: Any) -> int:
        size = config.image_size
        for stride in config.conv_strides:
            size = -(-size // stride)
        return int(size)

    _rebuilt_blocks(padded)
    replace(network.EfficientCapsNetConfig, "stem_size", property(stem_size))


@wrong_variant
def resnet18_imagenet_stem() -> None:
    """The shared CIFAR ResNet stem built as the ImageNet one (7×7 stride-2 convolution and a
    max-pool) instead of one 3×3 convolution: the ResNet-18 baseline and the inverted network's
    ResNet backbone both get it."""

    def imagenet_stem(in_channels: int, channels: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(in_channels, channels, 7, 2, padding=3, bias=False),
                             nn.BatchNorm2d(channels), nn.ReLU(), nn.MaxPool2d(3, 2, 1))

    for user in ("models.resnet", "models.inverted.networks"):
        replace(module(user), "conv_bn_relu_stem", imagenet_stem)


@wrong_variant
def depthwise_window_transposed() -> None:
    """Efficient-CapsNet's depthwise primary convolution applied with each kernel's rows and
    columns swapped (a layout bug in its window fast path)."""
    import torch.nn.functional as F

    capsules = module("models.capsules")

    def forward(self: Any, x: Any) -> Any:
        return F.conv2d(x, self.weight.transpose(-1, -2), self.bias, self.stride, self.padding,
                        self.dilation, self.groups)

    replace(capsules.WindowDepthwiseConv2d, "forward", forward)


@wrong_variant
def resnet_stride_in_second_conv() -> None:
    """A downsampling BasicBlock strides in its second 3×3 convolution instead of its first
    (the ResNet v1.5 placement ported into a CIFAR block): same output size, same parameters,
    but the first convolution runs at full resolution."""
    resnet = module("models.resnet")

    def moved(block: Any) -> None:
        stride = block.conv1.stride
        if stride != (1, 1):
            block.conv1.stride, block.conv2.stride = (1, 1), stride

    after_init(resnet.BasicBlock, moved)


@wrong_variant
def resnet_torchvision_init() -> None:
    """torchvision's ResNet initialiser copied into the port: every convolution
    kaiming_normal_(mode="fan_out", nonlinearity="relu") where the official code keeps
    PyTorch's default (kaiming_uniform_ with a = √5)."""
    resnet = module("models.resnet")

    def reinitialised(block: Any) -> None:
        for layer in block.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")

    after_init(resnet.BasicBlock, reinitialised)
