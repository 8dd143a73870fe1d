"""``claimcheck lint``: find card errors before anything runs.

Rules, by level:

==========================================================  =======
finding                                                      level
==========================================================  =======
a card that does not load or validate                        error
a malformed citation (near-miss, bad id, bad locator)        error
duplicate slug / duplicate paper card / duplicate claim id   error
malformed claim locator                                      error
a check reference that does not resolve (or is untrusted)    error
an unknown built-in check kind (with "did you mean")         error
a file that leaves the wiki or is not a regular file          error
a citation of an arXiv id that has no paper card             warning
a page without front matter that looks like a card           warning
a citation locator that covers no claim                      warning
``papers:`` not matching the ids cited in the body           warning
an unknown ``related:`` slug                                 info
==========================================================  =======

Lint never imports torch or the project's content code: check references are resolved with
:mod:`claimcheck.references` (files and ``ast`` only).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from claimcheck.cards import ConceptCard, PaperCard
from claimcheck.checks.api import builtin_kinds, unknown_kind_message
from claimcheck.config import ProjectConfig
from claimcheck.errors import ClaimcheckError
from claimcheck.loader import LoadedCard
from claimcheck.locators import LocatorError, parse_locator
from claimcheck.plainpages import PlainPage
from claimcheck.references import is_reference, resolve_reference
from claimcheck.wiki import Wiki

_REFERENCE_VALUE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class Level(str, Enum):
    """Severity of a finding; only errors fail the lint."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One lint finding at a place in a file."""

    level: Level
    path: str
    line: int
    col: int
    message: str
    rule: str

    def as_text(self) -> str:
        """``path:line:col: level: message``."""
        return f"{self.path}:{self.line}:{self.col}: {self.level.value}: {self.message}"


def lint_wiki(wiki: Wiki) -> list[Finding]:
    """Every finding of the wiki, sorted by place."""
    findings = [
        Finding(Level.ERROR, e.path or "?", e.line or 1, e.col or 1, e.message, "load")
        for e in wiki.load_errors
    ]
    findings.extend(_duplicates(wiki))
    kinds = list(builtin_kinds())
    slugs = {loaded.card.slug for loaded in wiki.cards}
    papers = wiki.papers()
    for loaded in wiki.cards:
        findings.extend(_citation_findings(wiki, loaded, papers))
        if isinstance(loaded.card, PaperCard):
            findings.extend(_claim_findings(wiki.config, loaded, loaded.card, kinds))
        if isinstance(loaded.card, ConceptCard):
            findings.extend(_papers_field(loaded, loaded.card))
        findings.extend(_related(loaded, slugs))
    for page in wiki.pages:
        findings.extend(_citation_findings(wiki, page, papers))
        if page.card_hint is not None:
            line, why = page.card_hint
            findings.append(Finding(Level.WARNING, page.display_path, line, 1,
                                    f"looks like a card without front matter: {why}",
                                    "no-front-matter"))
    return sorted(findings, key=lambda f: (f.path, f.line, f.col, f.message))


def _duplicates(wiki: Wiki) -> Iterator[Finding]:
    seen_slugs: dict[str, str] = {}
    seen_papers: dict[str, str] = {}
    for loaded in wiki.cards:
        card = loaded.card
        line, col = loaded.position("slug")
        if card.slug in seen_slugs:
            yield _error(loaded, line, col, f"duplicate slug '{card.slug}' (also in "
                         f"{seen_slugs[card.slug]})", "duplicate-slug")
        seen_slugs.setdefault(card.slug, loaded.display_path)
        if isinstance(card, PaperCard):
            line, col = loaded.position("arxiv")
            if card.arxiv in seen_papers:
                yield _error(loaded, line, col, f"a second paper card for arXiv {card.arxiv} "
                             f"(first: {seen_papers[card.arxiv]})", "duplicate-paper")
            seen_papers.setdefault(card.arxiv, loaded.display_path)
            ids: set[str] = set()
            for index, claim in enumerate(card.claims):
                if claim.id in ids:
                    line, col = loaded.position("claims", index, "id")
                    yield _error(loaded, line, col, f"duplicate claim id '{claim.id}'",
                                 "duplicate-claim")
                ids.add(claim.id)


