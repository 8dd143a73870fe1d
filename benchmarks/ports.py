"""Our three capsule networks against public PyTorch ports, and against this CPU's matmul peak.

One interleaved run at 1 thread on the process's CPU clock (issue 17) gives:

* training-step throughput at batch 16 and 64 and inference throughput at batch 64 of
  Efficient-CapsNet (MNIST), CapsNet (MNIST) and the inverted-routing CIFAR-10 network with the
  ResNet backbone, against ports imported from checkouts named on the command line (never
  vendored), with every parameter count printed next to ours;
* each of our training steps as a share of a ``torch.mm`` peak measured in the same process:
  FLOPs of forward + backward (``torch.utils.flop_counter.FlopCounterMode``) divided by the
  step's CPU time and by the peak FLOP/s.

    python benchmarks/ports.py --efficient-capsnet PATH --gram-ai PATH --bielski PATH \
        --inverted PATH [--rounds 3] [--models efficient capsnet inverted] [--reuse-freed-memory]

``--reuse-freed-memory`` makes the process keep its freed memory (``models.training.allocator``, as
our training runs do) for both sides alike, so that neither pays page faults per step.

Ports (any may be left out; the peak shares need none):

* ``--efficient-capsnet``: akhdanfadh/efficient-capsnet-pytorch (``model.model.FinalCapsNet``);
* ``--gram-ai``: gram-ai/capsule-networks (``capsule_network.CapsuleNet``); its forward calls
  ``Variable(...).cuda()`` and expects ``Variable`` from its ``__main__`` block, so the adapter
  below gives the module a ``Variable`` whose ``.cuda()`` leaves the tensor on the CPU, and a
  forward hook hands its class capsules over batch-major (``_class_major_view``);
* ``--bielski``: adambielski/CapsNet-pytorch (``net.CapsNetWithReconstruction``) with
  ``routing_iterations=2`` (its loop runs one pass more than the count: 3 squashes, as ours);
  it learns routing priors b (1152×10), so it has 11,520 parameters more than the paper's;
* ``--inverted``: apple/ml-capsules-inverted-attention-routing (``src.capsule_model.CapsModel``
  with ``configs/resnet_backbone_CIFAR10.json``, 2 routing passes, concurrent routing).

Every network trains on random data: margin loss plus 0.0005·SSE of the decoder for the
capsule nets with a decoder (the port's own forward, our loss on its lengths), cross-entropy for
the inverted networks. Training is timed twice:

* ``train``: the same optimizer for both sides, ``torch.optim.Adam`` as constructed by default
  (on the CPU PyTorch's per-tensor loop), so the ratio compares the models alone;
* ``own``: each side with the optimizer its own training script builds: ours from
  ``Schedule.make_optimizer`` of the model's official schedule (PyTorch's fused kernel where the
  build has one), the ports as their scripts construct them (Adam, or SGD with momentum 0.9 and
  weight decay 5e-4 for the official inverted-routing code), which on the CPU is the loop.

Inference is the classifier without the decoder where the port allows it (gram-ai's forward
always decodes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.flop_counter import FlopCounterMode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # models/ is not installed
sys.path.insert(0, str(Path(__file__).resolve().parent))  # routing.py, a sibling script

from routing import median_times

from models.capsules import count_parameters, label_mask, margin_loss
from models.registry import build_model
from models.training.allocator import reuse_freed_memory
from models.training.schedules import resolve_schedule

Step = Callable[[], object]
MakeOptimizer = Callable[[Iterable[nn.Parameter]], torch.optim.Optimizer]
CAPSULE_RECON = 0.0005


def _script_adam(parameters: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
    """Adam as the ports' scripts (and the ``train`` timing) construct it: PyTorch's defaults."""
    return torch.optim.Adam(parameters, lr=1e-3)


@dataclass
class Net:
    """One network under test: how to run a loss, how to classify, what it counts."""

    model: str  # "efficient", "capsnet" or "inverted"
    source: str  # "ours" or the port's repository
    module: nn.Module
    loss: Callable[[Tensor, Tensor], Tensor]  # (images, labels) -> scalar
    classify: Callable[[Tensor], object]  # images -> anything, under no_grad and eval()
    own_optimizer: MakeOptimizer  # as the side's own training script builds it

    @property
    def params(self) -> int:
        return count_parameters(self.module)


INPUTS = {"efficient": (1, 28), "capsnet": (1, 28), "inverted": (3, 32)}


def _capsule_loss(lengths: Tensor, image: Tensor | None, x: Tensor, labels: Tensor) -> Tensor:
    loss = margin_loss(lengths, labels)
    if image is not None:
        loss = loss + CAPSULE_RECON * (image.reshape(x.shape) - x).square().sum() / x.shape[0]
    return loss


def ours(model: str) -> Net:
    name, preset, schedule = {
        "efficient": ("efficient_capsnet", "mnist", "official"),
        "capsnet": ("capsnet", "mnist", "paper"),
        "inverted": ("inverted_capsnet", "cifar10_resnet", "official"),
    }[model]
    net = build_model(name, preset)

    def loss(x: Tensor, labels: Tensor) -> Tensor:
        out = net(x)
        if net.score_kind == "logits":
            return F.cross_entropy(out.scores, labels)
        mask = label_mask(labels, out.scores.shape[1], x.dtype)
        return _capsule_loss(out.scores, net.reconstruct(out.poses, mask), x, labels)

    return Net(model, "ours", net, loss, net, resolve_schedule(name, schedule, None).make_optimizer)


@contextmanager
def _checkout(path: Path, top_level: tuple[str, ...]) -> Iterator[None]:
    """Import from ``path``, then forget its top-level module names (ports reuse ``utils``)."""
    sys.path.insert(0, str(path))
    try:
        yield
    finally:
        sys.path.remove(str(path))
        for name in list(sys.modules):
            if name.split(".")[0] in top_level:
                del sys.modules[name]


def efficient_port(path: Path) -> Net:
    with _checkout(path, ("model", "utils")):
        final = importlib.import_module("model.model").FinalCapsNet()

    def loss(x: Tensor, labels: Tensor) -> Tensor:
        image, lengths = final(x, F.one_hot(labels, 10).to(x.dtype), mode="train")
        return _capsule_loss(lengths, image, x, labels)

    return Net(
        "efficient",
        "akhdanfadh/efficient-capsnet-pytorch",
        final,
        loss,
        final.efficient_capsnet,
        _script_adam,
    )


class _CpuVariable:
    """``Variable(t).cuda()`` for gram-ai's forward, which keeps the tensor where it is."""

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor

    def cuda(self) -> Tensor:
        return self.tensor


