"""CPU speed of the three routing families and of the networks that use them (issue 3).

Prints Markdown tables: forward and forward+backward time of each routing layer (at one shared
input size and at the sizes each paper's network uses), ratios between the methods, and training
images per second of every network at batch 16 and 64. Every figure is a median over repeats;
the routing layers are timed in interleaved rounds so that load drifts hit all methods alike.

    python benchmarks/routing.py            # heavy cases (CIFAR nets, 35M baseline) at bs 16 only
    python benchmarks/routing.py --full     # every case at batch 16 and 64 (several minutes)
    python benchmarks/routing.py --quick    # batch 16 only, fewer repeats, capsule nets only
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # models/ is not installed

from models.capsules import label_mask, margin_loss
from models.dynamic.routing import DynamicRouting
from models.inverted.networks import InvertedDotProductRouting
from models.registry import build_model
from models.self_attention.routing import SelfAttentionRouting

Step = Callable[[], object]
STACK = "paper: inverted CIFAR-10 capsule stack, 2 passes"


def _inverted_passes(
    layer: InvertedDotProductRouting, passes: int
) -> Callable[[torch.Tensor], torch.Tensor]:
    def run(u: torch.Tensor) -> torch.Tensor:
        poses = layer(u)
        for _ in range(passes - 1):
            poses = layer(u, poses)
        return poses

    return run


def routing_cases(
    batch: int, with_stack: bool
) -> dict[str, tuple[Callable[[torch.Tensor], torch.Tensor], torch.Tensor]]:
    """name -> (layer call, input). The first four share the CapsNet size 1152×8D -> 10×16D."""
    shared = torch.randn(batch, 1152, 8)
    cases = {
        "dynamic r=1, 1152→10": (DynamicRouting(1152, 8, 10, 16, iterations=1), shared),
        "dynamic r=3, 1152→10": (DynamicRouting(1152, 8, 10, 16, iterations=3), shared),
        "self-attention, 1152→10": (SelfAttentionRouting(1152, 8, 10, 16), shared),
        "inverted 2 passes, 1152→10": (
            _inverted_passes(InvertedDotProductRouting(1152, 8, 10, 16, matrix_pose=False), 2),
            shared,
        ),
        "paper: self-attention 16→10 (Efficient-CapsNet)": (
            SelfAttentionRouting(16, 8, 10, 16),
            torch.randn(batch, 16, 8),
        ),
    }
    if with_stack:
        cifar = build_model("inverted_capsnet", "cifar10_simple")
        primary = cifar.primary(torch.rand(batch, 3, 32, 32)).detach()
        cases[STACK] = (lambda u: cifar.route(u)[-1], primary)
    return cases


Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"wall": time.perf_counter, "cpu": time.process_time}


def median_times(
    steps: dict[str, Step], rounds: int, clock: Clock, warmup: int = 1
) -> dict[str, float]:
    """Median seconds per call of each step, timed in interleaved rounds with ``clock``."""
    for step in steps.values():
        for _ in range(warmup):
            step()
    samples: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            start = clock()
            step()
            samples[name].append(clock() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def bench_routing(
    batch: int, rounds: int, clock: Clock, with_stack: bool
) -> tuple[dict[str, float], dict[str, float]]:
    cases = routing_cases(batch, with_stack)
    forward: dict[str, Step] = {}
    backward: dict[str, Step] = {}
    for name, (layer, u) in cases.items():
        forward[name] = lambda layer=layer, u=u: _no_grad(layer, u)
        backward[name] = lambda layer=layer, u=u: (
            layer(u.requires_grad_()).square().sum().backward()
        )
    return median_times(forward, rounds, clock), median_times(backward, rounds, clock)


def _no_grad(layer: Callable[[torch.Tensor], torch.Tensor], u: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return layer(u)


def training_step(model: torch.nn.Module, batch: int) -> Step:
    """One Adam step on random data with the family's loss (margin + 0.0005·SSE, or CE)."""
    config = model.config
    size = getattr(config, "image_size", 32)
    x = torch.rand(batch, config.in_channels, size, size)
    labels = torch.randint(0, config.num_classes, (batch,))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()

    def step() -> None:
        out = model(x)
        if model.score_kind == "lengths":
            loss = margin_loss(out.scores, labels)
            if getattr(model, "decoder", None) is not None:
                mask = label_mask(labels, config.num_classes, x.dtype)
                image = model.reconstruct(out.poses, mask)
                loss = loss + 0.0005 * (image - x).square().sum() / batch
        else:
            loss = F.cross_entropy(out.scores, labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step


NETWORKS = [
    ("capsnet", "mnist"),
    ("efficient_capsnet", "mnist"),
    ("efficient_capsnet", "smallnorb"),
    ("inverted_capsnet", "cifar10_simple"),
    ("inverted_capsnet", "cifar10_resnet"),
    ("resnet18", "cifar10"),
    ("capsnet_baseline", "mnist"),
]
LIGHT_NETWORKS = NETWORKS[:4]
HEAVY_NETWORKS = NETWORKS[4:]


def bench_training(
    networks: list[tuple[str, str]], batches: list[int], steps: int, clock: Clock
) -> dict[tuple[str, str], dict[int, float]]:
    """(name, preset) -> {batch: images per second}, from the median of ``steps`` timed steps."""
    rates: dict[tuple[str, str], dict[int, float]] = {}
    for name, preset in networks:
        torch.manual_seed(0)
        model = build_model(name, preset)
        rates[(name, preset)] = {}
        for batch in batches:
            seconds = median_times({"step": training_step(model, batch)}, steps, clock)["step"]
            rates[(name, preset)][batch] = batch / seconds
    return rates


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f}"


