"""Which files of ``docs_dir`` the site may publish, and under which names: the build's gate.

Checked in ``on_files``, before MkDocs reads anything; every problem is collected and the build
stops with one line per problem (:class:`mkdocs.exceptions.PluginError`):

* a file whose real path leaves the wiki, or that is not a regular file
  (:func:`claimcheck.cards.wikifiles.unsafe_reason`);
* before that, in ``on_pre_build``, a linked folder that MkDocs's own listing would follow out
  of the wiki or round in a loop (:func:`linked_folder_problems`);
* a file that would be published as it is although it could carry script: HTML, XML, JSON-P,
  JavaScript, CSS and other active types, unless ``mkdocs.yml`` itself names it
  (``extra_css``, ``extra_javascript``, ``extra.polyfills``: the maintainers' own assets);
* a wiki file whose name, or the name it is published under, the plugin generates (the
  dashboard, the claim graph, ``claimcheck/``).

SVG files of the wiki are published sanitised (:mod:`claimcheck.site.svgclean`); an SVG that
does not survive sanitising is an error too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from claimcheck.cards.wikifiles import unsafe_reason
from claimcheck.core import safe_fs
from claimcheck.site.svgclean import clean_svg

PUBLISHED_AS_IS = {
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico", ".bmp", ".pdf", ".txt", ".csv",
    ".tsv", ".json", ".bib", ".woff", ".woff2", ".ttf", ".otf",
}
"""Extensions a browser never runs as a document with script (served by their file type)."""


@dataclass(frozen=True)
class Problem:
    """A file that stops the build."""

    path: str
    message: str
    src: str = ""
    """The file's docs-relative path (empty when the problem has no file of the site)."""

    def line(self) -> str:
        """``path: message`` as the build prints it."""
        return f"{self.path}: {self.message}"


def linked_folder_problems(docs_dir: Path) -> list[Problem]:
    """Folders MkDocs would enter through a symbolic link that leaves the wiki or loops.

    MkDocs lists ``docs_dir`` with ``os.walk(followlinks=True)`` before any plugin sees a file,
    dot folders included: ``wiki/root -> /`` would have it list the whole machine (``/proc``
    never ends) and ``wiki/sub/up -> ..`` would nest the wiki in itself. So these links are
    found first, by a walk that lists links without following them.
    """
    problems: list[Problem] = []
    for here, folders, _ in os.walk(docs_dir):
        for name in sorted(folders):
            path = Path(here, name)
            if not path.is_symlink():
                continue
            shown = f"{docs_dir.name}/{path.relative_to(docs_dir).as_posix()}"
            reason = unsafe_reason(path, docs_dir, folder_ok=True)
            real = os.path.realpath(path)
            if reason is None and os.path.commonpath([real, os.path.realpath(here)]) == real:
                reason = "a symbolic link to a folder that contains it (a loop)"
            if reason is not None:
                problems.append(Problem(shown, reason))
    return problems


def site_dir_problem(site_dir: Path, base: Path) -> Problem | None:
    """A site folder reached through a symbolic link, inside the project folder ``base``.

    MkDocs empties ``site_dir`` before every build: a committed ``site -> ~/anything`` (or a
    link on the way, ``build -> /``) would have it delete the linked folder's contents and write
    the site there. A site folder configured outside the project is the maintainers' choice.
    """
    if site_dir == base or base not in site_dir.parents:
        return None
    try:
        safe_fs.require_folder(base, site_dir)
    except safe_fs.UnsafeEntry as error:
        return Problem(str(error.path), f"{error.message}; the site folder is emptied before "
                       "each build, so it must be a real folder of the project")
    return None


def config_assets(config: MkDocsConfig) -> set[str]:
    """Files of ``docs_dir`` that ``mkdocs.yml`` names as the site's own scripts and styles."""
    named: set[str] = set()
    extra: Any = config.extra
    polyfills = extra.get("polyfills") if hasattr(extra, "get") else None
    polyfills = polyfills if isinstance(polyfills, list) else []
    for item in [*config.extra_css, *config.extra_javascript, *polyfills]:
        path = getattr(item, "path", item)
        if isinstance(path, str) and "://" not in path:
            named.add(PurePosixPath(path.lstrip("/")).as_posix())
    return named


def check_files(
    files: Files, config: MkDocsConfig, reserved: Iterable[str], reserved_dirs: Iterable[str]
) -> list[Problem]:
    """Every reason to refuse the wiki's files; SVGs are replaced by their sanitised text."""
    docs_dir = Path(config.docs_dir)
    assets = config_assets(config)
    names = set(reserved)
    taken = {_dest_uri(name, config) for name in names}
    folders = tuple(f"{folder.rstrip('/')}/" for folder in reserved_dirs)
    problems: list[Problem] = []
    for file in files:
        if not from_wiki(file, docs_dir):
            continue
        shown = f"{Path(config.docs_dir).name}/{file.src_uri}"
        clash = file.src_uri in names or file.dest_uri in taken
        if clash or file.src_uri.startswith(folders) or file.dest_uri.startswith(folders):
            problems.append(Problem(shown, "this name is reserved for a page the claimcheck "
                                    "plugin generates; rename the file", file.src_uri))
            continue
        assert file.abs_src_path is not None
        reason = unsafe_reason(Path(file.abs_src_path), docs_dir)
        if reason is not None:
            problems.append(Problem(shown, reason, file.src_uri))
            continue
        if file.is_documentation_page() or file.src_uri in assets:
            continue
        suffix = PurePosixPath(file.src_uri).suffix.lower()
        if suffix == ".svg":
            problems.extend(_sanitise_svg(file, shown))
        elif suffix not in PUBLISHED_AS_IS:
            problems.append(Problem(shown, f"a '{suffix or 'extensionless'}' file would be "
                                    "published as it is and could run script; only pages, "
                                    "images, PDFs and plain data may lie in the wiki (an asset "
                                    "of the site itself is named in mkdocs.yml)", file.src_uri))
    return problems


def _dest_uri(src: str, config: MkDocsConfig) -> str:
    """Where MkDocs writes a file named ``src``.

    Two names can share one output: ``claims-dashboard.markdown`` lands where
    ``claims-dashboard.md`` does, and so does ``claims-dashboard/README.md`` with directory URLs.
    """
    return File(src, None, config.site_dir, config.use_directory_urls).dest_uri


def from_wiki(file: File, docs_dir: Path) -> bool:
    """A file MkDocs found in ``docs_dir`` (not the theme's, not generated) that it publishes."""
    if file.generated_by is not None or file.abs_src_path is None or file.src_dir is None:
        return False
    if file.inclusion.is_excluded():  # type: ignore[no-untyped-call]
        return False
    return Path(file.src_dir).resolve() == docs_dir.resolve()


def _sanitise_svg(file: File, shown: str) -> list[Problem]:
    try:
        text = file.content_string
    except (OSError, ValueError) as error:
        return [Problem(shown, f"cannot be read: {error}", file.src_uri)]
    cleaned = clean_svg(text)
    if cleaned is None:
        return [Problem(shown, "not an SVG image that can be published safely", file.src_uri)]
    file.content_string = cleaned
    return []
