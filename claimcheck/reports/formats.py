"""The four output formats of ``claimcheck verify`` / ``status``.

One :class:`~claimcheck.reports.rows.ClaimRow` per claim, whatever happened to it this run (ran,
cached, stale, never run, unverified by design). Formats (:class:`OutputFormat`):

* ``text``: the counts per verdict (and per basis: what each verdict is evidence of), then
  every claim not verified with measured against expected, its card's ``path:line`` and its
  reason (:mod:`claimcheck.reports.text`: wrapped blocks on a terminal, plain lines elsewhere);
* ``json``: the list of rows, the contract documented in the README (each with its ``basis``,
  ``quote``, ``quote_state`` and ``secondary_source``);
* ``junit``: one test case per claim (contradicted = failure, errored = error, other unverified
  = skipped), for CI dashboards, with ``basis`` (and the quote's state) as properties;
* ``github``: workflow commands, exactly ``::error file=PATH,line=N::message`` for contradicted
  and errored claims and ``::warning file=PATH,line=N::message`` for other unverified ones; the
  message is ``ID: verdict: reason (basis: B)``.

Every line printed for a person (``text``, ``status``, ``github``, JUnit's texts) quotes stored
files and cards, which a pull request writes: control and escape sequences in it are shown
escaped (:func:`claimcheck.core.visible.visible`), never obeyed by the terminal or the runner.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections import Counter
from enum import Enum
from typing import TYPE_CHECKING, TextIO

from claimcheck.core import strict_json
from claimcheck.core.visible import visible
from claimcheck.reports.power import missed_message, power_lines, power_summary
from claimcheck.reports.rows import ClaimRow
from claimcheck.reports.text import MARKS, claim_block, expected_text, plain_line, wrapped
from claimcheck.verdicts.verdict import Verdict

if TYPE_CHECKING:  # rich is imported by the text formats only
    from rich.console import Console


class OutputFormat(str, Enum):
    """How ``verify`` and ``status`` print their report on stdout."""

    TEXT = "text"
    JSON = "json"
    JUNIT = "junit"
    GITHUB = "github"


def render(rows: list[ClaimRow], style: OutputFormat, out: TextIO, debug: bool = False,
           verbose: bool = False) -> None:
    """Write ``rows`` to ``out`` in ``style`` (``verbose``: text blocks whole, see
    :func:`claimcheck.reports.text.claim_block`)."""
    if style is OutputFormat.JSON:
        out.write(strict_json.dumps([row.to_json() for row in rows], indent=2) + "\n")
    elif style is OutputFormat.JUNIT:
        out.write(junit_xml(rows))
    elif style is OutputFormat.GITHUB:
        for line in github_lines(rows):
            out.write(line + "\n")
    else:
        render_text(rows, _console(out), debug, verbose)


def _console(out: TextIO) -> Console:
    """A console on ``out``; off a terminal, wide enough that ids and paths stay whole."""
    from rich.console import Console

    console = Console(file=out, highlight=False, soft_wrap=False)
    if not console.is_terminal:
        console.width = max(console.width, 160)
    return console


SECONDARY_LEGEND = ("†: the claim's locator or figure rests on a secondary source (see "
                    "`secondary_source` in its card or the JSON output)")
"""What ``†`` after a basis means, printed by ``verify`` and ``status`` wherever it shows."""
POWER_LINES = 6
"""Power lines a compact report prints before it says how many more ``--verbose`` shows."""


def render_text(rows: list[ClaimRow], console: Console, debug: bool = False,
                verbose: bool = False) -> None:
    """The counts per verdict (and per basis), then every claim not verified (or errored) with
    its reason, then the legend of its marks and a stale note."""
    width = console.width if console.is_terminal else 10_000
    console.print("claimcheck verdicts", markup=False, highlight=False)
    for verdict in Verdict:
        chosen = [row for row in rows if row.verdict == verdict.value]
        stale = sum(row.stale for row in chosen)
        by_basis = basis_counts(rows, verdict.value)
        text = (f"{MARKS[verdict.value]} {verdict.value} {len(chosen)}"
                + (f" ({stale} stale)" if stale else "") + (f": {by_basis}" if by_basis else ""))
        for line in wrapped(text, width, indent="  "):
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
    errored = sum(row.errored for row in rows)
    console.print(f"  of the unverified, errored (the check raised, timed out or died): "
                  f"{errored}", markup=False, highlight=False, soft_wrap=True)
    problems = [row for row in rows if row.verdict != Verdict.VERIFIED.value or row.errored]
    if problems:
        console.print(f"\n{len(problems)} claim(s) not verified, each with its reason:",
                      markup=False, highlight=False)
        _print_rows(console, problems, verbose)
        if any(row.secondary_source for row in problems):
            console.print(SECONDARY_LEGEND, markup=False, highlight=False)
    stale_rows = [row for row in rows if row.stale]
    if stale_rows:
        console.print(
            f"[yellow]{len(stale_rows)} stale result(s)[/]: shown from an earlier run whose "
            "inputs have changed; run `claimcheck verify` to refresh them."
        )
    for line in _capped(power_lines(list(rows)), verbose or not console.is_terminal):
        console.print(visible(line), markup=False, highlight=False)
    if debug:
        for row in problems:
            if row.error and row.errored:
                console.print(f"\n{visible(row.claim)} ({visible(row.where())})\n"
                              f"{visible(row.error, keep_newlines=True)}", markup=False,
                              highlight=False)


def _capped(lines: list[str], whole: bool) -> list[str]:
    """Power lines, the first :data:`POWER_LINES` of them unless ``whole``."""
    if whole or len(lines) <= POWER_LINES:
        return lines
    return [*lines[:POWER_LINES - 1], f"  … and {len(lines) - POWER_LINES + 1} more power "
            "line(s): `--verbose` shows them"]


UNSTATED = "unstated"
"""The basis shown for a claim that states none and whose check does not imply one."""


def _basis(row: ClaimRow) -> str:
    return row.basis or UNSTATED


def _basis_shown(row: ClaimRow) -> str:
    """The basis in a table, marked † when the claim rests on a secondary source."""
    return _basis(row) + ("†" if row.secondary_source else "")


def basis_columns(rows: list[ClaimRow]) -> list[str]:
    """The bases present in ``rows``, in the legend's order (unstated last)."""
    from claimcheck.cards.basis import BASIS_ORDER

    present = {_basis(row) for row in rows}
    return [b.value for b in BASIS_ORDER if b.value in present] + (
        [UNSTATED] if UNSTATED in present else [])


