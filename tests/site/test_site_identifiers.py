"""Papers beyond arXiv (a DOI card and an OpenReview card lint clean and render on the site), and
a textual claim decided from the cached fixture paper, on the site and in the report."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_html import build_site, copy_fixture

from claimcheck.cards.frontmatter import SourceKind
from claimcheck.cli.main import main
from claimcheck.core.config import load_config
from claimcheck.site.report import build_report
from claimcheck.sources.cache import SourceCache, sha256_of
from tests.sources.paper_fixture import fixture_eprint

DOI_CARD = """---
kind: paper
slug: journal-capsules
doi: 10.1038/s41598-021-93977-0
title: "A journal paper on capsules"
authors: [A. Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: error-rate
    cite: tab. 2
    basis: textual
    statement: The paper reports a 0.26% test error.
    quote: "0.26"
  - id: layers
    cite: §3
    basis: reproduction
    statement: A deeper network does better.
    unverified: no training run yet
---
A paper known by its DOI.
"""

OPENREVIEW_CARD = """---
kind: paper
slug: em-routing
openreview: HJWLfGWRb
title: "Matrix capsules with EM routing"
authors: [Geoffrey E. Hinton, Sara Sabour, Nicholas Frosst]
year: 2018
venue: ICLR 2018
updated_at: 2026-11-29
claims:
  - id: em-iterations
    cite: §3
    basis: textual
    statement: EM routing runs three iterations.
    quote: "three iterations of routing"
---
A paper known by its OpenReview id.
"""

CONCEPT = """---
kind: concept
slug: beyond-arxiv
title: Beyond arXiv
papers: ["doi:10.1038/s41598-021-93977-0", "openreview:HJWLfGWRb"]
updated_at: 2026-11-29
---
A journal figure [doi:10.1038/s41598-021-93977-0 tab. 2] and a conference one
[openreview:HJWLfGWRb §3 "three iterations of routing"].
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_fixture("minisite", tmp_path_factory.mktemp("identifiers"))
    (root / "wiki" / "papers" / "journal.md").write_text(DOI_CARD, encoding="utf-8")
    (root / "wiki" / "papers" / "em.md").write_text(OPENREVIEW_CARD, encoding="utf-8")
    (root / "wiki" / "concepts" / "beyond.md").write_text(CONCEPT, encoding="utf-8")
    return root


def test_the_cards_lint_clean(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(project / "no-cache"))
    assert main(["lint", "wiki"]) == 0
    ours = ("wiki/papers/journal.md", "wiki/papers/em.md", "wiki/concepts/beyond.md")
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(ours)]
    assert all(": info: quotes not checked" in line for line in lines), lines


def test_the_cards_render_with_their_claims(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(project / "no-cache"))
    site = build_site(project)
    journal = (site / "papers" / "journal.html").read_text(encoding="utf-8")
    assert 'id="claim-error-rate"' in journal and 'id="claim-layers"' in journal
    em = (site / "papers" / "em.html").read_text(encoding="utf-8")
    assert '<details class="cc-details cc-row cc-row--unverified" id="claim-em-iterations"' in em
    concept = (site / "concepts" / "beyond.html").read_text(encoding="utf-8")
    assert 'href="../papers/journal.html#claim-error-rate"' in concept
    assert 'href="../papers/em.html#claim-em-iterations"' in concept
    assert "doi:10.1038/s41598-021-93977-0/error-rate" in concept.replace("<wbr>", "")
    dashboard = (site / "claims-dashboard.html").read_text(encoding="utf-8")
    assert "doi:10.1038/s41598-021-93977-0" in dashboard and "openreview:HJWLfGWRb" in dashboard


FIXTURE_CARD = """---
kind: paper
slug: tiny-capsules
arxiv: "2101.00001"
source: {{version: 2, kind: latex, sha256: "{sha}"}}
title: "Tiny Capsules"
authors: [Ada Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: params-said
    cite: §3.2
    basis: textual
    statement: The paper says the MNIST network has 161,824 parameters.
    quote: "the MNIST network has 161,824 trainable parameters"
    secondary_source: "seed card 000"
  - id: misplaced
    cite: tab. 1
    basis: textual
    statement: The table gives the count.
    quote: "161,824 trainable parameters"
---
Tiny capsules.
"""


@pytest.fixture(scope="module")
def cached_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini-site with a textual paper card whose pinned source is in the cache."""
    root = copy_fixture("minisite", tmp_path_factory.mktemp("textual"))
    data = fixture_eprint()
    SourceCache(root / "source-cache").store("2101.00001", 2, SourceKind.LATEX, "fixture", data)
    (root / "wiki" / "papers" / "tiny.md").write_text(
        FIXTURE_CARD.format(sha=sha256_of(data)), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAIMCHECK_SOURCES", str(root / "source-cache"))
        build_site(root)
        report = build_report(load_config(root), root / "wiki", "markdown", lambda link: None)
    (root / "report.md").write_text(report, encoding="utf-8")
    return root


def test_a_textual_claim_is_verified_from_its_quote_and_shown_as_such(
    cached_site: Path,
) -> None:
    tiny = (cached_site / "site" / "papers" / "tiny.html").read_text(encoding="utf-8")
    row = tiny[tiny.index('id="claim-params-said"'):tiny.index('id="claim-misplaced"')]
    assert "cc-badge--verified" in row and '<span class="cc-badge__basis">text</span>' in row
    assert "<q>the MNIST network has 161,824 trainable parameters</q> (quote found at §3.2)" in row
    assert "seed card 000" in row
    misplaced = tiny[tiny.index('id="claim-misplaced"'):].split("</details>")[0]
    assert "cc-badge--unverified" in misplaced
    assert "(quote found in §3.2, not at tab. 1)" in misplaced


def test_the_markdown_report_names_each_basis(cached_site: Path) -> None:
    report = (cached_site / "report.md").read_text(encoding="utf-8")
    assert "## Per basis (what each verdict is evidence of)" in report
    assert "| textual | 1 | 0 | 1 | 0 |" in report
    row = next(line for line in report.splitlines() if line.startswith("| `params-said`"))
    assert "| ✓ verified | textual |" in row
    assert "quote: “the MNIST network has 161,824 trainable parameters” (quote found at §3.2)" \
        in row
