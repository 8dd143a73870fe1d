"""``claimcheck new``: write a new card that passes lint, never overwriting one.

``new paper`` takes any paper identifier (``--arxiv``, ``--doi``, ``--openreview`` or ``--url``)
and fills in the title, authors and year from the paper's metadata when a network is there
(:mod:`claimcheck.sources.metadata`), with ``TODO`` placeholders otherwise.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.authoring.lint_placeholders import PLACEHOLDER
from claimcheck.cards.frontmatter import SLUG_PATTERN
from claimcheck.cards.identifiers import (
    IdentifierError,
    PaperId,
    check_arxiv,
    check_identifier,
    parse_paper_key,
)
from claimcheck.cards.wiki import load_wiki
from claimcheck.core import safe_fs
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import UsageError
from claimcheck.sources.metadata import Metadata, lookup


def slugify(text: str, limit: int = 60) -> str:
    """Lower-case words joined by hyphens, cut at a word within ``limit`` characters:
    ``Efficient-CapsNet: X`` -> ``efficient-capsnet-x``."""
    slug = ""
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > limit:
            return slug or word[:limit]
        slug = longer
    return slug


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
papers: []      # paper keys cited in the body, quoted: ["2101.12491", "doi:10.1038/…"]
related: []     # slugs of related cards
status: draft
updated_at: {today.isoformat()}
---
## Overview

Explain the idea here. End each sentence that a paper backs with a citation: in square
brackets, the paper's key (`arxiv:2101.12491`, `doi:10.1038/…`, `openreview:ID` or `url:slug`),
a space and a locator such as `§3.1` or `tab. 2`. List the cited keys under `papers:`.
"""




@dataclass(frozen=True)
class PaperFields:
    """What goes into a new paper card's head."""

    paper: PaperId
    title: str
    authors: list[str]
    year: int
    year_known: bool = True
    venue: str = ""
    url: str | None = None


def _identity_line(fields: PaperFields) -> str:
    if fields.paper.scheme == "url":
        return f"url: {_quote(fields.url or '')}"
    return f"{fields.paper.scheme}: {_quote(fields.paper.id)}"


def paper_card(slug: str, fields: PaperFields, today: dt.date) -> str:
    """The text of a new paper card, with a commented example claim."""
    author_list = ", ".join(_quote(a) for a in fields.authors)
    year_note = "" if fields.year_known else "  # TODO: check the year"
    venue = f"venue: {_quote(fields.venue)}\n" if fields.venue else ""
    return f"""---
kind: paper
slug: {slug}
{_identity_line(fields)}
title: {_quote(fields.title)}
authors: [{author_list}]
year: {fields.year}{year_note}
{venue}tags: []
status: draft
updated_at: {today.isoformat()}
claims: []
# claims:
#   - id: param-count              # unique in this card
#     cite: tab. 2                 # where the paper says it
#     basis: paper-vs-code         # what the verdict is evidence of (see docs/architecture.md)
#     statement: The network has about 161K parameters.
#     quote: "161K"                # optional: a few words of the paper, checked at the locator
#     check: params                # a built-in kind, or "module.path:function"
#     args: {{model: NAME, preset: PRESET}}
#     expect: {{approx: 161000, rel_tol: 0.005}}
---
## Method

## Paper vs code

## Pitfalls
"""


def _paper_id(arxiv: str | None, doi: str | None, openreview: str | None,
              url: str | None) -> PaperId:
    given = [(name, value) for name, value in (("arxiv", arxiv), ("doi", doi),
             ("openreview", openreview), ("url", url)) if value is not None]
    if len(given) != 1:
        raise UsageError("claimcheck new paper needs exactly one of --arxiv, --doi, --openreview "
                         "or --url")
    scheme, value = given[0]
    if scheme == "url":
        if not re.match(r"^https?://\S+$", value):
            raise UsageError(f"--url needs an http(s) address, got {value!r}")
        return PaperId("url", "")
    try:
        if scheme == "arxiv":
            return PaperId("arxiv", check_arxiv(value)[0])
        return PaperId(scheme, check_identifier(scheme, value))
    except IdentifierError as error:
        raise UsageError(f"--{scheme} needs {_NOUNS[scheme]}: {error}") from None


_NOUNS = {"arxiv": "an arXiv id such as 2101.12491", "doi": "a DOI such as 10.1038/...",
          "openreview": "an OpenReview id such as HJWLfGWRb"}


