"""``claimcheck papers fetch`` against a local HTTP server standing in for arXiv and OpenReview.

The server answers the arXiv API (latest version), the e-print of each version, and an
OpenReview PDF. The fixture paper is the e-print of version 2; version 1 answers different
bytes, so a card pinned to version 2's hash but fetching version 1 sees a mismatch.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.cli.main import main
from claimcheck.sources.cache import SourceCache, sha256_of
from tests.sources.paper_fixture import fixture_eprint, serve

ARXIV = "2101.00001"
ATOM = f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><entry>
<id>http://arxiv.org/abs/{ARXIV}v2</id><published>2021-01-05T00:00:00Z</published>
<title>Tiny Capsules:
  A Fixture Paper</title>
<author><name>Ada Author</name></author><author><name>Ben Writer</name></author>
</entry></feed>"""
PDF = b"%PDF-1.4\n% a tiny stand-in for an OpenReview PDF\n"


REQUESTS: list[str] = []


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, bytes]]:
    routes = {
        f"/api/query?id_list={ARXIV}&max_results=1": ATOM.encode(),
        f"/e-print/{ARXIV}v2": fixture_eprint(),
        f"/e-print/{ARXIV}v1": b"\x1f\x8b not the same file",
        "/pdf?id=HJWLfGWRb": PDF,
    }
    REQUESTS.clear()
    with serve(routes, REQUESTS) as base:
        monkeypatch.setenv("CLAIMCHECK_ARXIV_URL", base)
        monkeypatch.setenv("CLAIMCHECK_ARXIV_API", f"{base}/api/query")
        monkeypatch.setenv("CLAIMCHECK_OPENREVIEW_URL", base)
        monkeypatch.setenv("CLAIMCHECK_SOURCES", str(tmp_path / "source-cache"))
        yield routes


