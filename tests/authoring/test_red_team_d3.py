"""A fresh red-team's cases (issue 35 item 2), on a wiki made by ``claimcheck init``: a forward
with no return annotation that returns several tensors, bracketed near-citations of other
spellings, and template placeholders in angle brackets."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.cards.citations import scan_citations
from claimcheck.cli.main import main

MODELS = '''

from typing import NamedTuple


class Pair(NamedTuple):
    """Two parts."""

    out: torch.Tensor
    aux: torch.Tensor


@register_model("two-tuple", {"tiny": lambda: AttentionConfig()})
class TwoTuple(nn.Module):
    """No annotation: a tuple literal on every path."""

    def __init__(self, config: AttentionConfig) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):  # type: ignore[no-untyped-def]
        if x.ndim > 2:
            return self.lin(x), x
        return self.lin(x), x.sum(-1)


@register_model("two-dict", {"tiny": lambda: AttentionConfig()})
class TwoDict(TwoTuple):
    """No annotation: a dict literal."""

    def forward(self, x):  # type: ignore[no-untyped-def]
        return {"out": self.lin(x), "aux": x.sum(-1)}


@register_model("two-named", {"tiny": lambda: AttentionConfig()})
class TwoNamed(TwoTuple):
    """No annotation: a NamedTuple built in the return."""

    def forward(self, x):  # type: ignore[no-untyped-def]
        return Pair(self.lin(x), x.sum(-1))


@register_model("one-or-other", {"tiny": lambda: AttentionConfig()})
class OneOrOther(TwoTuple):
    """Returns differ (a tensor on one path): lint cannot know, verify decides."""

    def forward(self, x):  # type: ignore[no-untyped-def]
        if x.ndim > 2:
            return self.lin(x)
        return self.lin(x), x
'''


def _claim(ident: str, model: str) -> str:
    return (f"  - id: {ident}\n    cite: §3.2\n    statement: >-\n      The {model} output.\n"
            f"    check: shapes\n    args: {{model: {model}, preset: tiny, input: [2, 4]}}\n"
            "    expect: {equals: [2, 3]}\n")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("d3") / "wiki-d3"
    assert main(["init", str(root)]) == 0
    registry = root / "wiki_checks" / "registry.py"
    registry.write_text(registry.read_text(encoding="utf-8") + MODELS, encoding="utf-8")
    card = root / "wiki" / "papers" / "attention-is-all-you-need.md"
    text = card.read_text(encoding="utf-8")
    claims = "".join(_claim(f"shape-{m}", m)
                     for m in ("two-tuple", "two-dict", "two-named", "one-or-other"))
    card.write_text(text.replace("---\n## Method", claims + "---\n## Method", 1),
                    encoding="utf-8")
    return root


@pytest.fixture
def wiki(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "wiki-d3"
    shutil.copytree(template, root)
    monkeypatch.chdir(root)
    yield root


def _lint(capsys: pytest.CaptureFixture[str]) -> str:
    main(["lint"])
    return capsys.readouterr().out


def test_unannotated_forward_returning_several_tensors_needs_field(
        wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _lint(capsys)
    assert "model 'two-tuple' returns 2 tensors: give field:, one of 0, 1" in out
    assert "model 'two-dict' returns 2 tensors: give field:, one of out, aux" in out
    assert "model 'two-named' returns 2 tensors: give field:, one of out, aux" in out
    assert "'one-or-other'" not in out  # returns disagree: not judged before verify


def test_angled_template_placeholders_warn(wiki: Path, capsys: pytest.CaptureFixture[str]
                                           ) -> None:
    card = wiki / "wiki" / "papers" / "attention-is-all-you-need.md"
    text = card.read_text(encoding="utf-8")
    text = text.replace('title: "Attention Is All You Need"', 'title: "<title>"')
    text = text.replace("## Method\n", "## Method\n\n<what the paper proposes>\n\nFIXME\n")
    card.write_text(text, encoding="utf-8")
    out = _lint(capsys)
    assert ":5:9: warning: placeholder left by `claimcheck new`: <title>" in out
    assert "placeholder left by `claimcheck new`: <what the paper proposes>" in out
    assert "placeholder left by `claimcheck new`: FIXME" in out


@pytest.mark.parametrize(("text", "meant"), [
    ("[HJWLfGWRb §3.1]", "[openreview:HJWLfGWRb §3.1]"),
    ("[BJxH22EKPS tab. 1]", "[openreview:BJxH22EKPS tab. 1]"),
    ("[10.1234/abc p. 3]", "[doi:10.1234/abc p. 3]"),
    ("[openreview HJWLfGWRb §3.1]", "[openreview:HJWLfGWRb §3.1]"),
    ("[1706.03762, §3.2]", "[arxiv:1706.03762 §3.2]"),
])
def test_near_misses_warn_with_the_citation_meant(text: str, meant: str) -> None:
    _, problems = scan_citations(f"Prose {text} more.\n", "card.md")
    assert [(p.warning, p.hint) for p in problems] == [(True, f"did you mean `{meant}`?")]


@pytest.mark.parametrize(("text", "meant"), [
    ("[arxiv 2101.12491 tab. 2]", "[arxiv:2101.12491 tab. 2]"),
    ("[arXiv:2101.12491, tab. 2]", "[arxiv:2101.12491 tab. 2]"),
    ("[arXiv: 1706.03762 §3.2]", "[arxiv:1706.03762 §3.2]"),
    ("[arxiv:2101.12491 table 2]", "[arxiv:2101.12491 tab. 2]"),
    ("[arxiv:1706.03762 section 3]", "[arxiv:1706.03762 §3]"),
])
def test_malformed_citations_name_the_repaired_one(text: str, meant: str) -> None:
    _, problems = scan_citations(f"Prose {text} more.\n", "card.md")
    assert [(p.warning, p.hint) for p in problems] == [(False, f"did you mean `{meant}`?")]


@pytest.mark.parametrize("prose", ["[Vaswani et al. §3]", "[see Appendix A]", "[Figure 2]"])
def test_prose_in_brackets_is_left_alone(prose: str) -> None:
    assert scan_citations(f"Prose {prose} more.\n", "card.md") == ([], [])


def test_a_card_that_does_not_load_hides_no_other_error(
        wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A schema error in one claim: the other claims' locator, args and catches errors are still
    reported, and citations of the card say it does not load (not that there is no card)."""
    card = wiki / "wiki" / "papers" / "attention-is-all-you-need.md"
    text = card.read_text(encoding="utf-8")
    text = text.replace("    cite: §3.2.2\n    basis: paper-vs-code\n    statement: >-\n"
                        "      With d_model", "    cite: table 2\n    basis: paper-vs-code\n"
                        "    statement: >-\n      With d_model", 1)
    text = text.replace("args: {d_model: 512, heads: 8}", "args: {d_model: 512, heads: 8, "
                        "hedas: 3}").replace("catches: [one-head]", "catches: [one-haed]")
    text = text.replace("expect: {approx: 1048576, rel_tol: 0.005}",
                        'expect: {approx: "1M", rel_tol: 0.005}')
    card.write_text(text, encoding="utf-8")
    out = _lint(capsys)
    assert "unknown locator 'table 2' (did you mean `tab. 2`)" in out
    assert "unknown key 'hedas' (did you mean 'heads'?)" in out
    assert "catches: unknown wrong variant 'one-haed' (did you mean 'one-head'?)" in out
    assert "expect.approx: input should be a valid integer or a valid number" in out
    assert "which has no paper card" not in out
    assert ("cites arXiv 1706.03762, whose paper card wiki/papers/attention-is-all-you-need.md "
            "does not load") in out