def _fields(paper: PaperId, title: str | None, authors: list[str] | None, year: int | None,
            url: str | None, offline: bool, today: dt.date) -> tuple[PaperFields, str]:
    """The card's head fields, from the arguments, else the network, else placeholders."""
    found = Metadata()
    if title is None and not offline and not os.environ.get("CLAIMCHECK_OFFLINE"):
        found = lookup(paper)
    label = paper.label if paper.scheme != "url" else url
    known_year = year or found.year or (year_of(paper.id) if paper.scheme == "arxiv" else None)
    fields = PaperFields(
        paper, title or found.title or f"{PLACEHOLDER}: the title of {label}",
        authors or found.authors or [f"{PLACEHOLDER}: the authors"],
        known_year or today.year, known_year is not None, found.venue, url,
    )
    note = ""
    if title is None and not found.title:
        why = found.problem or "offline"
        note = f"could not read the paper's metadata ({why}); fill in the placeholders"
    return fields, note


def new_card(
    config: ProjectConfig,
    kind: str,
    slug: str | None,
    arxiv: str | None = None,
    title: str | None = None,
    authors: list[str] | None = None,
    today: dt.date | None = None,
    **identity: Any,
) -> Path:
    """Write a new card into the wiki and return its path (see :func:`write_new_card`)."""
    return write_new_card(config, kind, slug, arxiv, title, authors, today, **identity)[0]


def write_new_card(
    config: ProjectConfig,
    kind: str,
    slug: str | None,
    arxiv: str | None = None,
    title: str | None = None,
    authors: list[str] | None = None,
    today: dt.date | None = None,
    *,
    doi: str | None = None,
    openreview: str | None = None,
    url: str | None = None,
    year: int | None = None,
    offline: bool = False,
) -> tuple[Path, str]:
    """Write a new card into the wiki; return its path and a note for the author (or "").

    A paper card needs exactly one identifier. Without ``title``, the title, authors and year
    are asked from the paper's metadata service (unless ``offline`` or ``CLAIMCHECK_OFFLINE``);
    what stays unknown is written as a ``TODO`` placeholder that lint reports. Refuses to
    overwrite a file, to reuse a slug, or to write a second card for one paper.
    """
    today = today or dt.date.today()
    note = ""
    key = None
    if kind == "paper":
        paper = _paper_id(arxiv, doi, openreview, url)
        fields, note = _fields(paper, title, authors, year, url, offline, today)
        known_title = not fields.title.startswith(PLACEHOLDER)
        slug = slug or (slugify(fields.title) if known_title else "") or _fallback_slug(paper,
                                                                                           url)
        if paper.scheme == "url":
            paper = PaperId("url", slug)
            fields = dataclasses.replace(fields, paper=paper)
        key = paper.key
        folder = config.wiki / "papers"
        text = paper_card(slug, fields, today)
    else:
        if slug is None:
            raise UsageError("claimcheck new concept needs a SLUG")
        title = title or slug.replace("-", " ").capitalize()
        folder = config.wiki / "concepts"
        text = concept_card(slug, title, today)
    if not re.match(SLUG_PATTERN, slug):
        raise UsageError(f"slug {slug!r} must be lower-case words joined by hyphens")
    target = folder / f"{slug}.md"
    if target.exists() or target.is_symlink():
        raise UsageError(f"{config.relative(target)} already exists; not overwriting it")
    _require_real_folders(config.root, folder)
    if config.wiki.exists():
        wiki = load_wiki(config)
        for loaded in wiki.cards:
            if loaded.card.slug == slug:
                raise UsageError(f"slug '{slug}' is already used by {loaded.display_path}")
        if key is not None and key in wiki.papers():
            label = parse_paper_key(key).label
            raise UsageError(f"{label} already has a card: {wiki.papers()[key].display_path}")
    safe_fs.make_folders(config.root, folder)
    with target.open("x", encoding="utf-8") as handle:
        handle.write(text)
    return target, note


def _require_real_folders(root: Path, folder: Path) -> None:
    """Refuse ``folder`` unless it lies in the project and every existing name on the way is a
    real folder: a committed link (``wiki/concepts -> ~/x``) is never written through."""
    try:
        safe_fs.require_folder(root, folder)
    except safe_fs.UnsafeEntry as error:
        raise UsageError("claimcheck new writes only into real folders of the project, never "
                         f"through a symbolic link: {error.one_line()}") from None


def _fallback_slug(paper: PaperId, url: str | None) -> str:
    if paper.scheme == "url":
        address = re.sub(r"^https?://(www\.)?", "", url or "")
        return ("paper-" + slugify(address))[:60].strip("-")
    return slugify(f"{paper.scheme} {paper.id}")
