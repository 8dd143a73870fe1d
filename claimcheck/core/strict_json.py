"""Strict JSON for every file and report the tool writes.

JSON has no ``NaN`` or ``Infinity``; Python writes them anyway, and strict parsers (``jq``, a
browser's ``JSON.parse``) then refuse the whole document. Every JSON the tool writes (results
with their history, power results, reports, lint findings, training curves, caches) goes through
:func:`dumps`: a non-finite number becomes ``null``, and the object holding it gets a field
beside it, ``<key>_non_finite``, saying what it was: the spelling itself (``"NaN"``,
``"Infinity"``, ``"-Infinity"``) for a number, or ``{"<index>/<index>": spelling}`` for numbers
inside a list. A non-finite number outside any object (a list at the top) becomes ``null``.
:func:`restore` reads that back, so a stored measurement survives a round trip; a value whose
``_non_finite`` field does not fit is left as written.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["NON_FINITE_SUFFIX", "dumps", "restore", "strict"]

NON_FINITE_SUFFIX = "_non_finite"
_SPELLED = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _spelling(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _list_notes(value: list[Any] | tuple[Any, ...], prefix: str = "") -> dict[str, str]:
    notes: dict[str, str] = {}
    for index, item in enumerate(value):
        if _non_finite(item):
            notes[f"{prefix}{index}"] = _spelling(item)
        elif isinstance(item, (list, tuple)):
            notes.update(_list_notes(item, f"{prefix}{index}/"))
    return notes


def strict(value: Any) -> Any:
    """``value`` with every non-finite float as ``null`` and its note beside it."""
    if _non_finite(value):
        return None
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            out[key] = strict(item)
            if _non_finite(item):
                out[f"{key}{NON_FINITE_SUFFIX}"] = _spelling(item)
            elif isinstance(item, (list, tuple)) and (notes := _list_notes(item)):
                out[f"{key}{NON_FINITE_SUFFIX}"] = notes
        return out
    if isinstance(value, (list, tuple)):
        return [strict(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` of :func:`strict` ``value``, refusing anything non-strict
    (``allow_nan=False``); ``options`` go to ``json.dumps`` (``default=str`` unless given)."""
    options.setdefault("default", str)
    return json.dumps(strict(value), allow_nan=False, **options)


def restore(value: Any) -> Any:
    """Read back what :func:`strict` wrote: ``null`` beside a ``_non_finite`` note becomes the
    float again, and the note goes."""
    if isinstance(value, list):
        return [restore(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: restore(item) for key, item in value.items()}
    for key in [k for k in out if isinstance(k, str) and k.endswith(NON_FINITE_SUFFIX)]:
        base = key[: -len(NON_FINITE_SUFFIX)]
        note = out[key]
        if base not in out:
            continue
        if isinstance(note, str) and note in _SPELLED and out[base] is None:
            out[base] = _SPELLED[note]
        elif isinstance(note, dict) and isinstance(out[base], list):
            _restore_items(out[base], note)
        else:
            continue
        del out[key]
    return out


def _restore_items(items: list[Any], notes: dict[str, Any]) -> None:
    for path, spelled in notes.items():
        if not isinstance(path, str) or spelled not in _SPELLED:
            continue
        target: Any = items
        parts = path.split("/")
        try:
            for part in parts[:-1]:
                target = target[int(part)]
            if isinstance(target, list) and target[int(parts[-1])] is None:
                target[int(parts[-1])] = _SPELLED[spelled]
        except (ValueError, IndexError, TypeError):
            continue
