"""Authoring mistakes: each is caught by lint at the offending line, with "did you mean" where a
near miss exists, and the exported JSON Schema agrees on every one.

The schema is applied the way an editor applies it: plain PyYAML (``yaml.safe_load``, which
reads ``updated_at: 2026-11-29`` as a date) and ``jsonschema`` on the front matter. Model names,
presets, config fields and trainer keys come from this repository's registry, read with ``ast``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from claimcheck.authoring.lint import Level, lint_wiki
from claimcheck.authoring.schema import card_json_schema
from claimcheck.cards.wiki import load_cards
from claimcheck.core.config import load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = load_config(ROOT)

BASE = """---
kind: paper
slug: mistakes
arxiv: "2101.12491"
title: "A card to make mistakes in"
authors: [A. Author]
year: 2021
status: draft
updated_at: 2026-11-29
claims:
  - id: params
    cite: tab. 2
    basis: paper-vs-code
    statement: The network has 161K parameters.
    check: params
    args: {model: efficient_capsnet, preset: mnist, exclude: [decoder]}
    expect: {between: [161000, 161999]}
  - id: shape
    cite: [§4.1, fig. 1]
    statement: Sixteen primary capsules of eight dimensions.
    check: shapes
    args:
      model: efficient_capsnet
      preset: smallnorb
      module: primary_caps
      input: [2, 2, 48, 48]
    expect: {equals: [2, 16, 8]}
  - id: ratio
    cite: p. 1
    statement: Two percent of CapsNet.
    check: ratio
    args:
      numerator: {kind: params, args: {model: efficient_capsnet, preset: mnist}}
      denominator: {kind: params, args: {model: capsnet, preset: mnist}}
    expect: {approx: 0.02, abs_tol: 0.005}
  - id: timing
    cite: §1
    basis: wiki
    statement: Self-attention routing is faster.
    check: timing
    args:
      a: models.checks.timing:dynamic_routing_layer
      b: models.checks.timing:self_attention_layer
      repeats: 7
    expect: {at_least: 1.0}
  - id: train
    cite: tab. 2
    statement: Reaches 0.26% error.
    check: train
    args:
      model: efficient_capsnet
      preset: mnist
      dataset: mnist-5k
      metric: error
      epochs: 3
    expect: {at_most: 0.26}
  - id: squash
    cite: eq. 2
    basis: implementation
    statement: The squash keeps the direction of s.
    check: models.checks.squash:squash_efficient_properties
    expect: {holds: true}
  - id: coupling
    cite: eq. 3
    basis: implementation
    statement: The couplings of each child sum to one over the parents.
    check: models.checks.dynamic:coupling_over_parents
    args: {iterations: 3}
    expect: {holds: true}
  - id: said
    cite: §4.3
    basis: textual
    statement: The paper says so.
    quote: "a test accuracy of 1.23"
