"""The JSON Schema of a card's front matter, for editors, agreeing with lint.

Pydantic gives the shape of the models (:mod:`claimcheck.cards.frontmatter`); lint knows more than
the shape, so the exported schema adds what an editor can check without running anything:

* ``check``: a built-in kind or a ``module.path:function`` reference, and for each built-in kind
  the ``args`` model of :mod:`claimcheck.checks.args`, with the project's registered model
  names, presets, config fields and trainer keys as enums (when a project is given); with a
  project, a named function (``check``, ``factory``, ``a``/``b``, ``trainer``) must be one the
  content packages mark for that role (:func:`claimcheck.checks.catalog.marked_callables`),
  and a custom check's ``args`` must fit its declaration (:mod:`claimcheck.checks.declared`);
* ``cite``: the locator grammar (:mod:`claimcheck.cards.locators`) as a pattern;
* the cross-field rules of a claim (check or ``unverified:`` or a textual quote; ``expect``
  with a check), of ``expect`` (exactly one comparator) and of a paper card (exactly one
  identifier);
* ``basis``: the legend's sentence for each value (:data:`claimcheck.cards.basis.BASIS_LEGEND`);
* ``updated_at``: a ``YYYY-MM-DD`` string. An editor's YAML server (YAML 1.2) reads
  ``2026-11-29`` as a string, while PyYAML (YAML 1.1) reads it as a ``date``; the schema accepts
  both by not naming a JSON type for the date and refusing every other type instead.

What the schema cannot see (a locator range written backwards, whether a quote occurs in the
paper, a reference rebound after its marker) is left to lint. The schema is tested
against lint on a table of authoring mistakes (``tests/authoring``).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from claimcheck.cards.basis import ALLOWED, BASIS_LEGEND, BASIS_ORDER
from claimcheck.cards.frontmatter import Card
from claimcheck.checks.args import ARGS_MODELS, REFERENCE_PATTERN
from claimcheck.checks.catalog import (
    ModelCatalog,
    TrainerFacts,
    marked_callables,
    model_catalog,
    trainer_facts,
)
from claimcheck.checks.declared import (
    annotation_type,
    content_module_finder,
    static_declaration,
)
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import ClaimcheckError
from claimcheck.trust.boundary import resolve_reference
from claimcheck.verdicts.expect_types import expect_schema

SCHEMA_ID = "https://claimcheck.invalid/schema/card.json"
BUILTIN_KINDS = ("params", "shapes", "ratio", "timing", "train", "flops")
_NUMBER = r"\d+"
_LABEL = rf"({_NUMBER}(\.{_NUMBER})*|{_NUMBER}-{_NUMBER})"
LOCATOR_PATTERN = (
    rf"^(§{_LABEL}|(tab|fig|eq|alg)\. {_LABEL}|app\. [A-Z](\.{_NUMBER})*"
    rf"|p\. ({_NUMBER}|{_NUMBER}-{_NUMBER}))$"
)
"""The locator grammar of :mod:`claimcheck.cards.locators` as one regular expression."""
DATE_SCHEMA: dict[str, Any] = {
    "description": "YYYY-MM-DD (a string to an editor, a date to PyYAML: both are accepted)",
    "not": {"type": ["integer", "number", "boolean", "array", "object", "null"]},
    "pattern": r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$",
    "format": "date",
}
_COMPARATORS = ("equals", "approx", "at_most", "at_least", "between", "holds")


def card_json_schema(config: ProjectConfig | None = None) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of card front matter; ``config`` adds registry names."""
    schema = TypeAdapter(Card).json_schema(mode="validation")
    defs = schema["$defs"]
    catalog = model_catalog(config) if config is not None else ModelCatalog()
    trainer = trainer_facts(config) if config is not None else TrainerFacts()
    marked = marked_callables(config) if config is not None else {}
    for name in ("ConceptCard", "PaperCard"):
        defs[name]["properties"]["updated_at"] = dict(DATE_SCHEMA)
    _paper_rules(defs["PaperCard"])
    _expect_rules(defs["Expect"])
    _claim_rules(defs, catalog, trainer)
    _basis_legend(defs["Basis"])
    _callables(defs, marked)
    if config is not None:
        _custom_args(defs, config, marked.get("claim_check", ()))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "claimcheck card front matter",
        **schema,
    }