def _class_major_view(_module: nn.Module, _inputs: object, out: Tensor) -> Tensor:
    """gram-ai's (10, B, 1, 1, 16) class capsules, stored batch-major: its forward squeezes and
    transposes them, then calls ``.view`` on a product with them, which needs a contiguous
    result (older torch returned contiguous products; torch 2 keeps the transposed layout)."""
    batch_major = out.reshape(out.shape[0], out.shape[1], -1).transpose(0, 1).contiguous()
    return batch_major.transpose(0, 1).view(out.shape)


def gram_ai_port(path: Path) -> Net:
    with _checkout(path, ("capsule_network",)):
        port = importlib.import_module("capsule_network")
    port.Variable = _CpuVariable
    net = port.CapsuleNet()
    net.digit_capsules.register_forward_hook(_class_major_view)

    def loss(x: Tensor, labels: Tensor) -> Tensor:
        lengths, image = net(x, F.one_hot(labels, 10).to(x.dtype))
        return _capsule_loss(lengths, image, x, labels)

    return Net("capsnet", "gram-ai/capsule-networks", net, loss, net, _script_adam)


def bielski_port(path: Path) -> Net:
    with _checkout(path, ("net",)):
        port = importlib.import_module("net")
    net = port.CapsNetWithReconstruction(port.CapsNet(2), port.ReconstructionNet(16, 10))

    def loss(x: Tensor, labels: Tensor) -> Tensor:
        image, lengths = net(x, labels)
        return _capsule_loss(lengths, image, x, labels)

    return Net("capsnet", "adambielski/CapsNet-pytorch", net, loss, net.capsnet, _script_adam)


def inverted_port(path: Path) -> Net:
    with _checkout(path, ("src",)):
        capsule_model = importlib.import_module("src.capsule_model")
    params = json.loads((path / "configs" / "resnet_backbone_CIFAR10.json").read_text())
    net = capsule_model.CapsModel(32, params, "resnet", 0.0, 2, sequential_routing=False)

    def loss(x: Tensor, labels: Tensor) -> Tensor:
        return F.cross_entropy(net(x), labels)

    def sgd(parameters: Iterable[nn.Parameter]) -> torch.optim.Optimizer:
        return torch.optim.SGD(parameters, lr=0.1, momentum=0.9, weight_decay=5e-4)

    return Net("inverted", "apple/ml-capsules-inverted-attention-routing", net, loss, net, sgd)


PORTS: dict[str, tuple[str, Callable[[Path], Net]]] = {
    "efficient_capsnet": ("efficient", efficient_port),
    "gram_ai": ("capsnet", gram_ai_port),
    "bielski": ("capsnet", bielski_port),
    "inverted": ("inverted", inverted_port),
}


def _batch(model: str, size: int) -> tuple[Tensor, Tensor]:
    channels, side = INPUTS[model]
    return torch.rand(size, channels, side, side), torch.randint(0, 10, (size,))


