"""Parse every JSON the tool writes as a strict parser would (``jq``, ``JSON.parse``): ``NaN``,
``Infinity`` and ``-Infinity`` are not JSON, so a document holding them fails the test."""

from __future__ import annotations

import json
from typing import Any


def _refuse(name: str) -> Any:
    raise ValueError(f"not strict JSON: {name}")


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` that refuses the non-standard constants."""
    return json.loads(text, parse_constant=_refuse)
