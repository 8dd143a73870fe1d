"""Output a person can read (issue 24 §3): wrapped rows at 80 and 120 columns with every figure
whole, one summary line at the end of every run, and a piped verify that gives each reason."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from claimcheck.cli.main import main
from claimcheck.reports.formats import render_status, render_text
from claimcheck.reports.rows import ClaimRow
from claimcheck.reports.text import summary_line
from tests.engine.conftest import ProjectFactory, claim

LONG = ("The MNIST network has 161K trainable parameters without its decoder, which the "
        "official code's network matches with 161,824 when the table's thousands column drops "
        "the remainder; read as rounding instead, see the claim without its norms.")
CONTRADICTED = ClaimRow(
    claim="2101.12491/mnist-params-without-decoder-and-norms", card="wiki/papers/efficient.md",
    line=30, statement=LONG, verdict="contradicted",
    reason="measured 161,824.25 is outside 161,000 ± 0.5% by 19.75 (the official code keeps "
           "four batch norms whose gains and biases the paper may not count)",
    measured=161824.25, expected={"approx": 161000, "rel_tol": 0.005}, fidelity="exact",
    stale=False, duration_s=0.5, tier="static", budget="smoke", device="cpu",
    basis="paper-vs-code",
)
UNVERIFIED = replace(CONTRADICTED, claim="2101.12491/smallnorb-error", verdict="unverified",
                     measured=None, reason="proxy measurement: the claim does not accept "
                     "proxies (a 500-image run stands in for the paper's protocol)")
VERIFIED = replace(CONTRADICTED, claim="2101.12491/ok", verdict="verified", reason="",
                   measured=161824, expected={"between": [161000, 161999]})
ROWS = [VERIFIED, CONTRADICTED, UNVERIFIED]


class Terminal(io.StringIO):
    """A text stream that says it is a terminal, as ``status`` asks."""

    def isatty(self) -> bool:
        return True


def _terminal(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, force_terminal=True, color_system=None), out


def _lines_fit(text: str, width: int) -> None:
    for line in text.splitlines():
        assert len(line) <= width or " " not in line.strip(), f"{len(line)} > {width}: {line}"


def _figures_whole(text: str, figures: tuple[float, ...] = (161824.25, 161000, 161999)) -> None:
    from claimcheck.verdicts.verdict import format_value

    for figure in map(format_value, figures):
        assert figure in text, (figure, text)


@pytest.mark.parametrize("width", [80, 120])
def test_verify_rows_wrap_at_the_terminal_width_and_keep_every_figure(width: int) -> None:
    console, out = _terminal(width)
    render_text(ROWS, console, verbose=True)
    text = out.getvalue()
    _lines_fit(text, width)
    _figures_whole(text, (161824.25, 161000))
    assert "2101.12491/mnist-params-without-decoder-and-norms" in text
    assert "reason: measured" in text and "accept proxies" in " ".join(text.split())
    statement_lines = [line for line in text.splitlines() if line.startswith("    The MNIST")]
    assert statement_lines, text
    assert len(" ".join(text.split())) > 0 and " ".join(LONG.split()) in " ".join(text.split())


def test_verify_is_compact_by_default_and_keeps_every_figure_and_reason() -> None:
    """Issue 35: the statement (the card has it) only with --verbose; nothing is cut."""
    console, out = _terminal(80)
    render_text(ROWS, console)
    text = out.getvalue()
    _lines_fit(text, 80)
    _figures_whole(text, (161824.25, 161000))
    assert "The MNIST" not in text
    assert "four batch norms whose gains and biases the paper may not count" in " ".join(
        text.split())
    assert "accept proxies (a 500-image run stands in" in " ".join(text.split())


@pytest.mark.parametrize("width", [80, 120])
def test_status_rows_wrap_at_the_terminal_width_and_keep_every_figure(width: int,
                                                                     monkeypatch: pytest.MonkeyPatch
                                                                     ) -> None:
    out = Terminal()
    monkeypatch.setenv("COLUMNS", str(width))
    render_status(ROWS, out)
    text = out.getvalue()
    _lines_fit(text, width)
    _figures_whole(text)
    assert text.count("reason:") == 2


def test_a_piped_verify_gives_every_unverified_and_contradicted_reason() -> None:
    out = io.StringIO()
    render_text(ROWS, Console(file=out, width=160))
    text = out.getvalue()
    assert "proxy measurement: the claim does not accept proxies" in text
    assert "is outside 161,000" in text
    assert text.count("2101.12491/ok") == 0  # verified claims are counted, not listed


def test_the_summary_line_counts_the_run() -> None:
    rows = [replace(VERIFIED, ran=True), replace(CONTRADICTED, stale=True),
            replace(UNVERIFIED, error="Traceback", ran=True)]
    assert summary_line(rows, 12.345) == (
        "ran 2, up to date 0: verified 1, contradicted 1, unverified 1, stale 1, errors 1 "
        "(12.3 s)")


@pytest.mark.parametrize("format_", ["text", "json"])
def test_every_verify_run_ends_with_one_summary_line(
    make_project: ProjectFactory, capsys: pytest.CaptureFixture[str], format_: str
) -> None:
    project = make_project({"2101.00031": [
        claim("holds-yes", "tinymodels.checks:holds", {"holds": True}),
        claim("holds-no", "tinymodels.checks:holds", {"holds": True}, args={"value": False}),
        {"id": "later", "cite": "§4", "statement": "No check yet.", "unverified": "no code"},
    ]})
    wiki = str(Path(project) / "wiki")
    main(["verify", wiki, "--device", "cpu", "--format", format_])
    first = capsys.readouterr()
    main(["verify", wiki, "--device", "cpu", "--format", format_])
    second = capsys.readouterr()
    pattern = (r"^ran (\d+), up to date (\d+): verified 1, contradicted 1, unverified 1, "
               r"stale 0, errors 0 \(\d+\.\d s\)$")
    for captured, ran, fresh in ((first, 2, 1), (second, 0, 3)):
        stream = captured.out if format_ == "text" else captured.err
        last = stream.strip().splitlines()[-1]
        found = re.match(pattern, last)
        assert found, last
        assert (int(found[1]), int(found[2])) == (ran, fresh)
    if format_ == "text":
        assert "no code" in first.out  # the unverified claim's reason, piped
