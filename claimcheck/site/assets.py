"""The plugin's static files (stylesheet, two small scripts, KaTeX) and where pages load them.

Everything is published under ``claimcheck/`` in the site and comes from this package, never
from a CDN. The stylesheet is on every page (``extra_css``); the scripts are added per page,
only where they have work: ``claimcheck.js`` where a page has hover cards or claims' evidence
blocks, KaTeX and ``maths.js`` where it has maths.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

ASSETS_DIR = "claimcheck"
CSS_PATH = f"{ASSETS_DIR}/claimcheck.css"
CARDS_SCRIPT = f"{ASSETS_DIR}/claimcheck.js"
MATHS_SCRIPT = f"{ASSETS_DIR}/maths.js"
KATEX_DIR = f"{ASSETS_DIR}/katex"
_HAS_CARDS = 'class="cc-cards"'
_HAS_MATHS = 'class="arithmatex"'
_HAS_EVIDENCE = 'class="cc-evidence"'


def _asset_root() -> Traversable:
    return resources.files("claimcheck.site").joinpath("assets")


def asset_files(config: MkDocsConfig) -> list[File]:
    """Every packaged asset as a generated file of the site."""
    root = _asset_root()
    files = [
        File.generated(config, CSS_PATH, content=root.joinpath("claimcheck.css").read_bytes()),
        File.generated(config, CARDS_SCRIPT, content=root.joinpath("claimcheck.js").read_bytes()),
        File.generated(config, MATHS_SCRIPT, content=root.joinpath("maths.js").read_bytes()),
    ]
    katex = root.joinpath("katex")
    for name in ("katex.min.js", "katex.min.css", "LICENSE"):
        files.append(File.generated(config, f"{KATEX_DIR}/{name}",
                                    content=katex.joinpath(name).read_bytes()))
    for font in sorted(katex.joinpath("fonts").iterdir(), key=lambda item: item.name):
        if font.name.endswith(".woff2"):
            files.append(File.generated(config, f"{KATEX_DIR}/fonts/{font.name}",
                                        content=font.read_bytes()))
    return files


def add_page_scripts(output: str, page_url: str) -> str:
    """``output`` (a whole page) with the scripts and styles its content needs."""
    head: list[str] = []
    body: list[str] = []

    def url(path: str) -> str:
        return get_relative_url(path, page_url)

    if _HAS_CARDS in output or _HAS_EVIDENCE in output:
        body.append(f'<script src="{url(CARDS_SCRIPT)}" defer></script>')
    if _HAS_MATHS in output:
        head.append(f'<link rel="stylesheet" href="{url(KATEX_DIR + "/katex.min.css")}">')
        body.append(f'<script src="{url(KATEX_DIR + "/katex.min.js")}" defer></script>')
        body.append(f'<script src="{url(MATHS_SCRIPT)}" defer></script>')
    if head:
        output = _before_last(output, "</head>", "\n".join(head))
    if body:
        output = _before_last(output, "</body>", "\n".join(body))
    return output


def _before_last(text: str, marker: str, insert: str) -> str:
    at = text.rfind(marker)
    if at == -1:
        return text + insert
    return text[:at] + insert + "\n" + text[at:]
