"""What each built-in kind measures, and the expectations that can never be judged against it.

``expect`` is typed against the measurement where the kind says what it measures: ``params``
and ``flops`` count (an integer), ``shapes`` gives a list of dimensions (one integer with
``args.index``), ``ratio``, ``timing`` and ``train`` give a real number. Then

* a comparator given as text (``equals: "11749120"``) is an error: a number never equals text;
* ``equals`` on a real-valued measurement is an error: exact equality of a float is luck, so the
  claim needs ``approx`` with a tolerance, or ``between``;
* ``holds`` (a property check's true/false) on a counted or measured number is an error;
* an ``equals`` of the wrong shape (a list for a count, a number for a shape) is an error.

For a custom check the measurement is not known before it runs; text that reads as a number
(``equals: "3"``) is a warning there. Lint (:mod:`claimcheck.authoring.lint`) and the JSON Schema
(:mod:`claimcheck.authoring.schema`) both read this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from claimcheck.cards.claims import Expect

__all__ = ["MEASURES", "ExpectProblem", "expect_problems", "expect_schema", "measured_kind"]

Measure = Literal["integer", "real", "shape"]

MEASURES: Mapping[str, Measure] = {
    "params": "integer", "flops": "integer", "shapes": "shape",
    "ratio": "real", "timing": "real", "train": "real",
}
"""What each built-in kind measures."""

_NOUNS: Mapping[Measure, str] = {
    "integer": "a whole number (a count)", "real": "a real number", "shape": "a list of dimensions",
}


@dataclass(frozen=True)
class ExpectProblem:
    """One problem of an expectation: the comparator's key, why, and whether only a warning."""

    key: str
    message: str
    warning: bool = False


def measured_kind(check: str | None, args: Mapping[str, Any]) -> Measure | None:
    """What ``check`` measures, when its kind says so (``None`` for custom checks)."""
    measure = MEASURES.get(check or "")
    if measure == "shape" and args.get("index") is not None:
        return "integer"
    return measure


def _reads_as_number(text: str) -> bool:
    try:
        float(text.replace("_", "").replace(",", ""))
    except ValueError:
        return False
    return True


def expect_problems(
    check: str | None, args: Mapping[str, Any], expect: Expect
) -> list[ExpectProblem]:
    """Every expectation of ``expect`` that no measurement of ``check`` could be judged by."""
    measure = measured_kind(check, args)
    written = expect.model_fields_set
    problems: list[ExpectProblem] = []
    equals = expect.equals
    if "equals" in written and isinstance(equals, str):
        if measure is not None:
            hint = (f"; write {equals} without quotes" if _reads_as_number(equals) else "")
            problems.append(ExpectProblem("equals", f"expect.equals is the text {equals!r}, but "
                                          f"{check} measures {_NOUNS[measure]}{hint}"))
        elif _reads_as_number(equals):
            problems.append(ExpectProblem(
                "equals", f"expect.equals is the text {equals!r}, which reads as a number: a "
                "check that measures a number never equals text; write it without quotes",
                warning=True))
        return problems
    if measure is None:
        return problems
    noun = _NOUNS[measure]
    if "holds" in written:
        problems.append(ExpectProblem("holds", f"holds is for a property check's true/false, "
                                      f"but {check} measures {noun}"))
    if "equals" in written and measure == "real":
        problems.append(ExpectProblem(
            "equals", f"equals on a real-valued measurement ({check} measures {noun}): exact "
            "equality of a float is luck; use approx with a tolerance, or between"))
    elif "equals" in written and measure == "integer" and (
            isinstance(equals, (bool, list)) or (isinstance(equals, float)
            and not equals.is_integer())):
        problems.append(ExpectProblem("equals", f"expect.equals is {equals!r}, but {check} "
                                      f"measures {noun}"))
    elif "equals" in written and measure == "shape" and not isinstance(equals, list):
        problems.append(ExpectProblem("equals", f"expect.equals is {equals!r}, but {check} "
                                      f"measures {noun} (add args.index to measure one)"))
    return problems


def expect_schema(kind: str) -> dict[str, Any]:
    """What a claim of built-in ``kind`` must hold in ``expect``, as JSON Schema for the claim
    (a ``then`` branch): the same rules as :func:`expect_problems`."""
    measure = MEASURES[kind]
    if measure == "real":
        banned = {"anyOf": [{"required": ["holds"]}, {"required": ["equals"]}]}
        return {"properties": {"expect": {"not": banned}}}
    count = {"not": {"required": ["holds"]}, "properties": {"equals": {"type": "integer"}}}
    if measure == "integer":
        return {"properties": {"expect": count}}
    shape = {"not": {"required": ["holds"]}, "properties": {"equals": {"type": "array"}}}
    return {"if": {"properties": {"args": {"required": ["index"]}}, "required": ["args"]},
            "then": {"properties": {"expect": count}},
            "else": {"properties": {"expect": shape}}}
