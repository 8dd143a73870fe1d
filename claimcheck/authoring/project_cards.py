"""The configuration, cards and CI script ``claimcheck init`` writes.

The example is the Transformer (arxiv:1706.03762). Its paper card holds one claim of each check
kind, all of which verify as written: ``params``, ``shapes`` (on a tuple output, so with
``field:``), ``ratio``, ``flops``, ``timing``, ``train`` (on the tiny data the project ships) and
a custom check; the concept card cites them. The Python they run is
:mod:`claimcheck.authoring.project_code`.
"""

from __future__ import annotations

import yaml

from claimcheck.authoring.project_code import PACKAGE

__all__ = ["card_files"]

PYPROJECT = f"""\
# A claimcheck wiki: cards in wiki/, the code their checks run in {PACKAGE}/.
# How to write cards and checks: claimcheck's authoring guide (its wiki/authoring.md).
[tool.claimcheck]
# the card folder, and the results store (commit it: a result is evidence)
wiki = "wiki"
results = ".claimcheck"
# import_roots: the content packages a card may name functions of (a folder with __init__.py)
import_roots = ["{PACKAGE}"]
# model_factory: build_model(name, preset, **kwargs), what `model:` + `preset:` name in
# params, shapes, flops and train claims (lint reads its @register_model names)
model_factory = "{PACKAGE}.registry:build_model"
# trainer: run_training(spec, ctx) -> dict, run by every `train` claim that names no
# `trainer:` of its own in args (lint says so when neither exists)
trainer = "{PACKAGE}.training:run_training"
# variants: the catalogue of wrong variants (@wrong_variant) that `catches:` lists name
variants = ["{PACKAGE}.variants"]
# confidence = 0.95      # level of the confidence intervals over seeds
# data_roots = ["data"]  # folders a claim's path arguments (data_folder, *_dir) may point into
"""

MKDOCS = """\
# The wiki as a static site: `mkdocs serve`, or `mkdocs build --strict` (offline by design).
{site_name}docs_dir: wiki
site_dir: site

theme:
  name: material
  font: false
  features: [navigation.indexes]

markdown_extensions:
  - attr_list
  - md_in_html
  - tables
  - pymdownx.arithmatex:
      generic: true

plugins:
  - search
  - offline
  - claimcheck
"""

INDEX = """\
# {name}

Every number this wiki quotes from a paper is tied to a check: `claimcheck verify` runs the
checks, and each citation on this site carries the verdict.

Start with [multi-head attention](concepts/multi-head-attention.md), which cites the paper card
[Attention Is All You Need](papers/attention-is-all-you-need.md).
"""

CONCEPT = """\
---
kind: concept
slug: multi-head-attention
title: Multi-head attention
summary: >-
  Attention computed by several heads side by side, each on a slice of the model's width.
tags: [attention]
papers: ["1706.03762"]
status: draft
updated_at: {today}
---
The Transformer's base model splits its width of 512 into 8 heads, so that each head attends in
64 dimensions [arxiv:1706.03762 §3.2.2 #head-dimension]. The four projections of one attention
sublayer hold about a million weights [arxiv:1706.03762 §3.2.2 #attention-weights], and the big
model's four times as many [arxiv:1706.03762 tab. 3 #big-over-base]. Splitting the width costs
little time [arxiv:1706.03762 §3.2.2 #heads-cost-like-one]: the total cost is that of one head of
full width.

A sublayer maps a sequence to a sequence of the same shape
[arxiv:1706.03762 §3.2 #output-shape], at a cost that grows with the square of its length
[arxiv:1706.03762 tab. 1 #sublayer-flops]. Even a tiny attention classifier learns a simple task
from a few hundred examples [arxiv:1706.03762 §3.2 #tiny-classifier-learns].
"""

