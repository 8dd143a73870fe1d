"""A card never chooses where trusted code reads: the rule for path arguments.

A claim's ``args`` reach the project's own code (a trainer's ``data_folder``, a check's weights
file). A card is untrusted, so an argument that names a file or folder (:func:`is_path_key`:
``data_folder``, or any key ending in ``_folder``, ``_dir``, ``_path``, ``_file`` or ``_root``,
at any depth of ``args``), and any string value that looks like a path whatever its key
(:func:`looks_like_path`: a ``/`` or ``\\`` in it, a leading ``~``, or ``.``/``..``; a check may
name its argument ``weights`` or ``source``), is accepted only when its value

* is a relative path with plain names (no ``..``, no ``~``, not absolute),
* lies inside one of the project's configured data roots (``[tool.claimcheck] data_roots``,
  folders inside the project and outside the results store; none by default), and
* is reached without a symbolic link or anything else but real folders on the way.

Anything else is refused by :func:`path_arg_problems`, which ``lint`` (an error at the value) and
``verify`` (the claim is refused before it runs, :func:`claimcheck.engine.planning.refusal`) both
call, so they refuse with the same message. Where to find data otherwise is the operator's business:
``$CLAIMCHECK_DATA`` and the loaders' own defaults.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from claimcheck.core.config import ProjectConfig
from claimcheck.trust.boundary import callable_slots

__all__ = ["PathArgProblem", "is_path_key", "looks_like_path", "path_arg_problems"]

_PATH_SUFFIXES = ("_folder", "_dir", "_directory", "_path", "_file", "_root")
_PATH_NAMES = {"folder", "dir", "directory", "path", "file", "filename", "root", "data_folder"}


@dataclass(frozen=True)
class PathArgProblem:
    """A refused path argument: where it sits inside ``args``, and why."""

    path: tuple[str | int, ...]
    message: str


def is_path_key(key: str) -> bool:
    """Whether an argument named ``key`` names a file or folder."""
    lowered = key.lower()
    return lowered in _PATH_NAMES or lowered.endswith(_PATH_SUFFIXES)


def looks_like_path(value: Any) -> bool:
    """Whether a string argument reads as a file or folder, whatever its key is called."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    return "/" in text or "\\" in text or text.startswith("~") or text in (".", "..")


def path_arg_problems(args: Mapping[str, Any], config: ProjectConfig,
                      check: str | None = None) -> list[PathArgProblem]:
    """Every path argument of ``args`` that the rule above refuses.

    An argument where the claim's ``check`` kind takes a function (``factory``, ``trainer``,
    ``a``/``b``: :func:`claimcheck.trust.boundary.callable_slots`) is a capability, not a path,
    whatever it is spelt like (``models/x.py:f``, ``../m:f``): the trust boundary judges it and
    names the real problem, so this rule leaves it alone.
    """
    capabilities = {slot.path[1:] for slot in callable_slots(check, args)
                    if slot.path[:1] == ("args",)}
    return [PathArgProblem(path, _message(path, value, why, config))
            for path, value in _path_args(args, ())
            if path not in capabilities and (why := _why_refused(value, config))]


def _path_args(value: Any, where: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...],
                                                                          Any]]:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            here = (*where, str(key))
            if isinstance(key, str) and is_path_key(key):
                yield here, inner
            else:
                yield from _path_args(inner, here)
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _path_args(inner, (*where, index))
    elif looks_like_path(value):
        yield where, value


def _why_refused(value: Any, config: ProjectConfig) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or not value.strip():
        return "is not a path"
    written = PurePosixPath(value.replace("\\", "/"))
    if written.is_absolute() or value.startswith("~"):
        return "is not a path relative to the project"
    if any(part in ("..", ".") for part in written.parts) or "\0" in value:
        return "climbs out with '..'" if ".." in written.parts else "is not a plain path"
    target = config.root.joinpath(*written.parts)
    results = config.results
    if target == results or results in target.parents:
        return "lies inside the results store"
    if not any(target == root or root in target.parents for root in config.data_roots):
        return "lies outside every configured data root"
    here = config.root
    for part in written.parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            break
        except OSError as error:
            return f"cannot be checked: {error.strerror or error}"
        if stat.S_ISLNK(mode):
            return "passes through a symbolic link"
    return ""


def _message(path: tuple[str | int, ...], value: Any, why: str, config: ProjectConfig) -> str:
    shown = ".".join(str(part) for part in path)
    roots = ", ".join(root.relative_to(config.root).as_posix() + "/"
                      for root in config.data_roots) or "none configured"
    return (f"args.{shown}: {value!r} {why}; a card may name only a path inside a data root "
            f"of the project ([tool.claimcheck] data_roots: {roots}): where trusted code reads "
            "is the project's choice, never a card's")