def _required(*keys: str) -> dict[str, Any]:
    return {"required": list(keys)}


def _paper_rules(paper: dict[str, Any]) -> None:
    identities = ("arxiv", "doi", "openreview", "url")
    paper["oneOf"] = [_required(key) for key in identities]
    paper["allOf"] = [{
        "if": _required("arxiv", "source"),
        "then": {"properties": {"source": _required("version")}},
    }]


def _basis_legend(basis: dict[str, Any]) -> None:
    """The legend's sentence for each basis, where an editor shows it (hover, completion)."""
    basis["enum"] = [b.value for b in BASIS_ORDER]
    basis["description"] = "What the claim's verdict is evidence of. " + " ".join(
        f"`{b.value}`: {BASIS_LEGEND[b]}" for b in BASIS_ORDER)
    basis["enumDescriptions"] = [BASIS_LEGEND[b] for b in BASIS_ORDER]  # VS Code's keyword


def _expect_rules(expect: dict[str, Any]) -> None:
    kinds = ("rel_tol", "abs_tol", "std")
    tolerances = {"anyOf": [_required(key) for key in kinds]}
    expect["oneOf"] = [_required(key) for key in _COMPARATORS]
    expect["allOf"] = [
        {"if": _required("approx"),
         "then": {"oneOf": [_required(key) for key in kinds]},
         "else": {"not": tolerances}},
    ]


def _claim_rules(defs: dict[str, Any], catalog: ModelCatalog, trainer: TrainerFacts) -> None:
    claim = defs["Claim"]
    properties = claim["properties"]
    locator = {"type": "string", "pattern": LOCATOR_PATTERN}
    properties["cite"] = {"anyOf": [locator, {"type": "array", "items": locator,
                                              "minItems": 1}]}
    properties["check"] = {"anyOf": [
        {"enum": list(BUILTIN_KINDS)}, {"type": "string", "pattern": REFERENCE_PATTERN},
        {"type": "null"},
    ]}
    textual = {"properties": {"basis": {"const": "textual"}}, "required": ["basis"]}
    claim["anyOf"] = [_required("check"), _required("unverified"), textual]
    rules: list[dict[str, Any]] = [
        {"not": _required("check", "unverified")},
        {"if": _required("check"), "then": _required("expect"),
         "else": {"not": {"anyOf": [_required("expect"),
                                    {"properties": {"args": {"minProperties": 1}},
                                     "required": ["args"]}]}}},
        {"if": textual, "then": {"not": _required("check")}},
        {"if": {**textual, "not": _required("unverified")}, "then": _required("quote")},
    ]
    for kind in BUILTIN_KINDS:
        name = f"{kind.capitalize()}Args"
        defs[name] = _args_schema(kind, defs, catalog, trainer)
        allowed = [b.value for b in BASIS_ORDER if b in ALLOWED[kind]]
        rules.append({
            "if": {"properties": {"check": {"const": kind}}, "required": ["check"]},
            "then": {"properties": {"args": {"$ref": f"#/$defs/{name}"},
                                    "basis": {"enum": allowed}},
                     "allOf": [expect_schema(kind)]},
        })
    custom = [b.value for b in BASIS_ORDER if b in ALLOWED["custom"]]
    rules.append({
        "if": {"properties": {"check": {"type": "string", "pattern": ":"}},
               "required": ["check"]},
        "then": {"properties": {"basis": {"enum": custom}}},
    })
    claim["allOf"] = rules


_SLOTS = {
    "claim_check": (("Claim", "check"),),
    "model_factory": (("ParamsArgs", "factory"), ("ShapesArgs", "factory"),
                      ("FlopsArgs", "factory")),
    "timing_factory": (("TimingArgs", "a"), ("TimingArgs", "b")),
    "trainer": (("TrainArgs", "trainer"),),
}
"""Where a card names a function, by the marker role that function must carry."""


