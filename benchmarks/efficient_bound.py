"""How fast Efficient-CapsNet could train against akhdanfadh's port if only the shared work cost.

A training step of our Efficient-CapsNet (MNIST) is the stem (four convolutions with ReLU and
batch norm), the capsule layers (primary capsules, self-attention routing, lengths), the margin
loss, the decoder with its reconstruction loss, and the optimizer. The stem, the decoder and the
optimizer call the same PyTorch kernels as the port (oneDNN convolutions, MKL matrix products,
Adam); the capsule layers and the loss are ours. Timing the shared parts on their own, in the
same interleaved run as both full steps, bounds the ratio: even with the capsule layers and the
loss free, ours could be at most port / (stem + decoder + optimizer) times faster.

    python benchmarks/efficient_bound.py --efficient-capsnet CHECKOUT [--rounds 40]

1 thread, the process's CPU clock, the same default Adam on both sides (as ``ports.py``'s
``train`` columns).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # models/ is not installed
sys.path.insert(0, str(Path(__file__).resolve().parent))  # sibling scripts

from ports import _batch, _capsule_loss, _script_adam, efficient_port, make_step, ours
from routing import median_times

from models.capsules import label_mask


def shared_parts(batch: int) -> dict[str, Callable[[], object]]:
    """Our stem (forward + backward), decoder with its loss (forward + backward), and one
    optimizer step, each on its own."""
    net = ours("efficient").module
    net.train()
    x, labels = _batch("efficient", batch)
    poses = net(x).poses.detach().requires_grad_()
    mask = label_mask(labels, 10, x.dtype)
    optimizer = _script_adam(net.parameters())
    for parameter in net.parameters():
        parameter.grad = torch.randn_like(parameter)

    def stem() -> None:
        net.stem(x).sum().backward()

    def decoder() -> None:
        image = net.reconstruct(poses, mask)
        _capsule_loss(torch.zeros(batch, 10), image, x, labels).backward()

    return {"stem": stem, "decoder": decoder, "optimizer": optimizer.step}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--efficient-capsnet", type=Path, required=True, metavar="CHECKOUT")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(
        f"torch {torch.__version__}, 1 thread, CPU clock, {args.rounds} rounds, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    print("\n| batch | port ms | ours ms | stem | decoder | optimizer | ratio | bound |")
    print("|---|---|---|---|---|---|---|---|")
    for batch in (16, 64):
        port = efficient_port(args.efficient_capsnet.resolve())
        steps = {
            "port": make_step(port, "train", batch),
            "ours": make_step(ours("efficient"), "train", batch),
            **shared_parts(batch),
        }
        ms = {
            name: 1000 * t
            for name, t in median_times(steps, args.rounds, time.process_time).items()
        }
        shared = ms["stem"] + ms["decoder"] + ms["optimizer"]
        print(
            f"| {batch} | {ms['port']:.1f} | {ms['ours']:.1f} | {ms['stem']:.1f} | "
            f"{ms['decoder']:.1f} | {ms['optimizer']:.1f} | {ms['port'] / ms['ours']:.2f}× | "
            f"{ms['port'] / shared:.2f}× |"
        )
    print(f"\nload average {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