---
Body.
"""

# (name, text to replace, replacement, marker of the reported line, message, "did you mean")
MISTAKES: list[tuple[str, str, str, str, str, str | None]] = [
    ("check-kind", "    check: params\n", "    check: parms\n", "check: parms",
     "unknown check kind 'parms'", "did you mean 'params'?"),
    ("cite-near-miss", "    cite: tab. 2\n    basis: paper", "    cite: table 2\n    basis: paper",
     "cite: table 2", "malformed claim locator 'table 2'", "did you mean `tab. 2`"),
    ("cite-list-element", "[§4.1, fig. 1]", "[§4.1, Fig. 1]", "Fig. 1",
     "malformed claim locator 'Fig. 1'", "did you mean `fig. 1`"),
    ("model-name", "{model: efficient_capsnet, preset: mnist, exclude",
     "{model: efficient_capsnett, preset: mnist, exclude", "efficient_capsnett",
     "unknown model 'efficient_capsnett'", "did you mean 'efficient_capsnet'?"),
    ("preset-name", "      preset: smallnorb\n", "      preset: smallnrob\n", "smallnrob",
     "unknown preset 'smallnrob' for model 'efficient_capsnet'", "did you mean 'smallnorb'?"),
    ("nested-model", "{model: capsnet, preset: mnist}", "{model: capsnett, preset: mnist}",
     "capsnett", "unknown model 'capsnett'", "did you mean 'capsnet'?"),
    ("config-field", "exclude: [decoder]}", "exclude: [decoder], kwargs: {in_chanels: 1}}",
     "in_chanels", "efficient_capsnet has no config field 'in_chanels'",
     "did you mean 'in_channels'?"),
    ("args-key", "      module: primary_caps\n", "      modul: primary_caps\n", "modul:",
     "unknown key 'modul'", "did you mean 'module'?"),
    ("custom-check-name", "squash:squash_efficient_properties", "squash:squash_efficent_properties",
     "squash_efficent", "names function 'squash_efficent_properties', not found",
     "did you mean 'squash_efficient_properties'?"),
    ("timing-factory-name", "timing:dynamic_routing_layer", "timing:dynamic_routing_layr",
     "dynamic_routing_layr", "timing factory 'models.checks.timing:dynamic_routing_layr'",
     "did you mean 'dynamic_routing_layer'?"),
    ("timing-key", "      repeats: 7\n", "      repeat: 7\n", "repeat: 7",
     "unknown key 'repeat'", "did you mean 'repeats'?"),
    ("nested-kind", "numerator: {kind: params,", "numerator: {kind: parms,", "kind: parms",
     "args: numerator.kind: input should be", "did you mean 'params'?"),
    ("trainer-key", "      epochs: 3\n", "      epoch: 3\n", "epoch: 3",
     "unknown key 'epoch' for the trainer", "did you mean 'epochs'?"),
    ("trainer-metric", "      metric: error\n", "      metric: eror\n", "metric: eror",
     "unknown metric 'eror'", "did you mean 'error'?"),
    ("basis-value", "    basis: paper-vs-code\n", "    basis: paper-vs-cod\n", "paper-vs-cod",
     "basis: input should be", "did you mean 'paper-vs-code'?"),
    ("basis-unfit", "    basis: wiki\n    statement: Self", "    basis: implementation\n"
     "    statement: Self", "basis: implementation",
     "basis 'implementation' does not fit check 'timing'", None),
    ("textual-with-check", "    basis: paper-vs-code\n", "    basis: textual\n",
     "- id: params", "a textual claim is decided by its quote", None),
    ("claim-key", "    statement: The paper says so.", "    statment: The paper says so.",
     "statment:", "unknown key 'statment'", "did you mean 'statement'?"),
    ("expect-key", "{at_most: 0.26}", "{at_mots: 0.26}", "at_mots",
     "unknown key 'at_mots'", "did you mean 'at_most'?"),
    ("approx-tolerance", "{approx: 0.02, abs_tol: 0.005}", "{approx: 0.02}", "approx: 0.02",
     "approx needs exactly one of rel_tol, abs_tol or std", None),
    ("status-value", "status: draft\n", "status: drat\n", "status: drat",
     "status: input should be", "did you mean 'draft'?"),
    ("date-format", "updated_at: 2026-11-29\n", "updated_at: 29.11.2026\n", "updated_at",
     "bad date '29.11.2026': expected YYYY-MM-DD", None),
    ("arxiv-version", 'arxiv: "2101.12491"\n', 'arxiv: "2101.12491v2"\n', "2101.12491v2",
     "a card names the paper, not a version", "pin the version under `source"),
    ("doi-url", 'arxiv: "2101.12491"\n', "doi: https://doi.org/10.1038/s41598-021-93977-0\n",
     "doi:", "not a DOI", "write the DOI alone: `10.1038/s41598-021-93977-0`"),
    ("two-identifiers", 'arxiv: "2101.12491"\n',
     'arxiv: "2101.12491"\nopenreview: HJWLfGWRb\n', "openreview:",
     "exactly one of arxiv, doi, openreview or url (got arxiv, openreview)", None),
    ("quote-too-long", '"a test accuracy of 1.23"', '"' + "long " * 70 + '"', "long long",
     "should have at most 300 characters", None),
    ("source-sha", 'arxiv: "2101.12491"\n', 'arxiv: "2101.12491"\nsource: {version: 2, '
     'sha256: "abc"}\n', "source:", "64 lower-case hex digits", None),
    # issue 24: custom checks declare their args; expect is typed; identifiers read as written
    ("custom-args-key", "args: {iterations: 3}", "args: {iteratons: 3}", "iteratons",
     "unknown key 'iteratons'", "did you mean 'iterations'?"),
    ("custom-args-type", "args: {iterations: 3}", 'args: {iterations: "3"}', "iterations",
     "iterations must be int, got str '3'", None),
    ("custom-args-undeclared", "_efficient_properties\n", "_efficient_properties\n"
     "    args: {kwrags: {}}\n", "kwrags", "unknown key 'kwrags': this check takes no args",
     None),
    ("expect-text-number", "expect: {between: [161000, 161999]}", 'expect: {equals: "161000"}',
     'equals: "161000"', "expect.equals is the text '161000'", "write 161000 without quotes"),
    ("tolerance-text", "{approx: 0.02, abs_tol: 0.005}", '{approx: 0.02, abs_tol: "0.5%"}',
     "abs_tol", "abs_tol is the text '0.5%': a tolerance is a number", None),
    ("equals-on-real", "expect: {at_least: 1.0}", "expect: {equals: 1.0}", "equals: 1.0",
     "equals on a real-valued measurement", "use approx with a tolerance"),
    ("holds-on-count", "expect: {between: [161000, 161999]}", "expect: {holds: true}",
     "expect: {holds: true}", "holds is for a property check's true/false", None),
    ("shape-equals-number", "expect: {equals: [2, 16, 8]}", "expect: {equals: 16}",
     "equals: 16", "shapes measures a list of dimensions", "add args.index"),
    ("arxiv-unquoted", 'arxiv: "2101.12491"\n', "arxiv: 1712.03480\n", "arxiv: 1712",
     "YAML reads the unquoted 1712.03480 as a number", 'write it in quotes: "1712.03480"'),
    ("quote-unquoted-number", '"a test accuracy of 1.23"', "1.230", "quote: 1.230",
     "YAML reads the unquoted 1.230 as a number", 'write it in quotes: "1.230"'),
    ("statement-date", "    statement: The paper says so.", "    statement: 2021-05-01",
     "statement: 2021", "YAML reads the unquoted 2021-05-01 as a date",
     'write it in quotes: "2021-05-01"'),
]


def _lint(text: str, tmp_path: Path) -> list[Any]:
    path = tmp_path / "card.md"
    path.write_text(text, encoding="utf-8")
    return lint_wiki(load_cards(CONFIG, [path]))


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    """The exported schema, built once (about a second): every test reads the same one."""
    return jsonschema.Draft202012Validator(card_json_schema(CONFIG))


def _schema_errors(text: str) -> list[str]:
    front = text.split("\n---\n", 1)[0].removeprefix("---\n")
    data = yaml.safe_load(front)
    return [error.message for error in _validator().iter_errors(data)]


def test_the_base_card_is_clean_for_lint_and_schema(tmp_path: Path) -> None:
    errors = [f for f in _lint(BASE, tmp_path) if f.level is Level.ERROR]
    assert errors == []
    assert _schema_errors(BASE) == []


def test_there_are_at_least_fifteen_mistakes() -> None:
    assert len(MISTAKES) >= 15
    assert len({row[0] for row in MISTAKES}) == len(MISTAKES)


@pytest.mark.parametrize(
    ("old", "new", "marker", "message", "hint"), [row[1:] for row in MISTAKES],
    ids=[row[0] for row in MISTAKES])
def test_lint_catches_the_mistake_at_its_line(
    tmp_path: Path, old: str, new: str, marker: str, message: str, hint: str | None
) -> None:
    assert BASE.count(old) == 1, "the replaced text must be unique"
    text = BASE.replace(old, new)
    lines = text.split("\n")
    expected_line = next(i for i, line in enumerate(lines, 1) if marker in line)
    errors = [f for f in _lint(text, tmp_path) if f.level is Level.ERROR]
    assert errors, "lint found no error"
    found = [f for f in errors if message in f.message]
    assert found, [f.as_text() for f in errors]
    assert found[0].line == expected_line, found[0].as_text()
    if hint is not None:
        assert hint in found[0].message


@pytest.mark.parametrize(("old", "new"), [row[1:3] for row in MISTAKES],
                         ids=[row[0] for row in MISTAKES])
def test_the_schema_agrees(old: str, new: str) -> None:
    assert _schema_errors(BASE.replace(old, new)), "the schema accepts what lint rejects"


def test_every_wiki_card_passes_the_schema_as_an_editor_reads_it() -> None:
    from claimcheck.cards.wiki import card_files, is_card

    for path in [p for p in card_files(ROOT / "wiki") if is_card(p)]:
        text = path.read_text(encoding="utf-8")
        assert _schema_errors(text) == [], path