def _citation_findings(
    wiki: Wiki, loaded: LoadedCard | PlainPage, papers: dict[str, LoadedCard]
) -> Iterator[Finding]:
    for problem in loaded.citation_problems:
        message = problem.message + (f" ({problem.hint})" if problem.hint else "")
        yield Finding(Level.ERROR, problem.path, problem.line, problem.col, message, "citation")
    for citation in loaded.citations:
        if citation.scheme != "arxiv":
            continue
        if citation.id not in papers:
            yield Finding(Level.WARNING, citation.path, citation.line, citation.col,
                          f"cites arXiv {citation.id}, which has no paper card", "no-paper")
        elif not wiki.covering_claims(citation):
            yield Finding(Level.WARNING, citation.path, citation.line, citation.col,
                          f"{citation.text}: no claim registered at this locator", "uncovered")


def _claim_findings(
    config: ProjectConfig, loaded: LoadedCard, card: PaperCard, kinds: list[str]
) -> Iterator[Finding]:
    for index, claim in enumerate(card.claims):
        for position, text in enumerate(claim.locators):
            try:
                parse_locator(text)
            except LocatorError as exc:
                where = ("claims", index, "cite") + ((position,) if isinstance(claim.cite, list)
                                                     else ())
                line, col = loaded.position(*where)
                hint = f" ({exc.hint})" if exc.hint else ""
                yield _error(loaded, line, col,
                             f"malformed claim locator {text!r}: {exc.message}{hint}",
                             "claim-locator")
        if claim.check is None:
            continue
        line, col = loaded.position("claims", index, "check")
        if is_reference(claim.check):
            yield from _reference_error(config, loaded, claim.check, line, col)
        elif claim.check not in kinds:
            yield _error(loaded, line, col, unknown_kind_message(claim.check, kinds),
                         "unknown-kind")
        for key_path, value in _string_values(claim.args):
            if _REFERENCE_VALUE.match(value):
                line, col = loaded.position("claims", index, "args", *key_path)
                yield from _reference_error(config, loaded, value, line, col)


def _reference_error(
    config: ProjectConfig, loaded: LoadedCard, text: str, line: int, col: int
) -> Iterator[Finding]:
    try:
        resolve_reference(text, config)
    except ClaimcheckError as exc:
        yield _error(loaded, line, col, exc.message, "reference")


def _string_values(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[
    tuple[tuple[str | int, ...], str]
]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _string_values(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _string_values(item, (*path, index))


def _papers_field(loaded: LoadedCard, card: ConceptCard) -> Iterator[Finding]:
    cited = {c.id for c in loaded.citations if c.scheme == "arxiv"}
    listed = set(card.papers)
    line, col = loaded.position("papers") if "papers" in card.model_fields_set else (1, 1)
    for arxiv in sorted(cited - listed):
        yield Finding(Level.WARNING, loaded.display_path, line, col,
                      f"the body cites arXiv {arxiv} but papers: does not list it", "papers")
    for arxiv in sorted(listed - cited):
        yield Finding(Level.WARNING, loaded.display_path, line, col,
                      f"papers: lists arXiv {arxiv} but the body never cites it", "papers")


def _related(loaded: LoadedCard, slugs: set[str]) -> Iterator[Finding]:
    for index, slug in enumerate(loaded.card.related):
        if slug not in slugs:
            line, col = loaded.position("related", index)
            yield Finding(Level.INFO, loaded.display_path, line, col,
                          f"related slug '{slug}' has no card yet", "related")


def _error(loaded: LoadedCard, line: int, col: int, message: str, rule: str) -> Finding:
    return Finding(Level.ERROR, loaded.display_path, line, col, message, rule)