def basis_counts(rows: list[ClaimRow], verdict: str) -> str:
    """``16 paper-vs-code, 18 implementation`` for the rows with ``verdict``."""
    counts = Counter(_basis(row) for row in rows if row.verdict == verdict)
    return ", ".join(f"{counts[b]} {b}" for b in basis_columns(rows) if counts[b])


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_command(
    command: str, path: str, line: int, message: str, col: int | None = None
) -> str:
    """One GitHub workflow command, ``::error file=PATH,line=N::message``, escaped as GitHub
    requires (``%``, CR and LF everywhere; ``:`` and ``,`` in properties too), after every
    control character was made visible (a stored ``\r`` or ``\x1b`` is shown, not obeyed)."""
    where = f"file={_escape_property(visible(path))},line={line}"
    if col is not None:
        where += f",col={col}"
    return f"::{command} {where}::{_escape_data(visible(message))}"


def github_lines(rows: list[ClaimRow]) -> list[str]:
    """GitHub workflow commands for every claim that is not verified and fresh.

    Contradicted and errored claims are errors; other unverified and stale ones are warnings.
    """
    lines = []
    for row in rows:
        if row.verdict == "verified" and not row.stale:
            continue
        command = "error" if row.verdict == "contradicted" or row.errored else "warning"
        label = "errored" if row.errored else row.verdict
        stale = " (stale)" if row.stale else ""
        message = f"{row.claim}: {label}{stale}: {row.reason or row.statement}"
        if row.basis:
            secondary = (f"; from a secondary source: {row.secondary_source}"
                         if row.secondary_source else "")
            message += f" (basis: {row.basis}{secondary})"
        lines.append(github_command(command, row.card, row.line, message))
    for row in rows:
        missed = missed_message(row)
        if missed:
            lines.append(github_command("warning", row.card, row.line, missed))
    return lines