def train_step(net: Net, batch: int, make_optimizer: MakeOptimizer = _script_adam) -> Step:
    x, labels = _batch(net.model, batch)
    optimizer = make_optimizer(net.module.parameters())

    def step() -> None:
        net.module.train()
        loss = net.loss(x, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step


def infer_step(net: Net, batch: int) -> Step:
    x, _ = _batch(net.model, batch)

    def step() -> None:
        net.module.eval()
        with torch.no_grad():
            net.classify(x)

    return step


def step_flops(net: Net, batch: int) -> int:
    """FLOPs of one forward + backward (matmuls and convolutions; the optimizer is not counted)."""
    x, labels = _batch(net.model, batch)
    net.module.train()
    counter = FlopCounterMode(display=False)
    with counter:
        net.loss(x, labels).backward()
    net.module.zero_grad(set_to_none=True)
    return counter.get_total_flops()


def mm_peak(clock: Callable[[], float], size: int = 1024, repeats: int = 20) -> float:
    """Best FLOP/s of a square fp32 ``torch.mm`` on this process's clock."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    torch.mm(a, b)
    best = 0.0
    for _ in range(repeats):
        start = clock()
        torch.mm(a, b)
        seconds = clock() - start
        if seconds > 0:
            best = max(best, 2 * size**3 / seconds)
    return best


MODES = (("train", 16), ("train", 64), ("infer", 64), ("own", 16), ("own", 64))


def make_step(net: Net, mode: str, batch: int) -> Step:
    if mode == "infer":
        return infer_step(net, batch)
    return train_step(net, batch, net.own_optimizer if mode == "own" else _script_adam)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in PORTS:
        parser.add_argument(f"--{name.replace('_', '-')}", type=Path, metavar="CHECKOUT")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timed rounds")
    parser.add_argument("--models", nargs="+", default=list(INPUTS), choices=list(INPUTS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--reuse-freed-memory", action="store_true")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    warnings.filterwarnings("ignore", category=UserWarning)  # the ports' deprecated calls
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    reused = args.reuse_freed_memory and reuse_freed_memory()

    nets = [ours(model) for model in args.models]
    for name, (model, build) in PORTS.items():
        path = getattr(args, name)
        if path is not None and model in args.models:
            nets.append(build(path.resolve()))
    load_start = os.getloadavg()
    print(
        f"torch {torch.__version__}, {args.threads} thread(s), {args.clock} clock, "
        f"{args.rounds} rounds, load average {load_start[0]:.2f} at start, "
        f"freed memory {'reused' if reused else 'returned to the kernel (glibc default)'}"
    )
    for net in nets:
        reference = next(n for n in nets if n.model == net.model and n.source == "ours")
        delta = net.params - reference.params
        print(
            f"- {net.model} / {net.source}: {net.params:,} parameters"
            + ("" if delta == 0 else f" ({delta:+,} against ours: NOT EQUAL)")
        )

    peak = mm_peak(clock)
    flops = {
        (net.model, batch): step_flops(net, batch)
        for net in nets
        if net.source == "ours"
        for batch in (16, 64)
    }
    steps = {
        (net.model, net.source, mode, batch): make_step(net, mode, batch)
        for net in nets
        for mode, batch in MODES
    }
    seconds = median_times({str(key): step for key, step in steps.items()}, args.rounds, clock)
    peak = max(peak, mm_peak(clock))
    timed = {key: seconds[str(key)] for key in steps}

    print(f"\ntorch.mm peak (1024², fp32, best of the start and end): {peak / 1e9:.1f} GFLOP/s\n")
    columns = "train bs 16 | train bs 64 | infer bs 64 | own optimizer, train bs 16 | bs 64"
    print(f"| model | source | {columns} (img/s) |")
    print("|---|---|---|---|---|---|---|")
    for net in nets:
        rates = [batch / timed[(net.model, net.source, mode, batch)] for mode, batch in MODES]
        print(f"| {net.model} | {net.source} | " + " | ".join(f"{r:.1f}" for r in rates) + " |")
    print(f"\n| model | port | ratio {columns} |")
    print("|---|---|---|---|---|---|---|")
    for net in nets:
        if net.source == "ours":
            continue
        ratios = [
            timed[(net.model, net.source, mode, batch)] / timed[(net.model, "ours", mode, batch)]
            for mode, batch in MODES
        ]
        print(f"| {net.model} | {net.source} | " + " | ".join(f"{r:.2f}×" for r in ratios) + " |")
    print("\n| model | GFLOP per train step bs 16 / 64 | share of mm peak bs 16 | bs 64 |")
    print("|---|---|---|---|")
    for model in args.models:
        shares = [
            flops[(model, batch)] / timed[(model, "ours", "train", batch)] / peak
            for batch in (16, 64)
        ]
        print(
            f"| {model} | {flops[(model, 16)] / 1e9:.2f} / {flops[(model, 64)] / 1e9:.2f} | "
            f"{shares[0]:.2f} | {shares[1]:.2f} |"
        )
    print(f"\nload average {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