def _callables(defs: dict[str, Any], marked: dict[str, tuple[str, ...]]) -> None:
    """With a project, a named function must be one of its marked functions (as lint says)."""
    for role, slots in _SLOTS.items():
        names = list(marked.get(role, ()))
        if not names:
            continue
        for model, field in slots:
            properties = defs.get(model, {}).get("properties", {})
            if field not in properties:
                continue
            if model == "Claim":
                properties[field] = {"anyOf": [
                    {"enum": list(BUILTIN_KINDS)}, {"enum": names}, {"type": "null"}]}
            else:
                properties[field] = {"enum": names, "description": f"a function marked @{role}"}


def _custom_args(defs: dict[str, Any], config: ProjectConfig, checks: tuple[str, ...]) -> None:
    """Each marked custom check's declared args, as lint reads them (unknown keys refused)."""
    rules = defs["Claim"]["allOf"]
    for name in checks:
        try:
            reference = resolve_reference(name, config)
        except ClaimcheckError:
            continue
        declaration = static_declaration(reference.file, reference.function,
                                         content_module_finder(config))
        if declaration.error is not None:
            continue
        properties = {field.name: TypeAdapter(annotation_type(field.annotation)).json_schema()
                      for field in declaration.fields}
        args = {"type": "object", "properties": properties, "additionalProperties": False,
                "required": [field.name for field in declaration.fields if field.required],
                "description": f"the args {name} declares ({declaration.name or 'none'})"}
        rules.append({"if": {"properties": {"check": {"const": name}}, "required": ["check"]},
                      "then": {"properties": {"args": args}}})


def _args_schema(
    kind: str, defs: dict[str, Any], catalog: ModelCatalog, trainer: TrainerFacts
) -> dict[str, Any]:
    schema = ARGS_MODELS[kind].model_json_schema(ref_template="#/$defs/{model}")
    for name, definition in schema.pop("$defs", {}).items():
        defs.setdefault(name, definition)
    if kind in ("params", "shapes"):
        schema["oneOf"] = [
            {**_required("model", "preset"), "not": _required("factory")},
            {**_required("factory"),
             "not": {"anyOf": [_required("model"), _required("preset")]}},
        ]
        _registry(schema, catalog, "kwargs")
    elif kind == "train":
        _registry(schema, catalog, "overrides")
        if trainer.spec_keys:
            allowed = sorted({*trainer.spec_keys, "trainer"})
            schema["propertyNames"] = {"enum": allowed}
            budget = {"type": "object", "propertyNames": {"enum": allowed}}
            schema["properties"]["budgets"] = {
                "type": "object", "propertyNames": {"enum": ["smoke", "short", "full"]},
                "additionalProperties": budget,
            }
        if trainer.metrics:
            schema["properties"]["metric"] = {"enum": list(trainer.metrics)}
    elif kind == "ratio":
        measure = defs["Measure"]
        measure["allOf"] = [
            {"if": {"properties": {"kind": {"const": nested}}},
             "then": {"properties": {"args": {"$ref": f"#/$defs/{nested.capitalize()}Args"}}}}
            for nested in BUILTIN_KINDS
        ]
    return schema


def _registry(schema: dict[str, Any], catalog: ModelCatalog, overrides: str) -> None:
    if not catalog.known:
        return
    schema["properties"]["model"] = {"enum": sorted(catalog.presets)}
    rules = []
    for name, presets in sorted(catalog.presets.items()):
        then: dict[str, Any] = {"preset": {"enum": list(presets)}}
        if name in catalog.fields:
            then[overrides] = {"propertyNames": {"enum": list(catalog.fields[name])}}
        rules.append({"if": {"properties": {"model": {"const": name}}, "required": ["model"]},
                      "then": {"properties": then}})
    schema["allOf"] = rules


def card_json_schema_text(config: ProjectConfig | None = None) -> str:
    """The schema as pretty JSON text."""
    return json.dumps(card_json_schema(config), indent=2, sort_keys=True) + "\n"
