"""Keep the machine's absolute paths out of stored results.

Results are committed and published. A traceback or a check's details written on one machine must
not carry that machine's folders (a home directory, a user name, a temp folder): every absolute
path in stored text becomes relative to the project root, or is marked as lying outside it
(``<site-packages>/torch/nn/modules/module.py``, ``<python>/json/decoder.py``,
``<outside>/secret.txt``). :func:`scrub` is applied to the reason, details, output and traceback
of every result before it is written.
"""

from __future__ import annotations

import re
import site
import sys
import sysconfig
import tempfile
from collections.abc import Iterable
from pathlib import Path

_PATH = re.compile(r"(?<![\w.:/~<>-])/(?:[^\s/'\"`:,;()\[\]<>|]+/)*[^\s/'\"`:,;()\[\]<>|]+")
"""An absolute POSIX path: starts with ``/`` not inside a word, a URL or a relative path."""


def _prefixes(root: Path) -> list[tuple[str, str]]:
    """(absolute prefix, what replaces it), longest first, so the most specific wins."""
    places: list[tuple[Iterable[str], str]] = [
        ([str(root), str(root.resolve())], ""),
        ([*site.getsitepackages(), site.getusersitepackages(),
          sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]], "<site-packages>/"),
        ([sysconfig.get_paths()["stdlib"], sys.base_prefix, sys.prefix], "<python>/"),
        ([tempfile.gettempdir(), str(Path(tempfile.gettempdir()).resolve())], "<tmp>/"),
        ([str(Path.home())], "<home>/"),
    ]
    pairs = {
        prefix.rstrip("/"): label
        for prefixes, label in places for prefix in prefixes if prefix and prefix != "/"
    }
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def scrub(text: str, root: Path) -> str:
    """``text`` with every absolute path made relative to ``root`` or marked as outside it."""
    if "/" not in text:
        return text
    prefixes = _prefixes(root)

    def replace(match: re.Match[str]) -> str:
        path = match.group(0)
        for prefix, label in prefixes:
            if path == prefix:
                return label.rstrip("/") or "."
            if path.startswith(prefix + "/"):
                rest = path[len(prefix) + 1:]
                return f"{label}{rest}" if label else rest
        name = path.rstrip("/").rsplit("/", 1)[-1]
        return f"<outside>/{name}" if name else "<outside>"

    return _PATH.sub(replace, text)
