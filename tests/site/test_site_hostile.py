"""Hostile wikis and results at build time: refused with a located message, or made harmless.

The browser side (no script runs) is in ``test_site_hostile_browser.py``.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hostile_fixture import PLAIN_WITH_META, build_hostile_project
from mkdocs.exceptions import Abort
from site_html import build_site, copy_fixture

from claimcheck.cli.main import main as claimcheck_main

CANARY = "claimcheck-canary-4f1d"


def _refused(
    project: Path, caplog: pytest.LogCaptureFixture, strict: bool = True, **options: object
) -> str:
    """Build ``project``, expecting the plugin to stop it; return what it logged."""
    caplog.clear()
    with caplog.at_level(logging.INFO), pytest.raises(Abort):
        build_site(project, strict, **options)
    return caplog.text


def _mkdocs(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """A real ``mkdocs build`` in a fresh process, with a safety timeout."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", *arguments], cwd=project,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "CLAIMCHECK_CANARY": CANARY},
        capture_output=True, text=True, timeout=120,
    )


def _site_text(site: Path) -> str:
    return "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for path in site.rglob("*")
        if path.is_file() and path.suffix in (".html", ".json", ".js", ".svg", ".xml")
    )


def test_a_symlink_out_of_the_wiki_is_a_build_error(tmp_path: Path) -> None:
    project = copy_fixture("minisite", tmp_path)
    (project / "wiki" / "env.md").symlink_to("/proc/self/environ")
    completed = _mkdocs(project)
    assert completed.returncode != 0
    assert "wiki/env.md: a symbolic link that leaves the wiki folder" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert CANARY not in completed.stdout + completed.stderr
    site = project / "site"
    assert not site.exists() or CANARY not in _site_text(site)


@pytest.mark.parametrize(("link", "target", "message"), [
    ("root", "/", "a symbolic link that leaves the wiki folder"),
    (".hidden/up", "../..", "a symbolic link that leaves the wiki folder"),
    ("concepts/loop", "..", "a symbolic link to a folder that contains it (a loop)"),
])
def test_a_linked_folder_is_refused_before_mkdocs_walks_it(
    tmp_path: Path, link: str, target: str, message: str
) -> None:
    """MkDocs lists the wiki following links, dot folders included, before any plugin event
    that sees files: ``root -> /`` would have it list the whole machine, forever (``/proc``)."""
    project = copy_fixture("minisite", tmp_path)
    path = project / "wiki" / link
    path.parent.mkdir(exist_ok=True)
    path.symlink_to(target, target_is_directory=True)
    completed = _mkdocs(project)
    assert completed.returncode != 0
    assert f"wiki/{link}: {message}" in completed.stderr
    assert "Traceback" not in completed.stderr


@pytest.mark.parametrize("folder", ["wiki", ".claimcheck"])
def test_a_wiki_or_store_linked_out_of_the_project_is_refused(
    tmp_path: Path, folder: str, caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = copy_fixture("minisite", tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if folder == "wiki":
        (project / "wiki").rename(elsewhere / "wiki")
        (project / "wiki").symlink_to(elsewhere / "wiki", target_is_directory=True)
    else:
        (project / ".claimcheck").symlink_to(elsewhere, target_is_directory=True)
    logged = _refused(project, caplog)
    assert f"claimcheck: {folder} is a symbolic link that leaves the project" in logged
    if folder == "wiki":
        monkeypatch.chdir(project)
        assert claimcheck_main(["lint"]) != 0
        assert "wiki:1:1: error: the wiki folder is a symbolic link" in capsys.readouterr().out


@pytest.mark.parametrize("site_dir", ["site", "build/site"])
def test_a_site_folder_linked_elsewhere_is_never_emptied(tmp_path: Path, site_dir: str) -> None:
    """MkDocs empties ``site_dir`` before building: a committed ``site -> ~/folder`` (or a link
    on the way to it) must stop the build before anything there is deleted."""
    project = copy_fixture("minisite", tmp_path / "project")
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "keep.txt").write_text("precious", encoding="utf-8")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("site_dir: site",
                                                                 f"site_dir: {site_dir}"))
    linked = project / site_dir.split("/")[0]
    linked.symlink_to(victim if site_dir == "site" else tmp_path, target_is_directory=True)
    if site_dir != "site":
        (tmp_path / "site").symlink_to(victim, target_is_directory=True)
    completed = _mkdocs(project)
    assert completed.returncode != 0 and "Traceback" not in completed.stderr
    assert f"{linked.name}: a symbolic link where a folder belongs" in completed.stderr
    assert (victim / "keep.txt").read_text(encoding="utf-8") == "precious"
    assert (victim / "sub").is_dir()


def test_a_fifo_in_the_wiki_is_a_build_error_not_a_hang(tmp_path: Path) -> None:
    project = copy_fixture("minisite", tmp_path)
    os.mkfifo(project / "wiki" / "pipe.md")
    completed = _mkdocs(project)
    assert completed.returncode != 0
    assert "wiki/pipe.md: not a regular file" in completed.stderr


