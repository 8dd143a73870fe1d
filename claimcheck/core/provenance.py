"""Provenance of a result: when it ran, in which environment, at which commit.

Stored with every result so that a reader can tell what produced a verdict. Versions are read
from package metadata, so recording them never imports torch. The environment is provenance, not
an input of the fingerprint: :func:`environment_changes` words a difference ("ran under torch
2.13.0, you have 2.14.0") for display, and only a claim's ``rerun_on`` (or verify's
``--rerun-on-environment``) turns one into staleness.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import platform
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from claimcheck.core.version import __version__


def now_iso() -> str:
    """The current UTC time as ISO 8601 with offset, to the second."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def environment_info() -> dict[str, str]:
    """Python, torch (from package metadata, never imported), claimcheck and platform."""
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "not installed"
    return {
        "python": platform.python_version(),
        "torch": torch_version,
        "claimcheck": __version__,
        "platform": platform.platform(),
    }


def environment_changes(
    recorded: Any, current: dict[str, str], parts: Iterable[str]
) -> str:
    """``ran under torch 2.13.0, you have 2.14.0`` for each of ``parts`` that differs between
    a result's ``recorded`` environment and the ``current`` one (``""``: none, or unknown)."""
    if not isinstance(recorded, dict):
        return ""
    changes = [
        f"ran under {part} {recorded[part]}, you have {current[part]}"
        for part in sorted(parts)
        if isinstance(recorded.get(part), str) and part in current
        and recorded[part] != current[part]
    ]
    return "; ".join(changes)


def git_state(root: Path, ignore: Path | None = None) -> dict[str, Any]:
    """``{"commit": sha or None, "dirty": bool or None}`` of the repository at ``root``.

    ``ignore`` (the store folder) does not count as a change: writing results must not make the
    next result look dirty.
    """
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None}
    pathspec = ["--", "."]
    if ignore is not None and root in ignore.parents:
        pathspec.append(f":(exclude){ignore.relative_to(root)}")
    status = git("status", "--porcelain", "--untracked-files=no", *pathspec)
    return {"commit": commit.strip(), "dirty": None if status is None else bool(status.strip())}
