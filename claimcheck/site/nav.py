"""Navigation that stays small when the wiki grows: large folders collapse into index pages.

Material renders the navigation on every page, so a folder listing 1,000 cards costs 1,000 links
on each of 1,000 pages. With the plugin, a folder holding more than ``nav_section_limit`` pages
(30 by default; 0 turns this off) is represented in the navigation by its index page alone. The
index page is the folder's own ``index.md`` when it has one, else a generated one, and the
plugin appends to it a table of every page of the folder, so each card stays one click from
the navigation and the search finds all of them. Pages keep their section as parent, so
breadcrumbs and previous/next links are unchanged. Together with Material's
``navigation.prune`` (which renders only the open section), the navigation of each page is then
bounded, and a build is linear in the number of pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from mkdocs.structure import StructureItem
from mkdocs.structure.files import File
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.utils import markdown_extensions

from claimcheck.site.sanitize import clean_fragment

INDEX_NAMES = ("index.md", "README.md")


@dataclass(frozen=True)
class Listing:
    """One page of a collapsed folder, as its index lists it."""

    title: str
    url: str
    summary: str


def crowded_folders(pages: Iterable[File], limit: int) -> set[str]:
    """Folders (docs-relative, ``""`` for the root) directly holding more than ``limit`` pages."""
    if limit <= 0:
        return set()
    counts = Counter(PurePosixPath(file.src_uri).parent.as_posix() for file in pages)
    return {folder for folder, count in counts.items() if count > limit and folder != "."}


def index_src(folder: str, existing: set[str]) -> str | None:
    """The folder's own index page (``index`` or ``README``, any Markdown extension), if any."""
    for stem in (PurePosixPath(name).stem for name in INDEX_NAMES):
        for src in sorted(existing):
            path = PurePosixPath(src)
            if (path.parent.as_posix() == folder and path.stem == stem
                    and path.suffix in markdown_extensions):
                return src
    return None


def clean_titles(items: Iterable[StructureItem]) -> None:
    """Section and link titles (folder names, ``nav`` entries) as escaped text."""
    for item in items:
        if isinstance(item, Section) or getattr(item, "is_link", False):
            item.title = clean_fragment(item.title or "")
        if isinstance(item, Section):
            clean_titles(item.children)


def collapse(nav: Navigation, folders: set[str]) -> dict[str, list[Page]]:
    """Replace each crowded folder's pages by its index page; return the pages each index lists."""
    listed: dict[str, list[Page]] = {}
    _collapse(nav.items, folders, listed)
    return listed


def _collapse(
    items: list[StructureItem], folders: set[str], listed: dict[str, list[Page]]
) -> None:
    for item in items:
        if not isinstance(item, Section):
            continue
        pages = [child for child in item.children if isinstance(child, Page)]
        folder = _folder_of(pages)
        index = next((page for page in pages if page.is_index), None)
        if folder in folders and index is not None:
            listed[index.file.src_uri] = [page for page in pages if page is not index]
            item.children = [child for child in item.children if not isinstance(child, Page)]
            item.children.insert(0, index)
        _collapse(item.children, folders, listed)


def _folder_of(pages: list[Page]) -> str | None:
    folders = {PurePosixPath(page.file.src_uri).parent.as_posix() for page in pages}
    return folders.pop() if len(folders) == 1 else None