def junit_xml(rows: list[ClaimRow]) -> str:
    """A JUnit XML report: one ``testcase`` per claim."""
    suite = ElementTree.Element("testsuite", name="claimcheck", tests=str(len(rows)))
    tallies = Counter[str]()
    for row in rows:
        case = ElementTree.SubElement(
            suite, "testcase", classname=row.claim.rsplit("/", 1)[0], name=row.claim,
            file=row.card, line=str(row.line), time=f"{row.duration_s or 0:.3f}",
        )
        properties = ElementTree.SubElement(case, "properties")
        for name, value in (("basis", _basis(row)), ("quote_state", row.quote_state),
                            ("secondary_source", row.secondary_source),
                            ("power", power_summary(row))):
            if value:
                ElementTree.SubElement(properties, "property", name=name, value=visible(value))
        text = f"measured {row.measured_text()}, expected {expected_text(row.expected)}"
        if row.errored:
            tallies["errors"] += 1
            node = ElementTree.SubElement(case, "error", message=visible(row.reason))
            node.text = visible(row.error or "", keep_newlines=True)
        elif row.verdict == "contradicted":
            tallies["failures"] += 1
            ElementTree.SubElement(case, "failure", message=visible(row.reason)).text = visible(
                text)
        elif row.verdict == "unverified":
            tallies["skipped"] += 1
            ElementTree.SubElement(case, "skipped", message=visible(row.reason))
        notes = [note for note in ("stale: inputs changed since it ran" if row.stale else None,
                                   missed_message(row)) if note]
        if notes:
            ElementTree.SubElement(case, "system-out").text = visible("\n".join(notes),
                                                                      keep_newlines=True)
    for key in ("failures", "errors", "skipped"):
        suite.set(key, str(tallies[key]))
    body = ElementTree.tostring(suite, encoding="unicode")
    return f'<?xml version="1.0" encoding="utf-8"?>\n{body}\n'


def render_status(rows: list[ClaimRow], out: TextIO, verbose: bool = False) -> None:
    """``claimcheck status`` as text: every claim with its stored verdict and a stale marker.

    A terminal gets one wrapped block per claim (:func:`claimcheck.reports.text.claim_block`);
    anything else (a pipe, a file, CI) gets one plain line per claim,
    ``claim  basis  verdict[ (stale)]  measured M  expected E  card:line  reason``, which greps
    well.
    """
    counts = Counter(row.verdict for row in rows)
    stale = sum(row.stale for row in rows)
    summary = ", ".join(f"{counts[v.value]} {v.value}" for v in Verdict)
    errored = sum(row.errored for row in rows)
    totals = [f"{len(rows)} claim(s): {summary}; {stale} stale, {errored} errored"]
    verified = basis_counts(rows, Verdict.VERIFIED.value)
    if verified:
        totals.append(f"verified by basis: {verified}")
    if any(row.secondary_source for row in rows):
        totals.append(SECONDARY_LEGEND)
    totals += _capped(power_lines(list(rows)), verbose or not out.isatty())
    if not out.isatty():
        out.writelines(visible(plain_line(row, _basis_shown(row), verbose)) + "\n"
                       for row in rows)
        out.writelines(visible(line) + "\n" for line in totals)
        return
    console = _console(out)
    console.print("stored verdicts", markup=False, highlight=False)
    _print_rows(console, rows, verbose)
    for line in totals:
        console.print(visible(line), markup=False, highlight=False)


def _print_rows(console: Console, rows: list[ClaimRow], verbose: bool = False) -> None:
    """A wrapped block per claim on a terminal, one plain line each anywhere else."""
    for row in rows:
        if console.is_terminal:
            lines = claim_block(row, console.width, _basis_shown(row), verbose)
        else:
            lines = [plain_line(row, _basis_shown(row), verbose)]
        for line in lines:
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
