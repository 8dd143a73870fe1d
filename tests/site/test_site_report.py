"""``claimcheck report``: the one-file HTML and the Markdown report of a wiki with results."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from site_html import copy_fixture
from store_fixture import MINISITE_RESULTS, write_results

from claimcheck.core.errors import UsageError
from claimcheck.site.report import configure_report_parser, escape_markdown, run_report


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_fixture("minisite", tmp_path_factory.mktemp("report"))
    write_results(project, MINISITE_RESULTS)
    return project


def _report(project: Path, *arguments: str) -> int:
    parser = argparse.ArgumentParser()
    configure_report_parser(parser)
    return run_report(parser.parse_args([str(project / "wiki"), *arguments]))


def test_html_report_is_one_escaped_file(project: Path, tmp_path: Path) -> None:
    output = tmp_path / "report.html"
    assert _report(project, "--format", "html", "-o", str(output)) == 0
    html = output.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "<style>" in html
    assert "<script" not in html and "<img src=x" not in html
    assert "src=\"http" not in html and "<link" not in html
    assert 'class="cc-badge cc-badge--contradicted"' in html and "98.93" in html
    assert 'id="paper-1-claim-accuracy"' in html
    assert 'href="#paper-1-claim-accuracy"' in html  # from the dashboard's lists


def test_markdown_report(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _report(project, "--repo-url", "https://example.org/r") == 0
    text = capsys.readouterr().out
    assert "| ✗ contradicted | 1 |" in text and "| ⟳ stale | 1 |" in text
    assert "`2101.12491/accuracy`" in text
    link = "https://example.org/r/blob/main/checks/probe.py#L7"
    assert f"[`checks.probe:always_true`]({link})" in text
    assert "<script>" not in text and "&lt;script&gt;" in text


def test_markdown_escaping_blocks_links_and_tables() -> None:
    assert escape_markdown("![x](http://t) a|b <b>") == r"\!\[x\](http://t) a\|b &lt;b&gt;"


def test_missing_wiki_folder_is_a_usage_error(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    configure_report_parser(parser)
    with pytest.raises(UsageError):
        run_report(parser.parse_args([str(tmp_path / "nowhere")]))
