"""``claimcheck new paper`` with every identifier: metadata from a local stand-in for arXiv,
Crossref and OpenReview, placeholders when offline, and cards that lint clean either way."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.cli.main import main
from tests.sources.paper_fixture import serve
from tests.sources.test_fetch import ATOM

CROSSREF = {"message": {
    "title": ["Efficient-CapsNet: capsule network with self-attention routing"],
    "author": [{"given": "Vittorio", "family": "Mazzia"}, {"given": "Francesco",
                                                            "family": "Salvetti"}],
    "issued": {"date-parts": [[2021, 7, 19]]},
    "container-title": ["Scientific Reports"],
}}
OPENREVIEW = {"notes": [{"id": "HJWLfGWRb", "cdate": 1518730000000, "content": {
    "title": {"value": "Matrix capsules with EM routing"},
    "authors": {"value": ["Geoffrey E Hinton", "Sara Sabour", "Nicholas Frosst"]},
    "venue": {"value": "ICLR 2018"},
}}]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(tmp_path / "cache"))
    monkeypatch.delenv("CLAIMCHECK_OFFLINE", raising=False)
    routes = {
        "/arxiv?id_list=2101.00001&max_results=1": ATOM.encode(),
        "/crossref/works/10.1038/s41598-021-93977-0": json.dumps(CROSSREF).encode(),
        "/openreview/notes?id=HJWLfGWRb": json.dumps(OPENREVIEW).encode(),
    }
    with serve(routes, []) as base:
        monkeypatch.setenv("CLAIMCHECK_ARXIV_API", f"{base}/arxiv")
        monkeypatch.setenv("CLAIMCHECK_CROSSREF_API", f"{base}/crossref")
        monkeypatch.setenv("CLAIMCHECK_OPENREVIEW_API", f"{base}/openreview")
        yield tmp_path


FILLED = [
    (["--arxiv", "2101.00001"], "tiny-capsules-a-fixture-paper",
     ['arxiv: "2101.00001"', 'title: "Tiny Capsules: A Fixture Paper"',
      'authors: ["Ada Author", "Ben Writer"]', "year: 2021"]),
    (["--doi", "10.1038/s41598-021-93977-0"],
     "efficient-capsnet-capsule-network-with-self-attention",
     ['doi: "10.1038/s41598-021-93977-0"', 'authors: ["Vittorio Mazzia", "Francesco Salvetti"]',
      "year: 2021", 'venue: "Scientific Reports"']),
    (["--openreview", "HJWLfGWRb"], "matrix-capsules-with-em-routing",
     ['openreview: "HJWLfGWRb"', 'title: "Matrix capsules with EM routing"',
      'authors: ["Geoffrey E Hinton", "Sara Sabour", "Nicholas Frosst"]', "year: 2018",
      'venue: "ICLR 2018"']),
]


@pytest.mark.parametrize(("options", "slug", "lines"), FILLED,
                         ids=["arxiv", "doi", "openreview"])
def test_metadata_fills_the_card(
    project: Path, capsys: pytest.CaptureFixture[str], options: list[str], slug: str,
    lines: list[str],
) -> None:
    assert main(["new", "paper", *options]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == f"wiki/papers/{slug}.md"
    assert err == ""
    text = (project / out.strip()).read_text(encoding="utf-8")
    for line in lines:
        assert f"\n{line}\n" in text, text
    assert main(["lint"]) == 0
    assert capsys.readouterr().out == ""


PLACEHOLDERS = [
    (["--doi", "10.1000/unknown-paper"], "doi-10-1000-unknown-paper",
     'title: "TODO: the title of DOI 10.1000/unknown-paper"'),
    (["--arxiv", "2101.00002", "--offline"], "arxiv-2101-00002",
     'title: "TODO: the title of arXiv 2101.00002"'),
    (["--url", "https://example.org/papers/capsules.pdf"],
     "paper-example-org-papers-capsules-pdf",
     'title: "TODO: the title of https://example.org/papers/capsules.pdf"'),
]


@pytest.mark.parametrize(("options", "slug", "title"), PLACEHOLDERS,
                         ids=["doi-unknown", "offline", "url"])
def test_without_metadata_the_card_has_placeholders_that_lint_points_out(
    project: Path, capsys: pytest.CaptureFixture[str], options: list[str], slug: str,
    title: str,
) -> None:
    assert main(["new", "paper", *options]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == f"wiki/papers/{slug}.md"
    assert "fill in the placeholders" in err
    text = (project / out.strip()).read_text(encoding="utf-8")
    assert f"\n{title}\n" in text
    assert 'authors: ["TODO: the authors"]' in text
    assert main(["lint"]) == 0
    findings = capsys.readouterr().out
    assert "warning: placeholder left by `claimcheck new`: TODO: the title of" in findings
    assert "warning: placeholder left by `claimcheck new`: TODO: the authors" in findings


BAD = [
    (["new", "paper", "--doi", "https://doi.org/10.1038/x"], "write the DOI alone"),
    (["new", "paper", "--openreview", "openreview.net/forum?id=HJWLfGWRb"],
     "write the id alone: `HJWLfGWRb`"),
    (["new", "paper", "--url", "ftp://example.org/x"], "--url needs an http(s) address"),
    (["new", "paper"], "needs exactly one of --arxiv, --doi, --openreview or --url"),
    (["new", "paper", "--arxiv", "2101.00001", "--doi", "10.1038/x"], "not allowed with"),
    (["new", "concept", "idea", "--doi", "10.1038/x"], "are for paper cards"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_identifiers_are_usage_errors(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (project / "wiki").exists()


def test_a_second_card_for_a_doi_paper_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "paper", "--doi", "10.1038/s41598-021-93977-0"]) == 0
    assert main(["new", "paper", "--doi", "10.1038/S41598-021-93977-0", "--title", "Again"]) == 2
    assert "DOI 10.1038/s41598-021-93977-0 already has a card" in capsys.readouterr().err