def print_routing(batches: list[int], results: dict[int, tuple[dict, dict]]) -> None:
    print("\n### Routing layers: median ms per call (forward no-grad / forward+backward)\n")
    print("| layer | " + " | ".join(f"bs {b} fwd | bs {b} fwd+bwd" for b in batches) + " |")
    print("|---|" + "---|---|" * len(batches))
    for name in results[batches[0]][0]:
        cells = [
            f"{_ms(results[b][0][name])} | {_ms(results[b][1][name])}"
            if name in results[b][0]
            else "– | –"
            for b in batches
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    reference = "self-attention, 1152→10"
    print(f"\n### Ratios to `{reference}` (same 1152×8 input), forward / forward+backward\n")
    print("| layer | " + " | ".join(f"bs {b}" for b in batches) + " |")
    print("|---|" + "---|" * len(batches))
    for name in results[batches[0]][0]:
        if name.startswith("paper:"):
            continue
        cells = [
            f"{results[b][0][name] / results[b][0][reference]:.1f}× / "
            f"{results[b][1][name] / results[b][1][reference]:.1f}×"
            for b in batches
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")
    paper = "paper: self-attention 16→10 (Efficient-CapsNet)"
    print(
        "\n### At each paper's size: CapsNet DigitCaps (dynamic r=3) / Efficient-CapsNet FCCaps\n"
    )
    for b in batches:
        fwd = results[b][0]["dynamic r=3, 1152→10"] / results[b][0][paper]
        both = results[b][1]["dynamic r=3, 1152→10"] / results[b][1][paper]
        print(f"- bs {b}: forward {fwd:.1f}×, forward+backward {both:.1f}×")


def print_training(batches: list[int], rates: dict) -> None:
    print("\n### Training throughput: images/s (Adam step on random data, median step)\n")
    print("| network | " + " | ".join(f"bs {b}" for b in batches) + " |")
    print("|---|" + "---|" * len(batches))
    for (name, preset), by_batch in rates.items():
        cells = [f"{by_batch[b]:.0f}" if b in by_batch else "–" for b in batches]
        print(f"| {name}/{preset} | " + " | ".join(cells) + " |")
    first = batches[0]
    capsnet, efficient = (
        rates[("capsnet", "mnist")][first],
        rates[("efficient_capsnet", "mnist")][first],
    )
    ratio = efficient / capsnet
    print(f"\nEfficient-CapsNet/mnist trains {ratio:.1f}× faster than CapsNet/mnist at bs {first}.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="batch 16 only, fewer repeats")
    mode.add_argument("--full", action="store_true", help="heavy cases at batch 64 too")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall: elapsed time; cpu: this process's CPU time, which a shared machine distorts "
        "much less (meaningful with --threads 1 only)",
    )
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    batches = [16] if args.quick else [16, 64]
    rounds, steps = (3, 2) if args.quick else (5, 2)
    load = os.getloadavg()[0]
    print(
        f"torch {torch.__version__}, {args.threads} threads, {args.clock} clock, "
        f"load average {load:.1f} at start"
    )
    if load + args.threads > (os.cpu_count() or 1):
        print("WARNING: the CPU is shared; OpenMP threads that wait on each other slow small ops")
        print("by up to 100×. Compare figures only from an idle machine, or use --threads 1.")
    start = time.perf_counter()
    results = {
        batch: bench_routing(batch, rounds, clock, with_stack=args.full or batch == 16)
        for batch in batches
    }
    print_routing(batches, results)
    rates = bench_training(LIGHT_NETWORKS, batches, steps, clock)
    if not args.quick:
        rates |= bench_training(HEAVY_NETWORKS, batches if args.full else [16], steps, clock)
    print_training(batches, rates)
    elapsed = time.perf_counter() - start
    print(f"\n(total {elapsed:.0f} s, load average {os.getloadavg()[0]:.1f} at end)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
