"""The JSON Schema of a card's front matter, for editors and for validation tests."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from claimcheck.cards import Card

SCHEMA_ID = "https://claimcheck.invalid/schema/card.json"


def card_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) that every card's front matter satisfies."""
    schema = TypeAdapter(Card).json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "claimcheck card front matter",
        **schema,
    }


def card_json_schema_text() -> str:
    """The schema as pretty JSON text."""
    return json.dumps(card_json_schema(), indent=2, sort_keys=True) + "\n"
