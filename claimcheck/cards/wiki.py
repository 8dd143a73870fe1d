"""The wiki index: every card of a folder, its claims by global id, and citation coverage."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from claimcheck.cards.basis import claim_basis
from claimcheck.cards.citations import Citation
from claimcheck.cards.frontmatter import Basis, Claim, PaperCard
from claimcheck.cards.loader import CardLoadError, LoadedCard, SalvagedClaims, load_card, read_text
from claimcheck.cards.locators import Locator, LocatorError, parse_locator
from claimcheck.cards.plainpages import PlainPage, load_plain_page
from claimcheck.cards.wikifiles import leaves_project, walk_wiki
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import CardError


@dataclass(frozen=True)
class ClaimRef:
    """One claim with the paper card that registers it.

    ``paper`` is the paper's key (:mod:`claimcheck.cards.identifiers`): the bare id for arXiv
    papers.
    """

    global_id: str
    paper: str
    claim: Claim
    card: LoadedCard
    line: int

    @property
    def arxiv(self) -> str:
        """The paper's key under its historical name (the arXiv id for arXiv papers)."""
        return self.paper

    @property
    def basis(self) -> Basis | None:
        """What the claim's verdict is evidence of (stated or inferred)."""
        return claim_basis(self.claim)

    @cached_property
    def locators(self) -> list[Locator]:
        """The claim's parsed locators (malformed ones are left out; lint reports them)."""
        parsed: list[Locator] = []
        for text in self.claim.locators:
            try:
                parsed.append(parse_locator(text))
            except LocatorError:
                continue
        return parsed


@dataclass
class Wiki:
    """All cards of a wiki folder that loaded, its plain pages, and the errors of the rest."""

    config: ProjectConfig
    cards: list[LoadedCard] = field(default_factory=list)
    load_errors: list[CardError] = field(default_factory=list)
    salvaged: list[SalvagedClaims] = field(default_factory=list)
    pages: list[PlainPage] = field(default_factory=list)
    _claims: list[ClaimRef] | None = field(default=None, repr=False)
    _by_paper: dict[str, list[ClaimRef]] | None = field(default=None, repr=False)
    _coverage: dict[str, list[ClaimRef]] = field(
        default_factory=dict, repr=False
    )

    def papers(self) -> dict[str, LoadedCard]:
        """Paper cards by paper key (the first card wins if two describe one paper)."""
        found: dict[str, LoadedCard] = {}
        for loaded in self.cards:
            if isinstance(loaded.card, PaperCard):
                found.setdefault(loaded.card.paper_key, loaded)
        return found

    def paper(self, key: str) -> LoadedCard | None:
        """The paper card with this key (an arXiv id, ``doi:…``, ...), if the wiki has one."""
        return self.papers().get(key)

    def claims(self) -> list[ClaimRef]:
        """Every claim of every paper card, in file order (computed once per wiki)."""
        if self._claims is not None:
            return self._claims
        refs: list[ClaimRef] = []
        for loaded in self.cards:
            card = loaded.card
            if not isinstance(card, PaperCard):
                continue
            for index, claim in enumerate(card.claims):
                refs.append(
                    ClaimRef(card.global_id(claim), card.paper_key, claim, loaded,
                             loaded.claim_line(index))
                )
        self._claims = refs
        return refs

    def claims_of(self, key: str) -> list[ClaimRef]:
        """The claims registered for one paper (by its key)."""
        if self._by_paper is None:
            self._by_paper = {}
            for ref in self.claims():
                self._by_paper.setdefault(ref.paper, []).append(ref)
        return self._by_paper.get(key, [])

    def claim(self, global_id: str) -> ClaimRef | None:
        """The claim with this global id."""
        return next((ref for ref in self.claims() if ref.global_id == global_id), None)

    def covering_claims(self, citation: Citation) -> list[ClaimRef]:
        """Claims of the cited paper whose locator lies inside one of the citation's locators.

        Cards repeat citations, so the answer is remembered per citation text (which fixes the
        paper and the locators, and whose hash Python keeps).
        """
        found = self._coverage.get(citation.text)
        if found is None:
            found = [
                ref
                for ref in self.claims_of(citation.paper_key)
                if any(cited.covers(own) for cited in citation.locators for own in ref.locators)
            ]
            self._coverage[citation.text] = found
        return found


def card_files(folder: Path) -> list[Path]:
    """Every Markdown card under ``folder`` (or ``folder`` itself if it is a file), sorted.

    Files whose name starts with ``_`` or ``.`` and folders starting with ``.`` are skipped, and
    so are files that :func:`claimcheck.cards.wikifiles.unsafe_reason` refuses (``load_wiki``
    reports those as errors).
    """
    if folder.is_file():
        return [folder]
    return walk_wiki(folder)[0]


def is_card(path: Path) -> bool:
    """A Markdown file is a card when it starts with front matter (other pages are plain)."""
    try:
        with path.open("rb") as handle:
            return handle.read(6).removeprefix(b"\xef\xbb\xbf").startswith(b"---")
    except OSError:
        return False


def load_wiki(config: ProjectConfig, path: Path | None = None) -> Wiki:
    """Load every card and plain page under ``path`` (default: the configured wiki folder).

    Files that leave the folder or are not regular files are errors, never read.
    """
    folder = path or config.wiki
    written = path or config.root / str(config.raw.get("wiki", "wiki"))  # before resolving
    if leaves_project(written, config.root):
        wiki = Wiki(config)
        wiki.load_errors.append(CardError(
            "the wiki folder is a symbolic link that leaves the project",
            os.path.relpath(os.path.abspath(written), config.root),
        ))
        return wiki
    if folder.is_file():
        return load_cards(config, [folder], require_front_matter=False)
    files, unsafe = walk_wiki(folder, config.relative(folder)) if folder.is_dir() else ([], [])
    wiki = load_cards(config, files, require_front_matter=False)
    wiki.load_errors.extend(unsafe)
    return wiki


def load_cards(
    config: ProjectConfig, files: Iterable[Path], require_front_matter: bool = True
) -> Wiki:
    """Load the given files; with ``require_front_matter`` off, plain pages are kept as pages."""
    wiki = Wiki(config)
    for file, shown in _shown_as(config, files):
        try:
            text = read_text(file, shown)  # each file is opened once, its front matter parsed once
            if not require_front_matter and text and not text.lstrip("\ufeff").startswith("---"):
                wiki.pages.append(load_plain_page(file, shown, text))
            else:
                wiki.cards.append(load_card(file, shown, text))
        except CardError as error:
            wiki.load_errors.extend(error.every())
            if isinstance(error, CardLoadError) and error.salvaged is not None:
                wiki.salvaged.append(error.salvaged)
    return wiki


def _shown_as(config: ProjectConfig, files: Iterable[Path]) -> Iterator[tuple[Path, str]]:
    """Each file with the name messages give it, ``config.relative(file)``, resolving each
    folder once: a file that is no symbolic link resolves to its resolved folder and its name."""
    root = str(config.root) + os.sep
    folders: dict[Path, str] = {}
    for file in files:
        folder = folders.get(file.parent)
        if folder is None:
            folder = folders[file.parent] = os.path.realpath(file.parent)
        real = os.path.join(folder, file.name)
        if file.name in ("", ".", "..") or not real.startswith(root) or os.path.islink(file):
            yield file, config.relative(file)
        else:
            yield file, real[len(root):]
