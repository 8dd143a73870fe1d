"""Papers beyond arXiv, as an author meets them: ``claimcheck new paper --doi`` and
``--openreview`` write cards that, once given claims and cited from a concept card, lint clean
and render on the site (built through MkDocs with the claimcheck plugin, as ``mkdocs build``
does); lint says honestly why each quote is not checked yet; and a DOI paper whose LaTeX source
is given by address is fetched, pinned, and its textual claim verified by its quote."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from claimcheck.cli.main import main
from tests.sources.paper_fixture import fixture_eprint, serve

DOI = "10.1038/s41598-021-93977-0"
OPENREVIEW = "HJWLfGWRb"
MKDOCS = """site_name: Beyond arXiv
docs_dir: wiki
site_dir: site
theme:
  name: material
  font: false
plugins:
  - claimcheck
"""
DOI_CLAIMS = """claims:
  - id: norb-error
    cite: tab. 2
    basis: textual
    statement: The paper reports a 2.54% error on smallNORB.
    quote: "Ours 2.54"
  - id: deeper
    cite: §4
    basis: reproduction
    statement: A deeper network does better.
    unverified: no training run yet
"""
OPENREVIEW_CLAIMS = """claims:
  - id: iterations
    cite: §3
    basis: textual
    statement: EM routing runs three iterations.
    quote: "three iterations of routing"
"""
CONCEPT_BODY = f"""## Overview

A journal figure [doi:{DOI} tab. 2 "Ours 2.54"] and a conference one
[openreview:{OPENREVIEW} §3].
"""


def _new(*argv: str) -> Path:
    assert main(["new", *argv, "--offline"]) == 0
    return Path.cwd() / "wiki" / ("papers" if argv[0] == "paper" else "concepts")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> Path:
    """A project whose two papers and one concept were written by ``claimcheck new``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "mkdocs.yml").write_text(MKDOCS)
    papers = _new("paper", "--doi", DOI, "--title", "Efficient-CapsNet", "--authors",
                  "Vittorio Mazzia, Francesco Salvetti", "--year", "2021")
    _new("paper", "--openreview", OPENREVIEW, "--title", "Matrix capsules with EM routing",
         "--authors", "Geoffrey Hinton, Sara Sabour, Nicholas Frosst", "--year", "2018")
    concepts = _new("concept", "capsules")
    capsys.readouterr()
    for name, claims in (("efficient-capsnet", DOI_CLAIMS),
                         ("matrix-capsules-with-em-routing", OPENREVIEW_CLAIMS)):
        card = papers / f"{name}.md"
        text = card.read_text(encoding="utf-8")
        assert text.count("\nclaims: []\n") == 1
        card.write_text(text.replace("\nclaims: []\n", f"\n{claims}"), encoding="utf-8")
    concept = concepts / "capsules.md"
    text = concept.read_text(encoding="utf-8")
    text = re.sub(r"\npapers: \[\].*\n", f'\npapers: ["doi:{DOI}", "openreview:{OPENREVIEW}"]\n',
                  text)
    text = re.sub(r"One paragraph that says what .*\n", "Parts of a network that vote.\n", text)
    concept.write_text(text.split("## Overview")[0] + CONCEPT_BODY, encoding="utf-8")
    (tmp_path / "wiki" / "index.md").write_text("# Capsules\n")
    return tmp_path


def _lint(capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["lint"]) == 0
    return capsys.readouterr().out.splitlines()


def _site(project: Path) -> Path:
    site = project / "site"
    build(load_config(str(project / "mkdocs.yml"), site_dir=str(site), strict=True))
    return site


def _page(site: Path, src: str) -> str:
    return re.sub(r"\s+", " ", (site / src / "index.html").read_text(encoding="utf-8"))


def _evidence(page: str, claim: str, following: str | None = None) -> str:
    """The evidence block of ``claim`` (``<details id="claim-…">``, where citations land), up to
    that of ``following``: since issue 34 a claim's full evidence is a collapsed block after the
    card's text, its compact line in the list above only links to it."""
    start = page.index(f'id="claim-{claim}">')
    end = page.index(f'id="claim-{following}">' if following else "</details>", start)
    return page[start:end]