def test_the_guides_near_miss_examples_warn_with_the_citation_meant() -> None:
    """Every bracketed example the authoring guide calls a near miss warns, outside code."""
    guide = (Path(__file__).resolve().parents[2] / "wiki" / "authoring.md").read_text(
        encoding="utf-8")
    paragraph = guide.split("- Text that looks like a citation and is not one", 1)[1]
    examples = re.findall(r"`(\[[^`]+\])`", paragraph.split("\n\n", 1)[0])
    assert len(examples) == 4
    for example in examples:
        _, problems = scan_citations(f"Prose {example} more.\n", "card.md")
        assert [p.warning for p in problems] == [True], example
        assert problems[0].hint is not None and problems[0].hint.startswith("did you mean `[")


@pytest.mark.parametrize("command", ["verify", "status"])
def test_an_only_pattern_that_matches_nothing_says_so(
        wiki: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A card-slug pattern (a global id starts with the paper key) selects nothing: an error
    that says how patterns match, not a silent "ran 0" that reads like a clean run."""
    code = main([command, "--only", "attention-is-all-you-need/head*"])
    captured = capsys.readouterr()
    assert code == 2
    assert ("--only 'attention-is-all-you-need/head*' matches no claim: a pattern is matched "
            "against a claim's global id") in captured.err


def test_status_mentions_a_result_no_card_claims(
        wiki: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = wiki / ".claimcheck" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "1706.03762__renamed-away.json").write_text("{}\n", encoding="utf-8")
    assert main(["status"]) == 0
    err = capsys.readouterr().err
    assert "note: 1 result file(s) no card claims" in err
    assert "1706.03762__renamed-away.json" in err


@pytest.mark.parametrize(("key", "command"), [
    ("doi:10.1038/nature14539", "claimcheck new paper --doi 10.1038/nature14539"),
    ("openreview:HJWLfGWRb", "claimcheck new paper --openreview HJWLfGWRb"),
])
def test_papers_fetch_without_a_card_names_the_new_command(
        wiki: Path, key: str, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["papers", "fetch", key]) == 2
    assert f"write one with `{command}`" in capsys.readouterr().err
