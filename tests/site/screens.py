"""Golden screenshots compared with a tolerance that ignores font and anti-aliasing noise.

Two pictures match when they have the same size and, after both are reduced to grey and
averaged over 4x4 blocks, fewer than 1% of the blocks differ by more than 10% of full scale. A
moved table column, a lost badge or a missing graph changes far more than that; a glyph drawn a
sub-pixel to the side does not. ``CLAIMCHECK_UPDATE_GOLDENS=1`` rewrites the pictures.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PIL import Image, ImageChops

SCREENS = Path(__file__).parent / "golden" / "screens"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
BLOCK = 4
LEVEL = 26  # 10% of 255
MAX_CHANGED = 0.01


def changed_fraction(actual: Path, golden: Path) -> float:
    """The share of 4x4 blocks whose mean grey level differs by more than ``LEVEL``."""
    first = Image.open(actual).convert("L")
    second = Image.open(golden).convert("L")
    if first.size != second.size:
        raise AssertionError(f"{golden.name}: size {first.size}, golden {second.size}")
    small = (max(1, first.width // BLOCK), max(1, first.height // BLOCK))
    difference = ImageChops.difference(
        first.resize(small, Image.Resampling.BOX), second.resize(small, Image.Resampling.BOX)
    )
    histogram = difference.histogram()
    return sum(histogram[LEVEL + 1 :]) / (small[0] * small[1])


def _same_size(first: Path, second: Path) -> bool:
    return bool(Image.open(first).size == Image.open(second).size)


def check_screen(actual: Path, name: str, update: bool) -> None:
    """Compare ``actual`` with ``golden/screens/<name>.png`` (or rewrite it when ``update``)."""
    golden = SCREENS / f"{name}.png"
    noise_only = (
        update and golden.exists() and _same_size(actual, golden)
        and changed_fraction(actual, golden) < MAX_CHANGED
    )
    if noise_only:
        return  # the same picture up to noise: keep the committed bytes
    if update or not golden.exists():
        SCREENS.mkdir(parents=True, exist_ok=True)
        shutil.copy(actual, golden)
        if not update:
            raise AssertionError(f"golden screenshot {name} was missing and has been written")
        return
    fraction = changed_fraction(actual, golden)
    if fraction >= MAX_CHANGED:
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(actual, ARTIFACTS / f"{name}.actual.png")
        raise AssertionError(
            f"{name}: {fraction:.1%} of the picture differs from its golden "
            f"(the new one is in tests/artifacts/{name}.actual.png)"
        )
