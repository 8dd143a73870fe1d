"""Navigation that stays bounded: a folder of many cards collapses into its index page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_html import build_site, copy_fixture

CONCEPTS = 35  # above the default nav_section_limit of 30


def _crowded_project(destination: Path) -> Path:
    project = copy_fixture("minisite", destination)
    for number in range(CONCEPTS):
        (project / "wiki" / "concepts" / f"extra-{number:02d}.md").write_text(
            f"---\nkind: concept\nslug: extra-{number:02d}\ntitle: Extra concept {number}\n"
            f"summary: Generated concept number {number}.\npapers: [\"2101.12491\"]\n"
            f"updated_at: 2026-11-21\n---\n\n# Extra {number}\n\n"
            f"It cites [arxiv:2101.12491 tab. 2].\n",
            encoding="utf-8",
        )
    return project


@pytest.fixture(scope="module")
def crowded_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_site(_crowded_project(tmp_path_factory.mktemp("nav")))


def _nav_links(html: str) -> list[str]:
    nav = html[html.index('<nav class="md-nav md-nav--primary"') :]
    nav = nav[: nav.index("</nav>\n                  </div>")]
    return re.findall(r'<a href="([^"]+)" class="md-nav__link', nav)


def test_a_crowded_folder_is_one_entry_on_every_page(crowded_site: Path) -> None:
    for page in ("index.html", "concepts/extra-07.html", "papers/routing-paper.html"):
        links = _nav_links((crowded_site / page).read_text(encoding="utf-8"))
        concept_links = [link for link in links if "extra-" in link]
        assert concept_links == [], page
        assert len(links) < 15, page


def test_its_index_page_lists_every_card(crowded_site: Path) -> None:
    index = (crowded_site / "concepts" / "index.html").read_text(encoding="utf-8")
    listing = index[index.index('<div class="cc-listing">') :]
    assert f"{CONCEPTS + 1} pages in this section" in listing
    assert 'href="extra-07.html">Extra concept 7</a>' in listing
    assert "Generated concept number 7." in listing
    assert 'href="routing.html">Routing by agreement</a>' in listing


def test_a_card_keeps_its_section_open_in_the_navigation(crowded_site: Path) -> None:
    html = (crowded_site / "concepts" / "extra-07.html").read_text(encoding="utf-8")
    opened = '<li class="md-nav__item md-nav__item--active md-nav__item--nested">'
    active = html[html.index(opened) :]
    active = active[: active.index("</li>")]
    assert '<a href="index.html" class="md-nav__link ">' in active
    assert re.search(r"md-ellipsis\">\s*Concepts", active)


def test_the_limit_can_be_turned_off(tmp_path: Path) -> None:
    site = build_site(_crowded_project(tmp_path), nav_section_limit=0)
    links = _nav_links((site / "concepts" / "extra-07.html").read_text(encoding="utf-8"))
    assert len([link for link in links if "extra-" in link]) >= CONCEPTS - 1
    assert not (site / "concepts" / "index.html").exists()


def test_the_folders_own_index_is_kept_whatever_its_extension(tmp_path: Path) -> None:
    project = _crowded_project(tmp_path)
    (project / "wiki" / "concepts" / "index.markdown").write_text(
        "# Concepts, introduced by hand\n", encoding="utf-8")
    index = (build_site(project) / "concepts" / "index.html").read_text(encoding="utf-8")
    assert "Concepts, introduced by hand" in index
    assert f"{CONCEPTS + 1} pages in this section" in index
