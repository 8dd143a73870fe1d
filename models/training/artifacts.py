"""Pictures a training run leaves beside its figures: held-out inputs and their reconstructions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from models.training.loop import Arrays, Batches


def write_reconstruction_grid(model: torch.nn.Module, held_out: Arrays, batches: Batches,
                              path: Path, count: int = 8) -> bool:
    """Save ``count`` held-out inputs, spread over the set, above their reconstructions (PNG);
    False without a decoder.

    The decoder gets the longest capsule at test time (the two longest on MultiMNIST, summed),
    as in arxiv:1710.09829 §4.1 and §6.2.
    """
    if getattr(model, "decoder", None) is None or held_out.images.shape[1] not in (1, 3):
        return False
    from matplotlib.figure import Figure

    from models.capsules import longest_mask, top_k_masks

    model.eval()
    with torch.no_grad():
        spread = np.linspace(0, len(held_out.labels) - 1, count).astype(int)  # across classes
        inputs, pixels = batches.images(held_out.images[spread])
        output = model(inputs)
        if output.poses is None:
            return False
        scores = output.scores.float()
        masks = top_k_masks(scores, 2) if held_out.multi else longest_mask(scores)[None]
        rebuilt = sum(model.reconstruct(output.poses, mask) for mask in masks).clamp(0, 1)
    shown = min(count, len(pixels))
    figure = Figure(figsize=(shown, 2.2))
    grid = figure.subplots(2, shown, squeeze=False)
    for column in range(shown):
        for row, image in enumerate((pixels[column], rebuilt[column])):
            picture = image.float().cpu().permute(1, 2, 0).numpy()
            grid[row][column].imshow(picture.squeeze(-1) if picture.shape[-1] == 1 else picture,
                                     cmap="gray", vmin=0.0, vmax=1.0)
            grid[row][column].axis("off")
    figure.suptitle("held-out inputs (top) and reconstructions (bottom)", fontsize="small")
    figure.savefig(path, format="png", dpi=72)
    return True
