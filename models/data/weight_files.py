"""Find, or download and verify, the official Efficient-CapsNet weight files.

The weights are not vendored: this project does not commit files taken from other repositories,
whatever their licence. The official repository (``EscVM/Efficient-CapsNet``, Apache License 2.0,
which allows redistribution with the licence and notice) is pinned at commit ``COMMIT``; each
file is identified by its git blob id there (``sha1("blob <size>\\0" + bytes)``, what git
itself checks) and, where we have seen the file, by its sha256 as well. A file whose digest
differs is refused, never loaded.

Where they are looked for: ``<folder>/efficient-capsnet/<file>`` for each data folder of
:func:`models.data.identity.data_folders` (the claim's ``data_folder``, ``$CLAIMCHECK_DATA``,
``~/.cache/claimcheck/data``). A missing file is the tool's ``DataUnavailable``: the claim is
unverified, "weights not available", with the command that fetches them::

    python -m models.data.weight_files [--into FOLDER] [mnist multimnist smallnorb]

which downloads from the pinned commit and verifies every file before moving it into place.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from claimcheck.core import safe_fs
from claimcheck.core.safe_fs import UnsafeEntry
from models.data.identity import data_folders, shown_folder

REPOSITORY = "EscVM/Efficient-CapsNet"
COMMIT = "4b337f5bf79d70a56e4dec8b113fe54b44cfe963"
LICENCE = "Apache License 2.0 (LICENSE in the repository)"
SUBFOLDER = "efficient-capsnet"


@dataclass(frozen=True)
class WeightFile:
    """One released weight file: its name under ``bin/``, git blob id and (if known) sha256."""

    preset: str
    name: str
    blob: str
    sha256: str | None = None

    @property
    def url(self) -> str:
        return f"https://github.com/{REPOSITORY}/raw/{COMMIT}/bin/{self.name}"


FILES = {
    "mnist": WeightFile("mnist", "efficient_capsnet_MNIST.h5",
                        "ff7489eb386ef6c11ee5debaa9618e19898b2f7b"),
    "multimnist": WeightFile("multimnist", "efficient_capsnet_MULTIMNIST.h5",
                             "1af7f2959deccbc0eb0ea4be0c10896c214e1616"),
    "smallnorb": WeightFile(
        "smallnorb", "efficient_capsnet_SMALLNORB.h5", "e4002f25d1214be4c8ce953d27a14585f9422172",
        "c7fbd8cc0f17b611c7f09c99c606a07c8f1bd0d9847b120b05fb0e2c91fe008b"),
}


def git_blob_id(payload: bytes) -> str:
    """The id git gives a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(payload) + payload, usedforsecurity=False).hexdigest()


def verify(file: WeightFile, payload: bytes) -> str:
    """An empty string when ``payload`` is ``file``, else what differs."""
    blob = git_blob_id(payload)
    if blob != file.blob:
        return f"git blob id {blob}, expected {file.blob}"
    digest = hashlib.sha256(payload).hexdigest()
    if file.sha256 is not None and digest != file.sha256:
        return f"sha256 {digest}, expected {file.sha256}"
    return ""


MAX_WEIGHT_BYTES = 200_000_000
"""The largest weight file read (the official files are a few MB)."""


def _present(base: Path, candidate: Path) -> bool:
    """Whether ``candidate`` is a regular file reached from the data folder ``base`` without a
    link (a link inside a data root is never followed out of it: docs/reliability.md)."""
    try:
        return safe_fs.is_file(base, candidate)
    except UnsafeEntry as error:
        raise ValueError(f"{shown_folder(candidate.parent)}/{candidate.name}: {error.message}"
                         "; a weight file is read only as a regular file of its data "
                         "folder") from None
    except OSError:
        return False


def find_weights(preset: str, folder: str | Path | None = None) -> Path:
    """The verified weight file of ``preset``, or ``DataUnavailable`` naming the fetch command.

    A file that is present but fails verification raises ``ValueError``: it is not the
    official file, so nothing may be measured on it. So does a link, device or folder where the
    file belongs, or a link on the way from the data folder: it is never followed.
    """
    from claimcheck.checks.api import DataUnavailable

    if preset not in FILES:
        raise ValueError(f"no official weights for preset {preset!r}; known: {sorted(FILES)}")
    file = FILES[preset]
    folders = data_folders(folder)
    for base in folders:
        candidate = base / SUBFOLDER / file.name
        if _present(base, candidate):
            problem = verify(file, safe_fs.read_bytes(base, candidate, MAX_WEIGHT_BYTES))
            if problem:
                raise ValueError(f"{candidate} is not the official {file.name}: {problem}")
            return candidate
    looked = ", ".join(shown_folder(base / SUBFOLDER) for base in folders)
    raise DataUnavailable(
        f"weights not available: {file.name} (looked in {looked}); fetch it with "
        f"`python -m models.data.weight_files {preset}`")


def download(file: WeightFile, target: Path, timeout_s: float = 30.0) -> Path:
    """Fetch ``file`` from the pinned commit into ``target/efficient-capsnet/`` and verify it.

    The file is read and written only from the data folder ``target`` without a link
    (:mod:`claimcheck.core.safe_fs`, through a temp file renamed into place): a linked
    subfolder or a link where the file belongs is refused with ``ValueError``, and a committed
    ``.part`` file is never written through."""
    target = Path(os.path.abspath(target))
    destination = target / SUBFOLDER / file.name
    if _present(target, destination) and not verify(
            file, safe_fs.read_bytes(target, destination, MAX_WEIGHT_BYTES)):
        return destination
    try:
        with urllib.request.urlopen(file.url, timeout=timeout_s) as response:
            payload = response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise OSError(f"could not download {file.url}: {exc}") from None
    problem = verify(file, payload)
    if problem:
        raise OSError(f"{file.url} is not the pinned file: {problem}")
    try:
        safe_fs.write_atomic(target, destination, payload)  # a link there is replaced
    except UnsafeEntry as error:
        raise ValueError(f"{shown_folder(target)}/{error.path}: {error.message}; a weight file "
                         "is written only into real folders of its data folder") from None
    return destination


def main(argv: list[str] | None = None) -> int:
    """``python -m models.data.weight_files [--into DIR] [PRESET ...]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("presets", nargs="*", help=f"any of {', '.join(sorted(FILES))} "
                        "(default: all)")
    parser.add_argument("--into", type=Path, default=data_folders()[-1],
                        help="data folder (default: %(default)s)")
    options = parser.parse_args(argv)
    unknown = sorted(set(options.presets) - set(FILES))
    if unknown:
        parser.error(f"unknown preset(s) {unknown}; known: {sorted(FILES)}")
    status = 0
    for preset in options.presets or sorted(FILES):
        try:
            print(f"{preset}: {download(FILES[preset], options.into)}")
        except (OSError, ValueError) as exc:
            print(f"{preset}: {exc}")
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
