"""``claimcheck init DIR``: a minimal project of one's own, which lint, verify and the site pass.

The project is about any field; the example is the Transformer (arxiv:1706.03762), whose §3.2.2
states the head dimension d_k = d_model / h = 64 for the base model. It holds:

* ``pyproject.toml`` with ``[tool.claimcheck]`` (the wiki folder, the results store, and the
  content package ``wiki_checks`` as the only import root);
* ``mkdocs.yml``: the Material theme and claimcheck's plugin, offline (no web fonts, no CDN);
* ``wiki/``: a home page, one concept card and one paper card whose one claim is checked;
* ``wiki_checks/``: the content package, with one check marked ``@claim_check`` that declares
  its args (:mod:`claimcheck.checks.declared`) and measures torch's own multi-head attention;
* ``.ci/run``: lint, verify and ``mkdocs build --strict``, the checks CI should run.

Nothing is overwritten: a file that exists already stops ``init`` before anything is written.
"""

from __future__ import annotations

import datetime as dt
import stat
from pathlib import Path

from claimcheck.core import safe_fs
from claimcheck.core.errors import UsageError

__all__ = ["PACKAGE", "project_files", "write_project"]

PACKAGE = "wiki_checks"
"""The content package ``init`` writes (a name no installed package is likely to take)."""

PYPROJECT = f"""\
# A claimcheck wiki: cards in wiki/, the checks they name in {PACKAGE}/.
[tool.claimcheck]
wiki = "wiki"
results = ".claimcheck"
import_roots = ["{PACKAGE}"]
"""

MKDOCS = """\
# The wiki as a static site: `mkdocs serve`, or `mkdocs build --strict` (offline by design).
site_name: {name}
docs_dir: wiki
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
64 dimensions [arxiv:1706.03762 §3.2.2].
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
  - id: head-dimension
    cite: §3.2.2
    basis: paper-vs-code
    statement: >-
      With d_model = 512 and h = 8 heads, each head works in d_k = d_model / h = 64 dimensions.
    check: {package}.attention:head_dimension
    args: {{d_model: 512, heads: 8}}
    expect: {{equals: 64}}
---
## Method

Each of the h heads projects the queries, keys and values to d_k = d_model / h dimensions, so
that all heads together cost about what one head of full width would.

## How the claim is checked

`{package}.attention:head_dimension` builds torch's `nn.MultiheadAttention` with the paper's
width and head count and measures the dimension each head works in. Add a claim: write it under
`claims:`, name a check marked `@claim_check`, run `claimcheck lint` then `claimcheck verify`.
"""

CHECK_INIT = '''\
"""This wiki's checks: the functions its cards may name (each marked ``@claim_check``)."""
'''

CHECK = '''\
"""Checks of the Transformer (arxiv:1706.03762) on torch's own multi-head attention."""

from __future__ import annotations

from dataclasses import dataclass

from claimcheck import CheckArgs, Evidence, claim_check
from claimcheck.checks.api import CheckContext


@dataclass(frozen=True)
class HeadArgs(CheckArgs):
    """The model width ``d_model`` and the number of ``heads``."""

    d_model: int
    heads: int


@claim_check(args=HeadArgs)
def head_dimension(ctx: CheckContext) -> Evidence:
    """arxiv:1706.03762 §3.2.2: d_k = d_model / h, measured as the head dimension of
    ``torch.nn.MultiheadAttention(d_model, heads)``."""
    import torch

    args = HeadArgs.of(ctx)
    attention = torch.nn.MultiheadAttention(args.d_model, args.heads)
    return Evidence(
        measured=int(attention.head_dim),
        details=f"nn.MultiheadAttention({args.d_model}, {args.heads}).head_dim",
    )
'''

CI = """\
#!/usr/bin/env bash
# CI for this wiki: the cards lint clean, every claim's check runs, the site builds strictly.
set -euo pipefail
cd "$(dirname "$0")/.."
claimcheck lint wiki/
claimcheck verify wiki/
NO_MKDOCS_2_WARNING=1 mkdocs build --strict
"""

GITIGNORE = """\
site/
__pycache__/
"""


def project_files(name: str, today: dt.date) -> dict[str, str]:
    """Every file of a new project, by its path relative to the project folder."""
    when = today.isoformat()
    return {
        "pyproject.toml": PYPROJECT,
        "mkdocs.yml": MKDOCS.format(name=name),
        ".gitignore": GITIGNORE,
        ".ci/run": CI,
        "wiki/index.md": INDEX.format(name=name),
        "wiki/concepts/multi-head-attention.md": CONCEPT.format(today=when),
        "wiki/papers/attention-is-all-you-need.md": PAPER.format(today=when, package=PACKAGE),
        f"{PACKAGE}/__init__.py": CHECK_INIT,
        f"{PACKAGE}/attention.py": CHECK,
    }


def write_project(folder: Path, today: dt.date | None = None) -> list[Path]:
    """Write a new project into ``folder`` (created if missing); return the files written.

    Raises :class:`UsageError` when ``folder`` is a file or any of the files exists already.
    """
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} is a file, not a folder")
    name = folder.resolve().name.replace("-", " ").replace("_", " ").strip() or "wiki"
    files = project_files(f"{name} wiki" if "wiki" not in name.lower() else name,
                          today or dt.date.today())
    taken = sorted(path for path in files if (folder / path).exists()
                   or (folder / path).is_symlink())
    if taken:
        raise UsageError(f"{folder} already has {', '.join(taken)}; init writes a new project "
                         "and never overwrites")
    folder.mkdir(parents=True, exist_ok=True)
    for path in {str(Path(path).parent) for path in files} - {"."}:
        try:  # every folder checked before anything is written
            safe_fs.require_folder(folder, path)
        except safe_fs.UnsafeEntry as error:
            raise UsageError(f"{folder}: init writes only into real folders, never through a "
                             f"symbolic link: {error.one_line()}") from None
    written = []
    for path, text in files.items():
        target = folder / path
        safe_fs.write_atomic(folder, target, text.encode("utf-8"), durable=False)
        written.append(target)
    script = folder / ".ci" / "run"
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return written
