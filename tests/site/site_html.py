"""Helpers for the site tests: build a mini-site through MkDocs and cut out the plugin's HTML."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden"
SHIM = Path(__file__).resolve().parents[2] / "wiki" / "javascripts" / "iframe-worker-shim.js"
_VOID = {"br", "img", "hr", "input", "meta", "link", "source", "wbr"}
VERSION = re.compile(r"(?<![\w.§-])\d+\.\d+\.\d+(?:[+.][A-Za-z0-9]+)*(?![\w.])")
"""A version string (``2.13.0``, ``2.13.0+cpu``, ``3.11.7``): environment, never golden."""


def copy_fixture(name: str, destination: Path) -> Path:
    """A fresh copy of a fixture project (so builds and stores never touch the repository).

    The repository's vendored iframe-worker shim is copied in too, as the fixtures' mkdocs.yml
    lists it in ``extra.polyfills`` for search from ``file://``.
    """
    target = destination / name
    shutil.copytree(FIXTURES / name, target)
    scripts = target / "wiki" / "javascripts"
    scripts.mkdir(parents=True, exist_ok=True)
    shutil.copy(SHIM, scripts / SHIM.name)
    return target


def build_site(project: Path, strict: bool = True, **plugin_options: object) -> Path:
    """Build ``project`` in-process with MkDocs; return the site folder.

    ``plugin_options`` override the claimcheck plugin's options from the project's mkdocs.yml.
    Raises ``mkdocs.exceptions.Abort`` when ``strict`` and a warning was logged.
    """
    return build_site_from(project / "mkdocs.yml", project / "site", strict, **plugin_options)


def build_site_from(
    mkdocs_yml: Path, site: Path, strict: bool = True, **plugin_options: object
) -> Path:
    """Build the project of ``mkdocs_yml`` into ``site`` (see :func:`build_site`)."""
    config = load_config(str(mkdocs_yml), site_dir=str(site), strict=strict)
    if plugin_options:
        config.plugins["claimcheck"].config.update(plugin_options)
    build(config)
    return site


class _Fragments(HTMLParser):
    """Record the outermost elements whose class list has a ``cc-`` class."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.spans: list[tuple[int, int, int, int]] = []
        self._depth = 0
        self._start: tuple[int, int] | None = None
        self._tag = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        if self._start is None:
            classes = dict(attrs).get("class") or ""
            if any(name.startswith("cc-") for name in classes.split()):
                self._start, self._tag, self._depth = self.getpos(), tag, 1
            return
        if tag == self._tag:
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self._start is None or tag != self._tag:
            return
        self._depth -= 1
        if self._depth == 0:
            self.spans.append((*self._start, *self.getpos()))
            self._start = None


def plugin_fragments(html: str) -> str:
    """The plugin's HTML in a page, one fragment per line group, whitespace-normalised."""
    parser = _Fragments()
    parser.feed(html)
    lines = html.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    pieces = []
    for start_line, start_col, end_line, end_col in parser.spans:
        start = offsets[start_line - 1] + start_col
        end_offset = offsets[end_line - 1] + end_col
        close = html.index(">", end_offset) + 1
        pieces.append(re.sub(r"\n\s*", "\n", html[start:close]).strip())
    return "\n\n".join(pieces) + "\n"


def without_versions(html: str) -> str:
    """``html`` with every version string replaced by ``<version>``.

    Versions of torch, Python or the tool depend on where the tests run, so a golden file never
    holds one (tests/test_goldens.py keeps it so).
    """
    return VERSION.sub("&lt;version&gt;", html)


def check_golden(name: str, actual: str, update: bool) -> None:
    """Compare with ``golden/<name>`` (versions normalised); ``update`` rewrites the golden."""
    actual = without_versions(actual)
    path = GOLDEN / name
    if update or not path.exists():
        path.write_text(actual, encoding="utf-8")
        if not update:
            raise AssertionError(f"golden {name} was missing and has been written; re-run")
        return
    assert actual == path.read_text(encoding="utf-8"), f"{name} differs from its golden"