def test_the_cards_lint_clean_and_say_why_quotes_are_not_checked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lint(capsys)
    assert all(": info: quotes not checked: " in line for line in lines), lines
    doi = "wiki/papers/efficient-capsnet.md:1:1: info: quotes not checked: a DOI names a landing"
    assert any(line.startswith(doi) for line in lines), lines
    assert any(line.startswith("wiki/concepts/capsules.md:1:1: info: quotes not checked: a DOI")
               for line in lines), lines
    assert not any("OpenReview serves only the PDF" in line and "concepts" in line
                   for line in lines), "the concept's OpenReview citation has no quote"
    assert any(line.startswith("wiki/papers/matrix-capsules-with-em-routing.md:1:1: info: "
                               "quotes not checked: OpenReview serves only the PDF")
               for line in lines), lines


def test_the_cards_render_on_the_site(project: Path) -> None:
    site = _site(project)
    journal = _page(site, "papers/efficient-capsnet")
    assert "<h1>Efficient-CapsNet</h1>" in journal
    row = _evidence(journal, "norb-error", "deeper")
    assert "cc-badge--unverified" in row and 'title="basis: textual"' in row
    # readers see where the quote stands; how to fetch the source is lint's message
    assert "<q>Ours 2.54</q> (quote not yet checked against the paper)" in row
    assert 'title="basis: reproduction"' in journal
    em = _page(site, "papers/matrix-capsules-with-em-routing")
    assert _evidence(em, "iterations") and "quote not yet checked against the paper" in em
    assert "claimcheck papers" not in em and "claimcheck papers" not in journal
    concept = _page(site, "concepts/capsules")
    assert 'href="../../papers/efficient-capsnet/#claim-norb-error"' in concept
    assert 'href="../../papers/matrix-capsules-with-em-routing/#claim-iterations"' in concept
    shown = concept.replace("<wbr>", "")  # ids may break after "-" and "/"
    assert f"doi:{DOI}/norb-error" in shown and f"openreview:{OPENREVIEW}/iterations" in shown
    dashboard = _page(site, "claims-dashboard")
    assert f"doi:{DOI}" in dashboard and f"openreview:{OPENREVIEW}" in dashboard


def test_a_doi_paper_with_a_latex_source_is_pinned_and_verified_by_its_quote(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = project / "wiki" / "papers" / "efficient-capsnet.md"
    requests: list[str] = []
    with serve({"/source.tar.gz": fixture_eprint()}, requests) as base:
        text = card.read_text(encoding="utf-8").replace(
            f'doi: "{DOI}"\n',
            f'doi: "{DOI}"\nsource: {{url: "{base}/source.tar.gz", sha256: "{"0" * 64}"}}\n')
        card.write_text(text, encoding="utf-8")
        assert main(["papers", "fetch", f"doi:{DOI}", "--pin"]) == 0
        pinned = card.read_text(encoding="utf-8")
    assert requests == ["/source.tar.gz"]
    assert "source: {kind: latex, sha256: " in pinned and "0" * 64 not in pinned
    assert f'url: "{base}/source.tar.gz"}}' in pinned
    capsys.readouterr()
    lines = _lint(capsys)
    assert not any(line.startswith("wiki/papers/efficient-capsnet.md") for line in lines), lines
    assert main(["verify", "--format", "json"]) == 0
    rows = {row["claim"]: row for row in json.loads(capsys.readouterr().out)}
    said = rows[f"doi:{DOI}/norb-error"]
    assert (said["verdict"], said["basis"], said["quote_state"]) == (
        "verified", "textual", "found")
    site = _site(project)
    journal = _page(site, "papers/efficient-capsnet")
    row = _evidence(journal, "norb-error", "deeper")
    assert "cc-badge--verified" in row and "<q>Ours 2.54</q> (quote found at tab. 2)" in row
