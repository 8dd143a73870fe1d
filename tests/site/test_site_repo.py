"""The repository's own wiki: ``mkdocs build --strict`` passes and the site stays offline."""

from __future__ import annotations

import re
from pathlib import Path

_EXTERNAL = re.compile(r'<(\w+)\b[^>]*?\b(?:href|src)="((?:https?:)?//[^"]+)"')
_PAPER_LINKS = ("https://arxiv.org/abs/", "https://doi.org/")


def test_repo_wiki_builds_strict(repo_site: Path) -> None:
    assert (repo_site / "index.html").is_file()
    assert (repo_site / "claims-dashboard.html").is_file()
    assert (repo_site / "javascripts" / "iframe-worker-shim.js").is_file()


def test_repo_site_loads_nothing_from_the_network(repo_site: Path) -> None:
    authored = "\n".join(
        path.read_text(encoding="utf-8")
        for path in (Path(__file__).resolve().parents[2] / "wiki").rglob("*.md")
    )
    for page in repo_site.rglob("*.html"):
        for tag, url in _EXTERNAL.findall(page.read_text(encoding="utf-8")):
            where = f"{page.relative_to(repo_site)}: <{tag}> {url}"
            assert tag == "a", f"external resource loaded by the page: {where}"
            assert url.startswith(_PAPER_LINKS) or url in authored, f"foreign link: {where}"


def test_repo_site_holds_no_absolute_machine_path(repo_site: Path) -> None:
    """Committed results name data folders such as /root/.cache/...; the site never shows one."""
    root = str(Path(__file__).resolve().parents[2])
    machine = re.compile(r"(?<![\w.:/-])/(?:root|home|tmp|work|Users|var|opt)/[\w.-]+")
    for page in [*repo_site.rglob("*.html"), *repo_site.rglob("*.svg"),
                 repo_site / "search" / "search_index.json"]:
        text = page.read_text(encoding="utf-8")
        assert root not in text, page
        assert not machine.search(text), f"{page}: {machine.search(text)}"