@pytest.mark.parametrize("target", ["env.md", "pipe.md"])
def test_lint_refuses_files_that_are_not_the_wikis(tmp_path: Path, target: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    project = copy_fixture("minisite", tmp_path)
    if target == "env.md":
        (project / "wiki" / target).symlink_to("/proc/self/environ")
    else:
        os.mkfifo(project / "wiki" / target)
    assert claimcheck_main(["lint", str(project / "wiki")]) != 0
    out = capsys.readouterr().out
    assert f"wiki/{target}:1:1: error:" in out and CANARY not in out


def test_an_alias_bomb_in_a_plain_page_is_a_located_error(tmp_path: Path) -> None:
    project = copy_fixture("minisite", tmp_path)
    levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"{chr(98 + n)}: &{chr(98 + n)} [" + ", ".join([f"*{chr(97 + n)}"] * 9) + "]"
               for n in range(8)]
    (project / "wiki" / "bomb.md").write_text("---\ntitle: x\n" + "\n".join(levels)
                                              + "\n---\n# Bomb\n", encoding="utf-8")
    completed = _mkdocs(project)
    assert completed.returncode != 0
    assert "wiki/bomb.md:4:8: YAML aliases (*name) are not allowed" in completed.stderr


RESERVED = ["claims-dashboard.md", "claims-legend.md", "claim-graph.md",
            "claim-graph/2101.12491.md", "claimcheck/claimcheck.css"]
ACTIVE = ["page.html", "evil.js", "style.css", "data.xml", "run"]


def test_reserved_names_and_active_files_are_each_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One build reports every problem, one line each."""
    project = copy_fixture("minisite", tmp_path)
    for name in [*RESERVED, *ACTIVE]:
        path = project / "wiki" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# Claims dashboard\n\n**100 verified**<script>alert(1)</script>\n",
                        encoding="utf-8")
    logged = _refused(project, caplog)
    for name in RESERVED:
        assert f"wiki/{name}: this name is reserved for a page the claimcheck plugin" in logged
    for name in ACTIVE:
        assert f"wiki/{name}: a " in logged, name
    assert logged.count("would be published as it is and could run script") == len(ACTIVE)


@pytest.mark.parametrize("directory_urls", [False, True])
def test_a_file_published_under_a_generated_name_is_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, directory_urls: bool
) -> None:
    """Another Markdown extension, or a folder's README with directory URLs, lands on the
    generated page's output file just as well as its own name does."""
    project = copy_fixture("minisite", tmp_path)
    if directory_urls:
        yml = project / "mkdocs.yml"
        yml.write_text(yml.read_text(encoding="utf-8").replace("  - offline\n", "")
                       + "use_directory_urls: true\n", encoding="utf-8")
    names = ["claims-dashboard.markdown", "claim-graph.mdown"]
    names += ["claims-legend/README.md"] if directory_urls else ["claims-legend.mkd"]
    for name in names:
        fake = project / "wiki" / name
        fake.parent.mkdir(exist_ok=True)
        fake.write_text("# Claims dashboard\n\n**100 verified**\n", encoding="utf-8")
    logged = _refused(project, caplog)
    for name in names:
        assert f"wiki/{name}: this name is reserved" in logged, name


def test_malformed_citation_fails_a_strict_build(tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    project = copy_fixture("minisite", tmp_path)
    index = project / "wiki" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nBroken [arxiv:2101.12491 tab 2].\n",
                     encoding="utf-8")
    logged = _refused(project, caplog)
    assert "wiki/index.md:6:26: malformed citation" in logged
    build_site(project, strict=False)
    logged = _refused(project, caplog, strict=False, strict_verdicts=True)
    assert "cannot be published as it is:\n  wiki/index.md:6:26: malformed citation" in logged


def test_titles_are_text_whatever_their_yaml_type(tmp_path: Path) -> None:
    project = copy_fixture("minisite", tmp_path)
    (project / "wiki" / "plain-meta.md").write_text(PLAIN_WITH_META, encoding="utf-8")
    site = build_site(project)
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<img src=x onerror" not in html and "<script>window" not in html, page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=window.__pwned=&#39;nav-title&#39;&gt; list" in home
    meta = (site / "plain-meta.html").read_text(encoding="utf-8")
    assert '<meta name="description" content="&#34;&gt;&lt;script&gt;' in meta


def test_the_hostile_site_holds_no_active_markup_or_machine_path(tmp_path: Path) -> None:
    project = build_hostile_project(tmp_path)
    site = build_site(project)
    text = _site_text(site)
    assert str(project) not in text and str(tmp_path) not in text
    assert "/home/runner" not in text and "…/data/mnist.npz" in text
    assert "checks/probe.py" in text  # made relative, still useful
    for path in [*site.rglob("*.svg"), site / "concepts" / "hostile.html"]:
        body = path.read_text(encoding="utf-8")
        if path.suffix == ".html":
            body = body[body.index('<article class="md-content__inner') : body.index("</article>")]
        assert _active_markup(body) == [], path


class _Active(HTMLParser):
    """Tags and attributes that can run script, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "iframe", "object", "embed", "form", "base", "meta", "style"):
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or re.match(r"\s*(javascript|vbscript|data):",
                                                 value or "", re.IGNORECASE):
                self.found.append(f"{tag} {name}")


def _active_markup(html: str) -> list[str]:
    parser = _Active()
    parser.feed(html)
    return parser.found


def test_plain_pages_are_linted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = copy_fixture("minisite", tmp_path)
    wiki = project / "wiki"
    (wiki / "notes.md").write_text("# Notes\n\nSee [arxiv:2101.12491 tab 2].\n", encoding="utf-8")
    (wiki / "forgot.md").write_text("kind: concept\nslug: forgot\n---\n# Forgot\n",
                                    encoding="utf-8")
    assert claimcheck_main(["lint", str(wiki)]) != 0
    out = capsys.readouterr().out
    assert "wiki/notes.md:3:23: error:" in out
    assert "wiki/forgot.md:1:1: warning: looks like a card without front matter" in out
