"""Golden HTML never depends on where the tests run: no versions, and the same page under any
torch or Python (issue 24 §1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_html import VERSION, build_site, check_golden, copy_fixture, plugin_fragments
from store_fixture import MINISITE_RESULTS, write_results

TESTS = Path(__file__).resolve().parents[1]
GOLDEN_FILES = sorted(
    path for path in TESTS.rglob("*") if "golden" in path.relative_to(TESTS).parts
    and path.is_file() and path.suffix in {".html", ".json", ".txt", ".md", ".svg"}
)


def test_there_are_golden_files_to_check() -> None:
    assert GOLDEN_FILES


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda path: path.name)
def test_golden_file_holds_no_version_string(path: Path) -> None:
    found = sorted(set(VERSION.findall(path.read_text(encoding="utf-8"))))
    assert not found, f"{path.name} holds version strings {found}: normalise them (site_html)"


@pytest.mark.parametrize("version", ["2.13.0", "2.13.0+cpu", "3.11.7", "2.14.1+cu124", "0.1.0"])
def test_version_pattern_finds_versions(version: str) -> None:
    assert VERSION.findall(f"ran under torch {version}, you have x") == [version]


@pytest.mark.parametrize("text", ["2101.12491", "§3.1", "eq. 3-6", "161,500", "2026-11-29",
                                  "§3.1.2"])
def test_version_pattern_leaves_ids_locators_and_numbers(text: str) -> None:
    assert VERSION.findall(text) == []


@pytest.mark.parametrize("torch_version,python_version",
                         [("2.14.1+cu124", "3.12.3"), ("2.13.0", "3.11.7"), ("2.2.0", "3.10.0")])
def test_stored_pages_match_their_golden_on_any_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch_version: str, python_version: str
) -> None:
    """The machine's own torch and Python (here faked) never reach a golden comparison."""
    import importlib.metadata
    import platform

    real_version = importlib.metadata.version
    monkeypatch.setattr(platform, "python_version", lambda: python_version)
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: torch_version if name == "torch" else real_version(name))
    project = copy_fixture("minisite", tmp_path)
    write_results(project, MINISITE_RESULTS)
    site = build_site(project)
    html = (site / "papers" / "routing-paper.html").read_text(encoding="utf-8")
    check_golden("stored-paper.html", plugin_fragments(html), update=False)