PAPER = f"""---
kind: paper
slug: tiny-capsules
arxiv: "{ARXIV}"
title: "Tiny Capsules"
authors: [Ada Author]
year: 2021
updated_at: 2026-11-29
claims:
  - id: params
    cite: §3.2
    basis: textual
    statement: The MNIST network has 161,824 trainable parameters.
    quote: "the MNIST network has 161,824 trainable parameters"
  - id: ensemble
    cite: tab. 1
    basis: textual
    statement: An ensemble of 30 networks reaches 0.16% error.
    quote: "Ensemble of 30 networks 0.16"
  - id: misplaced
    cite: tab. 1
    basis: textual
    statement: The text gives the parameter count.
    quote: "161,824 trainable parameters"
---
Body [arxiv:{ARXIV} §3.2 "the MNIST network has 161,824"].
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    (tmp_path / "wiki" / "papers").mkdir(parents=True)
    (tmp_path / "wiki" / "papers" / "tiny.md").write_text(PAPER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _card(project: Path) -> str:
    return (project / "wiki" / "papers" / "tiny.md").read_text(encoding="utf-8")


def test_fetch_with_pin_writes_the_pin_and_caches_the_source(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint"]) == 0
    assert "quotes not checked: the paper's source is not cached" in capsys.readouterr().out
    assert main(["papers", "fetch", "--pin"]) == 0
    out = capsys.readouterr().out
    digest = sha256_of(fixture_eprint())
    assert f"{ARXIV}: fetched v2 latex (sha256 {digest[:12]}…), pinned in" in out
    assert f'source: {{version: 2, kind: latex, sha256: "{digest}"}}' in _card(project)
    assert SourceCache(project / "source-cache").blob(digest) == fixture_eprint()


def test_lint_and_status_check_quotes_once_the_source_is_cached(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["papers", "fetch", "--pin"]) == 0
    capsys.readouterr()
    assert main(["lint"]) == 0
    out = capsys.readouterr().out
    assert "quotes not checked" not in out
    assert ("claim 'misplaced': quote found in §3.2, not at tab. 1 (if that is its place, cite "
            "`§3.2`)") in out
    assert main(["status", "--format", "json"]) == 0
    rows = {row["claim"]: row for row in __import__("json").loads(capsys.readouterr().out)}
    assert rows[f"{ARXIV}/params"]["verdict"] == "verified"
    assert rows[f"{ARXIV}/params"]["basis"] == "textual"
    assert rows[f"{ARXIV}/ensemble"]["verdict"] == "verified"
    assert rows[f"{ARXIV}/misplaced"]["verdict"] == "unverified"
    assert "not at tab. 1" in rows[f"{ARXIV}/misplaced"]["reason"]


def test_a_misquote_is_a_lint_error(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["papers", "fetch", "--pin"]) == 0
    text = _card(project).replace("Ensemble of 30 networks 0.16", "Ensemble of 10 networks 0.16")
    (project / "wiki" / "papers" / "tiny.md").write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["lint"]) == 1
    out = capsys.readouterr().out
    line = text.split("\n").index('    quote: "Ensemble of 10 networks 0.16"') + 1
    assert (f"wiki/papers/tiny.md:{line}:12: error: claim 'ensemble': quote not found in the "
            "paper's source") in out


def test_a_plain_page_citation_quote_is_checked_too(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["papers", "fetch", "--pin"]) == 0
    (project / "wiki" / "notes.md").write_text(
        f'# Notes\n\nThe table [arxiv:{ARXIV} tab. 1 "Ours 7.77"].\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["lint"]) == 1
    assert (f'wiki/notes.md:3:11: error: [arxiv:{ARXIV} tab. 1 "Ours 7.77"]: quote not found '
            "in the paper's source") in capsys.readouterr().out


def test_a_pinned_fetch_whose_hash_differs_is_refused_and_stores_nothing(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pin = "0" * 64
    text = _card(project).replace(
        f'arxiv: "{ARXIV}"', f'arxiv: "{ARXIV}"\nsource: {{version: 1, sha256: "{pin}"}}')
    (project / "wiki" / "papers" / "tiny.md").write_text(text, encoding="utf-8")
    assert main(["papers", "fetch", ARXIV]) == 1
    err = capsys.readouterr().err
    served = sha256_of(server[f"/e-print/{ARXIV}v1"])
    assert "refused http://127.0.0.1:" in err and f"its sha256 is {served}" in err
    assert "nothing was stored" in err
    cache = project / "source-cache"
    assert not (cache / "blobs").exists() or not any((cache / "blobs").iterdir())
    assert _card(project) == text


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_refused_fetch_loses_nothing_already_cached(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["papers", "fetch", "--pin"]) == 0
    good = sha256_of(fixture_eprint())
    cache = project / "source-cache"
    before = _snapshot(cache)
    text = _card(project).replace(f'version: 2, kind: latex, sha256: "{good}"',
                                  f'version: 1, kind: latex, sha256: "{"f" * 64}"')
    (project / "wiki" / "papers" / "tiny.md").write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["papers", "fetch", "tiny-capsules"]) == 1
    err = capsys.readouterr().err.splitlines()
    pin_line = text.split("\n").index("source: {version: 1, kind: latex, sha256: "
                                      f'"{"f" * 64}"}}') + 1
    assert err[0].startswith(f"wiki/papers/tiny.md:{pin_line}:1: error: {ARXIV}: refused ")
    assert "nothing was stored" in err[0]
    assert _snapshot(cache) == before  # the earlier version's blob and record are untouched
    assert SourceCache(cache).blob(good) == fixture_eprint()
    assert _card(project) == text


def test_a_pinned_fetch_takes_the_pinned_version_not_the_latest(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = sha256_of(fixture_eprint())
    text = _card(project).replace(
        f'arxiv: "{ARXIV}"', f'arxiv: "{ARXIV}"\nsource: {{version: 2, sha256: "{digest}"}}')
    (project / "wiki" / "papers" / "tiny.md").write_text(text, encoding="utf-8")
    assert main(["papers", "fetch", "tiny-capsules"]) == 0
    assert f"/e-print/{ARXIV}v2" in REQUESTS
    assert not any(path.startswith("/api/") for path in REQUESTS)
    assert main(["papers", "fetch"]) == 0
    assert "already cached" in capsys.readouterr().out


def test_other_identifiers_say_what_they_can_fetch(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    papers = project / "wiki" / "papers"
    (papers / "em.md").write_text(
        "---\nkind: paper\nslug: em-routing\nopenreview: HJWLfGWRb\ntitle: Matrix capsules "
        "with EM routing\nauthors: [G. Hinton]\nyear: 2018\nupdated_at: 2026-11-29\n---\n")
    (papers / "doi.md").write_text(
        "---\nkind: paper\nslug: journal-paper\ndoi: 10.1038/s41598-021-93977-0\ntitle: A "
        "journal paper\nauthors: [A. B.]\nyear: 2021\nupdated_at: 2026-11-29\n---\n")
    assert main(["papers", "fetch", "openreview:HJWLfGWRb", "--pin"]) == 0
    out = capsys.readouterr().out
    assert "openreview:HJWLfGWRb: fetched pdf" in out
    assert "a PDF: locators and quotes cannot be checked against it" in out
    assert "source: {kind: pdf, sha256:" in (papers / "em.md").read_text()
    assert main(["papers", "fetch", "doi:10.1038/s41598-021-93977-0"]) == 1
    assert "a DOI names a landing page, not a file" in capsys.readouterr().err


def test_an_unknown_id_is_a_usage_error(
    server: dict[str, bytes], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["papers", "fetch", "https://doi.org/10.1/x"]) == 2
    assert "write `doi:10.1/x`" in capsys.readouterr().err
