"""What MkDocs reads for each page of the wiki: claimcheck's safe reading, never MkDocs' own.

MkDocs would open every file under ``docs_dir`` itself, follow symbolic links, block on a FIFO,
and parse front matter with PyYAML's full alias expansion. The plugin instead hands MkDocs each
page's text from memory (``File.content_string``, MkDocs 1.6), as read by claimcheck's loader:

* the file was checked by :mod:`claimcheck.cards.wikifiles` (inside the wiki, a regular file);
* front matter was parsed by :func:`claimcheck.cards.yamlsource.load_yaml` (no aliases, no tags,
  bounded depth), and only an empty ``{}`` block is left for MkDocs to parse;
* the page's metadata is kept here, escaped by :func:`claimcheck.site.sanitize.clean_meta`, and
  given to the page in ``on_page_markdown``;
* the citations that loading found are kept with their offsets in the text MkDocs will see, so
  pages are not scanned again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.utils import meta as mkdocs_meta

from claimcheck.cards.citations import Citation, CitationProblem, scan_citations
from claimcheck.cards.frontmatter import ConceptCard, PaperCard
from claimcheck.cards.loader import LoadedCard, read_text, split_front_matter
from claimcheck.cards.plainpages import PlainPage, load_plain_page
from claimcheck.cards.yamlsource import YamlProblem, load_yaml
from claimcheck.core.errors import CardError
from claimcheck.site.guard import Problem, from_wiki
from claimcheck.site.sanitize import clean_meta, clean_text
from claimcheck.site.siteindex import SiteIndex

EMPTY_FRONT_MATTER = "---\n{}\n---\n"


@dataclass
class PageSource:
    """One page as the plugin gives it to MkDocs, with what loading found in it."""

    text: str
    """The Markdown MkDocs renders (after the empty front matter that MkDocs strips)."""
    meta: dict[str, Any]
    citations: list[tuple[int, Citation]] = field(default_factory=list)
    """Prose citations (not in code) with their character offset in ``text``."""
    problems: list[CitationProblem] = field(default_factory=list)
    card: LoadedCard | None = None

    def for_mkdocs(self) -> str:
        """The file content MkDocs reads: an empty front matter block, then the page."""
        return EMPTY_FRONT_MATTER + self.text

    def citations_in(self, markdown: str) -> list[tuple[int, Citation]]:
        """The citations with offsets into ``markdown``, MkDocs' copy of ``text``.

        MkDocs strips leading blank lines after front matter, so ``markdown`` is a suffix of
        ``text``; anything else (another plugin rewrote the page) means a fresh scan.
        """
        if markdown == self.text:
            return self.citations
        if self.text.endswith(markdown):
            shift = len(self.text) - len(markdown)
            return [(start - shift, cite) for start, cite in self.citations if start >= shift]
        found, _ = scan_citations(markdown, self.citations[0][1].path if self.citations else "")
        return _with_offsets(markdown, found, 0)


def _with_offsets(
    text: str, citations: Sequence[Citation], line_offset: int
) -> list[tuple[int, Citation]]:
    """Prose citations of ``text`` with the character offset where each starts."""
    starts = [0, *(index + 1 for index, char in enumerate(text) if char == "\n")]
    placed: list[tuple[int, Citation]] = []
    for citation in citations:
        if citation.in_code:
            continue
        line = citation.line - line_offset - 1
        if not 0 <= line < len(starts):
            continue
        start = starts[line] + citation.col - 1
        if text.startswith(citation.text, start):
            placed.append((start, citation))
    return placed


def card_source(card: LoadedCard) -> PageSource:
    """A loaded card: its validated title (and summary as the description) are the metadata."""
    meta: dict[str, Any] = {"title": clean_text(card.card.title)}
    summary = getattr(card.card, "summary", None)
    if isinstance(card.card, (ConceptCard, PaperCard)) and summary:
        meta["description"] = clean_text(" ".join(str(summary).split()))
    citations = _with_offsets(card.body, card.citations, card.body_offset)
    return PageSource(card.body, meta, citations, list(card.citation_problems), card)


def plain_source(page: PlainPage) -> PageSource:
    """A page without front matter; MultiMarkdown-style ``Key: value`` lines stay metadata."""
    markdown, meta = mkdocs_meta.get_data(page.body)
    shift = len(page.body) - len(markdown) if page.body.endswith(markdown) else None
    if shift is None:  # line endings were normalised: find the citations again
        found, problems = scan_citations(markdown, page.display_path)
        return PageSource(markdown, page_meta(meta), _with_offsets(markdown, found, 0), problems)
    citations = [
        (start - shift, cite)
        for start, cite in _with_offsets(page.body, page.citations, 0)
        if start >= shift
    ]
    return PageSource(markdown, page_meta(meta), citations, list(page.citation_problems))


def unloaded_source(path: Path, display: str) -> PageSource:
    """A page that did not load as a card or plain page, read again only as far as is safe.

    Raises :class:`CardError` (located) when the file cannot be read or its front matter cannot
    be parsed safely: such a page is a build error, never published as it is.
    """
    text = read_text(path, display).removeprefix("\ufeff")
    if not text.startswith("---"):
        return plain_source(load_plain_page(path, display))
    yaml_text, body, body_offset = split_front_matter(text, display)
    try:
        data, _ = load_yaml(yaml_text, first_line=2)
    except YamlProblem as problem:
        raise CardError(problem.message, display, problem.line, problem.col) from None
    if data is not None and not isinstance(data, dict):
        raise CardError("front matter must be a mapping of keys to values", display, 2, 1)
    found, problems = scan_citations(body, display, body_offset)
    return PageSource(body, page_meta(data or {}), _with_offsets(body, found, body_offset),
                      problems)


def page_meta(data: dict[str, Any]) -> dict[str, Any]:
    """Front matter of a page that is not a card: escaped values, and a title that is text."""
    meta: dict[str, Any] = clean_meta(data)
    if "title" in meta and not isinstance(meta["title"], str):
        meta["title"] = _flatten(meta["title"])
    return meta


def _flatten(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{key} {_flatten(item)}" for key, item in value.items())
    if isinstance(value, list):
        return " ".join(_flatten(item) for item in value)
    return "" if value is None else str(value)


def page_sources(
    files: Files, config: MkDocsConfig, index: SiteIndex, skip: set[str]
) -> tuple[dict[str, PageSource], list[Problem]]:
    """The source of every page of the wiki (by docs-relative path), and the pages refused.

    ``skip`` names files already refused (never opened here).
    """
    docs_dir = Path(config.docs_dir)
    cards, plain = index.cards_by_src(), index.pages_by_src()
    sources: dict[str, PageSource] = {}
    problems: list[Problem] = []
    for file in files.documentation_pages():
        src = file.src_uri
        if src in skip or not from_wiki(file, docs_dir) or file.abs_src_path is None:
            continue
        if src in cards:
            sources[src] = card_source(cards[src])
        elif src in plain:
            sources[src] = plain_source(plain[src])
        else:
            shown = index.wiki.config.relative(Path(file.abs_src_path))
            try:
                sources[src] = unloaded_source(Path(file.abs_src_path), shown)
            except CardError as error:
                problems.append(Problem(error.location() or shown, error.message, src))
    return sources, problems