PAPER = """\
---
kind: paper
slug: attention-is-all-you-need
arxiv: "1706.03762"
title: "Attention Is All You Need"
authors: [Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones,
  Aidan N. Gomez, Lukasz Kaiser, Illia Polosukhin]
year: 2017
tags: [attention]
status: draft
updated_at: {today}
claims:
  - id: head-dimension              # a custom check, marked @claim_check, with declared args
    cite: §3.2.2
    basis: paper-vs-code
    statement: >-
      With d_model = 512 and h = 8 heads, each head works in d_k = d_model / h = 64 dimensions.
    check: {package}.attention:head_dimension
    args: {{d_model: 512, heads: 8}}
    expect: {{equals: 64}}
    catches: [one-head]             # a wrong variant this check must catch (verify --power)
  - id: attention-weights           # params: a registry model, counted
    cite: §3.2.2
    statement: >-
      The four projections of one attention sublayer (W^Q, W^K, W^V for all heads, and W^O)
      hold 4 d_model^2 = 1,048,576 weights in the base model, within 0.5% once biases count.
    check: params
    args: {{model: self-attention, preset: base}}
    expect: {{approx: 1048576, rel_tol: 0.005}}
  - id: output-shape                # shapes: the model returns (output, weights), so field: 0
    cite: §3.2
    statement: >-
      Self-attention maps a sequence of 10 tokens of width 512 to 10 tokens of width 512.
    check: shapes
    args: {{model: self-attention, preset: base, input: [10, 2, 512], field: 0}}
    expect: {{equals: [10, 2, 512]}}
  - id: big-over-base               # ratio: two built-in measurements divided
    cite: tab. 3
    statement: >-
      The big model (d_model = 1024) has four times the attention weights of the base model
      (d_model = 512), within 1%.
    check: ratio
    args:
      numerator: {{kind: params, args: {{model: self-attention, preset: big}}}}
      denominator: {{kind: params, args: {{model: self-attention, preset: base}}}}
    expect: {{approx: 4.0, rel_tol: 0.01}}
  - id: sublayer-flops              # flops: counted, the same on every machine
    cite: tab. 1
    basis: implementation
    statement: >-
      One self-attention sublayer over n = 16 tokens of width d = 512 costs
      8 n d^2 + 4 n^2 d = 34,078,720 FLOPs: projections plus the n-by-n attention.
    check: flops
    args: {{model: self-attention, preset: base, input: [16, 1, 512]}}
    expect: {{equals: 34078720}}
  - id: heads-cost-like-one         # timing: a ratio of two timed callables
    cite: §3.2.2
    basis: paper-vs-code
    statement: >-
      Eight heads of width 64 cost about as much time as one head of width 512 (the paper:
      "similar"; here within a factor of two either way).
    check: timing
    args:
      a: {package}.attention:attention_forward
      b: {package}.attention:attention_forward
      a_args: {{d_model: 512, heads: 8, tokens: 64, batch: 4}}
      b_args: {{d_model: 512, heads: 1, tokens: 64, batch: 4}}
    expect: {{between: [0.5, 2.0]}}
  - id: tiny-classifier-learns      # train: the configured trainer, on data the project ships
    cite: §3.2
    basis: wiki
    statement: >-
      The wiki's own experiment: a two-head attention classifier learns the shipped three-cluster
      toy set to at least 90% held-out accuracy (chance: 33%) in 40 steps.
    check: train
    args: {{model: blob-classifier, preset: tiny, epochs: 40, seeds: 3}}
    expect: {{at_least: 90}}
---
## Method

Each of the h heads projects the queries, keys and values to d_k = d_model / h dimensions, so
that all heads together cost about what one head of full width would.

## How the claims are checked

Each claim names a check: a built-in kind (`params`, `shapes`, `ratio`, `flops`, `timing`,
`train`) or a function of `{package}` marked `@claim_check`. Add a claim under `claims:`, run
`claimcheck lint`, then `claimcheck verify`.
"""

CI = """\
#!/usr/bin/env bash
# CI for this wiki: the cards lint clean, every claim's check runs, the site builds strictly.
set -euo pipefail
cd "$(dirname "$0")/.."
claimcheck lint --strict wiki/
claimcheck verify wiki/
NO_MKDOCS_2_WARNING=1 mkdocs build --strict
"""

GITIGNORE = """\
site/
__pycache__/
"""


def _yaml_line(key: str, value: str) -> str:
    """``key: value`` as one line of YAML (newline included), ``value`` quoted where YAML needs
    it (a folder name may hold ``:``, ``#``, quotes or a leading ``-``)."""
    return yaml.safe_dump({key: value}, allow_unicode=True, default_flow_style=False,
                          width=1 << 16)


def card_files(name: str, today: str) -> dict[str, str]:
    """The configuration, cards and CI script, by path relative to the project."""
    return {
        "pyproject.toml": PYPROJECT,
        "mkdocs.yml": MKDOCS.format(site_name=_yaml_line("site_name", name)),
        ".gitignore": GITIGNORE,
        ".ci/run": CI,
        "wiki/index.md": INDEX.format(name=name),
        "wiki/concepts/multi-head-attention.md": CONCEPT.format(today=today),
        "wiki/papers/attention-is-all-you-need.md": PAPER.format(today=today, package=PACKAGE),
    }
