"""Lint rules on what the wiki's reading of each paper rests on (:mod:`claimcheck.cards.readings`).

==============================================================  =======
finding                                                          level
==============================================================  =======
a ``reading.source`` that the paper card's ``copies`` lack       error
a concept reading whose source the cited paper's copies lack     error
a citation of another version whose locator the card's          error
  ``version.numbering`` table does not map
a locator of a kind the card's version leaves unnumbered,        error
  not mapped by the table
a refused source (``[tool.claimcheck] refused_sources``) named   error
  anywhere in a card
a pinned source of another version than the one the locators    error
  follow (quotes would be looked up in another numbering)
a claim without a reading, on a card that lists its ``copies``   warning
a cited paper and locator without a reading, on a concept card   warning
  that keeps ``readings``; a reading that matches no citation
==============================================================  =======
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from claimcheck.authoring import refused_spelling
from claimcheck.authoring.findings import Finding, Level
from claimcheck.authoring.refused_spelling import comparable
from claimcheck.cards.citations import Citation
from claimcheck.cards.frontmatter import ConceptCard, PaperCard
from claimcheck.cards.loader import LoadedCard
from claimcheck.cards.locators import LocatorError, parse_locator
from claimcheck.cards.plainpages import PlainPage
from claimcheck.cards.readings import PaperVersion
from claimcheck.cards.yamlsource import YamlProblem, load_yaml, string_values
from claimcheck.core.config import ProjectConfig

__all__ = ["reading_findings", "refused_findings"]


def reading_findings(loaded: LoadedCard, papers: dict[str, LoadedCard]) -> Iterator[Finding]:
    """The reading rules of one card (see the module docstring)."""
    card = loaded.card
    if isinstance(card, PaperCard):
        yield from _claim_readings(loaded, card)
        if card.version is not None:
            yield from _claim_numbering(loaded, card, card.version)
            yield from _pin_version(loaded, card, card.version)
    if isinstance(card, ConceptCard):
        yield from _concept_readings(loaded, card, papers)
    yield from _citation_numbering(loaded.citations, papers)


def refused_findings(config: ProjectConfig, item: LoadedCard | PlainPage) -> Iterator[Finding]:
    """Every line of a card or page that names a refused source, as an error: each raw line,
    each value of the front matter as YAML decodes it (at the value's line), and the whole
    text joined (a source folded over several lines)."""
    if not config.refused_sources:
        return
    if isinstance(item, LoadedCard):
        text = item.path.read_text(encoding="utf-8", errors="replace")
    else:
        text = item.body
    wanted = [(refused, refused_spelling.needle(refused)) for refused in config.refused_sources]
    found: set[tuple[str, int]] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        lowered, plain = line.lower(), comparable(line)
        for refused, needle in wanted:
            if refused_spelling.appears(needle, plain):
                found.add((refused, number))
                col = lowered.find(refused.lower())
                yield _refused(item, number, col + 1 if col >= 0 else 1, refused)
    for (number, col), value in _decoded_values(item):
        plain = comparable(value)
        for refused, needle in wanted:
            if refused_spelling.appears(needle, plain) and (refused, number) not in found:
                found.add((refused, number))
                yield _refused(item, number, col, refused)
    joined = comparable("".join(_JOINS.sub("", text)))
    for refused, needle in wanted:
        seen = any(name == refused for name, _ in found)
        if not seen and refused_spelling.appears(needle, joined):
            yield _refused(item, 1, 1, refused)


def _decoded_values(item: LoadedCard | PlainPage) -> Iterator[tuple[tuple[int, int], str]]:
    """Each string of a card's front matter as YAML decodes it, with its file position."""
    if not isinstance(item, LoadedCard) or not item.front_matter:
        return
    try:
        data, positions = load_yaml(item.front_matter, first_line=2)
    except YamlProblem:
        return
    for path, value in string_values(data):
        yield positions.value(path), value


_JOINS = re.compile(r"\\?\s*\n\s*|['\"]")
"""What YAML puts between the pieces of a value folded over several lines: line breaks with
their indentation (and a double-quoted scalar's escaping backslash), quotes."""


def _refused(item: LoadedCard | PlainPage, line: int, col: int, refused: str) -> Finding:
    return Finding(Level.ERROR, item.display_path, line, col,
                   f"{refused} is a refused source ([tool.claimcheck] refused_sources): no "
                   "card may rest on it, however it is spelt", "refused-source")


def _claim_readings(loaded: LoadedCard, card: PaperCard) -> Iterator[Finding]:
    for index, claim in enumerate(card.claims):
        if claim.reading is None:
            if card.copies:
                line, col = loaded.position("claims", index, "id")
                yield _finding(Level.WARNING, loaded, line, col,
                               f"claim '{claim.id}' records no reading (add reading: "
                               "{confirmed, source, note})", "reading-missing")
        elif claim.reading.source not in card.copies:
            line, col = loaded.position("claims", index, "reading", "source")
            yield _finding(Level.ERROR, loaded, line, col, _unknown_copy(
                claim.reading.source, card), "reading-source")


def _concept_readings(
    loaded: LoadedCard, card: ConceptCard, papers: dict[str, LoadedCard]
) -> Iterator[Finding]:
    if not card.readings:
        return
    keyed = {reading.cite: index for index, reading in enumerate(card.readings)}
    cited: set[str] = set()
    for citation in loaded.citations:
        for locator in citation.locators:
            key = f"{citation.paper_key} {locator}"
            cited.add(key)
            if key not in keyed:
                yield Finding(Level.WARNING, citation.path, citation.line, citation.col,
                              f"no reading recorded for {key} (add it under readings:)",
                              "reading-missing")
    for reading, index in keyed.items():
        line, col = loaded.position("readings", index, "cite")
        if reading not in cited:
            yield _finding(Level.WARNING, loaded, line, col,
                           f"readings: {reading!r} matches no citation of the body",
                           "reading-unused")
            continue
        paper = papers.get(reading.split(" ", 1)[0])
        source = card.readings[index].source
        if (paper is not None and isinstance(paper.card, PaperCard)
                and source not in paper.card.copies):
            line, col = loaded.position("readings", index, "source")
            yield _finding(Level.ERROR, loaded, line, col, _unknown_copy(source, paper.card),
                           "reading-source")


def _claim_numbering(
    loaded: LoadedCard, card: PaperCard, version: PaperVersion
) -> Iterator[Finding]:
    for index, claim in enumerate(card.claims):
        for position, text in enumerate(claim.locators):
            message = _unmapped(version, "", text)
            if message:
                where = ("claims", index, "cite") + (
                    (position,) if isinstance(claim.cite, list) else ())
                line, col = loaded.position(*where)
                yield _finding(Level.ERROR, loaded, line, col, message, "numbering")


def _pin_version(
    loaded: LoadedCard, card: PaperCard, version: PaperVersion
) -> Iterator[Finding]:
    """The pinned arXiv source must be the version the locators follow, or quotes are looked up
    in another numbering."""
    pin = card.source
    if pin is None or pin.version is None or pin.version == version.arxiv:
        return
    line, col = loaded.position("source", "version")
    yield _finding(Level.ERROR, loaded, line, col,
                   f"the pinned source is arXiv v{pin.version}, but the card's locators follow "
                   f"{version.name}: its quotes would be looked up in another numbering",
                   "numbering")


def _citation_numbering(
    citations: list[Citation], papers: dict[str, LoadedCard]
) -> Iterator[Finding]:
    for citation in citations:
        paper = papers.get(citation.paper_key)
        if paper is None or not isinstance(paper.card, PaperCard) or paper.card.version is None:
            continue
        version = paper.card.version
        other = ""
        if citation.version is not None and citation.version != version.arxiv:
            other = f"arXiv v{citation.version}"
        for locator in citation.locators:
            message = _unmapped(version, other, str(locator))
            if message:
                yield Finding(Level.ERROR, citation.path, citation.line, citation.col,
                              f"{citation.text}: {message}", "numbering")


def _unmapped(version: PaperVersion, other: str, text: str) -> str:
    """Why ``text`` (a locator of ``other``, or of the card's own version) is not accepted."""
    try:
        kind = parse_locator(text).kind
    except LocatorError:
        return ""  # reported by the locator rules
    if other:
        if version.maps(other, text) is None:
            return (f"{text} of {other} is not in the paper card's version.numbering table "
                    f"(its locators follow {version.name})")
        return ""
    if kind in version.unnumbered and version.maps("", text) is None:
        return (f"{version.name} does not number its {kind.value}s: {text} is accepted only "
                "through the paper card's version.numbering table")
    return ""


def _unknown_copy(source: str, card: PaperCard) -> str:
    known = ", ".join(sorted(card.copies)) or "none"
    return f"reading source '{source}' is not one of the paper card's copies ({known})"


def _finding(level: Level, loaded: LoadedCard, line: int, col: int, message: str,
             rule: str) -> Finding:
    return Finding(level, loaded.display_path, line, col, message, rule)
