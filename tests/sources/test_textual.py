"""A ``textual`` claim is decided by its quote, in ``verify`` (every format) and ``status``:
verified only when the quote is found at the claim's locator in the cached source, otherwise
unverified with the reason, also when the source is missing, corrupt or a PDF. Quotes in a
concept card's citations are checked by lint the same way as a paper card's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from claimcheck.cards.frontmatter import SourceKind
from claimcheck.cli.main import main
from claimcheck.sources.cache import SourceCache, sha256_of
from tests.sources.paper_fixture import fixture_eprint

ARXIV = "2101.00001"
PDF = b"%PDF-1.4\n% a stand-in for an OpenReview PDF\n"

# (claim id, cite, quote, extra YAML line or "", verdict, reason fragment, quote state)
CLAIMS: list[tuple[str, str, str, str, str, str, str]] = [
    ("across-lines", "§3.2", "the MNIST network has 161,824 trainable parameters", "",
     "verified", "", "found"),
    ("table-cell", "tab. 1", "Ours 161 0.26", "", "verified", "", "found"),
    ("starred", "§2.1", "‖v‖ < 1 for every s", "", "verified", "", "found"),
    ("two-places", "[tab. 2, tab. 3]", "Ours 5.1", "", "verified", "", "found"),
    ("elsewhere", "tab. 1", "161,824 trainable parameters", "", "unverified",
     "quote found in §3.2, not at tab. 1 (cite §3.2 if that is the claim's place)",
     "elsewhere"),
    ("misquoted", "tab. 3", "Ours 5.0", "", "unverified",
     "quote not found in the paper's source", "not-found"),
    ("page", "p. 4", "reports an error of 5.0%", "", "unverified", "p. 4", "uncheckable"),
    ("reasoned", "§4", "reports an error of 5.0%", "    unverified: the table disagrees\n",
     "unverified", "the table disagrees", "found"),
]


def _claim(row: tuple[str, str, str, str, str, str, str]) -> str:
    name, cite, quote, extra = row[:4]
    return (f"  - id: {name}\n    cite: {cite}\n    basis: textual\n    statement: Said.\n"
            f"    quote: {json.dumps(quote, ensure_ascii=False)}\n{extra}")


def _paper(pin: str) -> str:
    return (f'---\nkind: paper\nslug: tiny-capsules\narxiv: "{ARXIV}"\n{pin}title: "Tiny"\n'
            "authors: [Ada Author]\nyear: 2021\nupdated_at: 2026-11-29\nclaims:\n"
            + "".join(_claim(row) for row in CLAIMS) + "---\nTiny capsules.\n")


OPENREVIEW = """---
kind: paper
slug: em-routing
openreview: HJWLfGWRb
title: "Matrix capsules with EM routing"
authors: [G. Hinton]
year: 2018
updated_at: 2026-11-29
claims:
  - id: iterations
    cite: §3
    basis: textual
    statement: Three iterations.
    quote: "three iterations of routing"
