"""``claimcheck new``: write a new card that passes lint, never overwriting one."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from claimcheck.cards import ARXIV_RE, SLUG_PATTERN
from claimcheck.config import ProjectConfig
from claimcheck.errors import UsageError
from claimcheck.wiki import load_wiki


def slugify(text: str) -> str:
    """Lower-case words joined by hyphens: ``Efficient-CapsNet: X`` -> ``efficient-capsnet-x``."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:60].strip("-")


def year_of(arxiv: str) -> int:
    """The submission year encoded in an arXiv id (``2101.12491`` -> 2021, ``cs/0112017`` ->
    2001)."""
    digits = arxiv.split("/")[-1]
    two = int(digits[:2])
    return (1900 if two >= 91 else 2000) + two


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def concept_card(slug: str, title: str, today: dt.date) -> str:
    """The text of a new concept card."""
    return f"""---
kind: concept
slug: {slug}
title: {_quote(title)}
summary: >-
  One paragraph that says what {title} is and why it matters.
tags: []
papers: []      # arXiv ids cited in the body, quoted: ["2101.12491"]
related: []     # slugs of related cards
status: draft
updated_at: {today.isoformat()}
---
## Overview

Explain the idea here. End each sentence that a paper backs with a citation: in square
brackets, `arxiv:`, the paper's id, a space and a locator such as `§3.1` or `tab. 2`. List the
cited ids under `papers:`.
"""


def paper_card(slug: str, arxiv: str, title: str, authors: list[str], today: dt.date) -> str:
    """The text of a new paper card, with a commented example claim."""
    author_list = ", ".join(_quote(a) for a in authors)
    return f"""---
kind: paper
slug: {slug}
arxiv: "{arxiv}"
title: {_quote(title)}
authors: [{author_list}]
year: {year_of(arxiv)}
tags: []
status: draft
updated_at: {today.isoformat()}
claims: []
# claims:
#   - id: param-count              # unique in this card
#     cite: tab. 2                 # where the paper says it
#     statement: The network has about 161K parameters.
#     check: params                # a built-in kind, or "module.path:function"
#     args: {{model: NAME, preset: PRESET}}
#     expect: {{approx: 161000, rel_tol: 0.005}}
---
## Method

## Paper vs code

## Pitfalls
"""


def new_card(
    config: ProjectConfig,
    kind: str,
    slug: str | None,
    arxiv: str | None = None,
    title: str | None = None,
    authors: list[str] | None = None,
    today: dt.date | None = None,
) -> Path:
    """Write a new card into the wiki and return its path; refuse to overwrite anything."""
    today = today or dt.date.today()
    if kind == "paper":
        if arxiv is None or not ARXIV_RE.match(arxiv):
            raise UsageError(f"--arxiv needs an arXiv id such as 2101.12491, got {arxiv!r}")
        title = title or f"arXiv {arxiv}"
        slug = slug or slugify(title) or "arxiv-" + slugify(arxiv)
        folder = config.wiki / "papers"
        text = paper_card(slug, arxiv, title, authors or ["Unknown"], today)
    else:
        if slug is None:
            raise UsageError("claimcheck new concept needs a SLUG")
        title = title or slug.replace("-", " ").capitalize()
        folder = config.wiki / "concepts"
        text = concept_card(slug, title, today)
    if not re.match(SLUG_PATTERN, slug):
        raise UsageError(f"slug {slug!r} must be lower-case words joined by hyphens")
    target = folder / f"{slug}.md"
    if target.exists():
        raise UsageError(f"{config.relative(target)} already exists; not overwriting it")
    if config.wiki.exists():
        wiki = load_wiki(config)
        for loaded in wiki.cards:
            if loaded.card.slug == slug:
                raise UsageError(f"slug '{slug}' is already used by {loaded.display_path}")
        if arxiv is not None and arxiv in wiki.papers():
            raise UsageError(f"arXiv {arxiv} already has a card: "
                             f"{wiki.papers()[arxiv].display_path}")
    folder.mkdir(parents=True, exist_ok=True)
    with target.open("x", encoding="utf-8") as handle:
        handle.write(text)
    return target