---
"""

CONCEPT = f"""---
kind: concept
slug: tiny-notes
title: Notes on tiny capsules
papers: ["{ARXIV}"]
updated_at: 2026-11-29
---
The count [arxiv:{ARXIV} §3.2 "has 161{{,}}824 trainable"] is in the text,
the ensemble [arxiv:{ARXIV} tab. 1 "Ensemble of 30 networks"] in a table,
the count again [arxiv:{ARXIV} tab. 1 "161,824 trainable parameters"],
and a misquote [arxiv:{ARXIV} tab. 2 "Ours 2.45"].
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A wiki whose arXiv paper is pinned and cached, and whose OpenReview paper is a PDF."""
    (tmp_path / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n')
    papers = tmp_path / "wiki" / "papers"
    papers.mkdir(parents=True)
    # the operator's cache, outside the project: a cache inside it serves pinned sources only
    folder = tmp_path.with_name(f"{tmp_path.name}-cache")
    cache = SourceCache(folder)
    digest = cache.store(ARXIV, 2, SourceKind.LATEX, "fixture", fixture_eprint())
    cache.store("openreview:HJWLfGWRb", None, SourceKind.PDF, "fixture", PDF)
    pin = f'source: {{version: 2, kind: latex, sha256: "{digest}"}}\n'
    (papers / "tiny.md").write_text(_paper(pin), encoding="utf-8")
    (papers / "em.md").write_text(OPENREVIEW, encoding="utf-8")
    monkeypatch.setenv("CLAIMCHECK_SOURCES", str(folder))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _rows(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, str]]:
    assert main(argv) == 0  # an unverified textual claim fails nothing
    return {row["claim"].split("/")[-1]: row for row in json.loads(capsys.readouterr().out)}


@pytest.mark.parametrize("command", ["verify", "status"])
def test_each_textual_claim_is_decided_by_its_quote(
    project: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    rows = _rows([command, "--format", "json"], capsys)
    for name, _, quote, _, verdict, reason, state in CLAIMS:
        row = rows[name]
        assert (row["verdict"], row["basis"], row["quote"], row["quote_state"]) == (
            verdict, "textual", quote, state), name
        assert reason in row["reason"], (name, row["reason"])
        assert bool(row["reason"]) == (verdict != "verified"), name
    em = rows["iterations"]
    assert (em["verdict"], em["quote_state"]) == ("unverified", "no-source")
    assert em["reason"] == ("quote not checked: the cached source is a PDF, which has no "
                            "locator index")


def test_junit_passes_the_verified_and_skips_the_rest_with_the_reason(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--format", "junit"]) == 0
    cases = {case.get("name", "").split("/")[-1]: case
             for case in ElementTree.fromstring(capsys.readouterr().out).iter("testcase")}
    for name, *_, verdict, reason, _state in CLAIMS:
        skipped = cases[name].find("skipped")
        assert (skipped is None) == (verdict == "verified"), name
        if skipped is not None:
            assert reason in skipped.get("message", ""), name


PINNED = "the pinned source (sha256 {pin:.12}…) is not cached: run `claimcheck papers fetch {key}`"
UNPINNED = ("the paper's source is not cached: run `claimcheck papers fetch {key}` (add --pin to "
            "pin it)")


@pytest.mark.parametrize(("damage", "why"), [
    ("pin-absent", PINNED), ("blob-corrupt", PINNED), ("unpinned-uncached", UNPINNED)])
def test_without_the_source_no_textual_claim_is_verified(
    project: Path, capsys: pytest.CaptureFixture[str], damage: str, why: str
) -> None:
    card = project / "wiki" / "papers" / "tiny.md"
    pin = sha256_of(fixture_eprint())
    if damage == "pin-absent":
        pin = "f" * 64
        card.write_text(_paper(f'source: {{version: 2, sha256: "{pin}"}}\n'), encoding="utf-8")
    elif damage == "blob-corrupt":
        (project.with_name(f"{project.name}-cache") / "blobs" / pin).write_bytes(b"changed")
    else:
        card.write_text(_paper(""), encoding="utf-8")
        (project.with_name(f"{project.name}-cache") / "blobs" / pin).unlink()
    rows = _rows(["verify", "--format", "json"], capsys)
    for name, *_ in CLAIMS:
        assert (rows[name]["verdict"], rows[name]["quote_state"]) == ("unverified", "no-source")
        if name != "reasoned":  # the author's own reason stands
            expected = "quote not checked: " + why.format(pin=pin, key=ARXIV)
            assert rows[name]["reason"] == expected, name


def test_a_concept_cards_quoted_citations_are_checked_like_a_claims(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    concepts = project / "wiki" / "concepts"
    concepts.mkdir()
    (concepts / "notes.md").write_text(CONCEPT, encoding="utf-8")
    assert main(["lint"]) == 1
    found = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith("wiki/concepts/notes.md")]
    assert found == [
        f'wiki/concepts/notes.md:10:17: warning: [arxiv:{ARXIV} tab. 1 "161,824 trainable '
        "parameters\"]: quote found in §3.2, not at tab. 1 (if that is its place, cite "
        "`§3.2`)",
        f'wiki/concepts/notes.md:11:16: error: [arxiv:{ARXIV} tab. 2 "Ours 2.45"]: quote not '
        "found in the paper's source",
    ]
