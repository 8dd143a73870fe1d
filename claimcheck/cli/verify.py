"""The ``claimcheck verify`` and ``claimcheck status`` commands (wired in by
``claimcheck.cli.main``).

``verify`` runs every selected check that is missing or stale in worker processes, shows a rich
progress display on stderr (overall progress, plus a line per running check fed by its
``ctx.progress`` messages), then prints the report on stdout in the chosen ``--format``.
``--executor ray [--ray-address auto|HOST:PORT]`` hands the checks to Ray instead of the local
pool (:mod:`claimcheck.engine.ray_executor`); everything else is the same.
``status`` prints the stored verdicts with stale markers; it runs nothing and imports no torch.

Exit codes (:class:`~claimcheck.core.exitcodes.ExitCode`) are a function of the selected claims'
results: 1 if any check errored, timed out or died; else 3 if ``--fail-on contradicted`` and any
claim is contradicted; else 0. Usage errors (bad option, missing path, a card that does not
load: one line per card) give 2; Ctrl-C gives 130 after keeping the finished results.
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from collections.abc import Sized
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from claimcheck.cards.wiki import Wiki
from claimcheck.core.config import load_config
from claimcheck.core.errors import ClaimcheckError, UsageError
from claimcheck.core.exitcodes import ExitCode
from claimcheck.core.visible import terminal_width, visible
from claimcheck.engine.executor import MAX_DEFAULT_JOBS, default_jobs
from claimcheck.engine.gate import compare, print_gate, snapshot
from claimcheck.engine.power_run import PowerReport, add_power, run_power
from claimcheck.engine.runner import BUDGETS, RunOptions, matches, stored_row, verify
from claimcheck.engine.tasks import Executor, TaskEvent
from claimcheck.reports.formats import OutputFormat, render, render_status
from claimcheck.reports.rows import ClaimRow
from claimcheck.reports.text import fitted_summary, summary_line
from claimcheck.store.recheck import changed_power_claims, changed_result_claims

if TYPE_CHECKING:  # rich is imported when a display is shown: a cached JSON run skips it
    from rich.console import Console
    from rich.progress import TaskID

_MARKS = {"verified": "[green]✓[/]", "contradicted": "[red]✗[/]", "unverified": "[yellow]?[/]"}


def _positive(kind: type[int] | type[float]) -> type[int] | type[float]:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number: {text!r}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse  # type: ignore[return-value]


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="wiki folder or card file (default: the wiki)")
    parser.add_argument(
        "--format", choices=[f.value for f in OutputFormat], default="text",
        help="report format on stdout (default: text)",
    )
    parser.add_argument(
        "--only", metavar="PATTERN", action="append", default=[],
        help="fnmatch pattern on the claim's global id, the arXiv id or the card slug; "
             "repeat it to select the claims any pattern matches",
    )
    parser.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )
    parser.add_argument(
        "--verbose", "-v", action="store_true",
        help="text: each claim's statement and details too (default: compact, the statement "
             "left to the card and details shown only for contradicted claims)"
    )


def configure_verify_parser(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``claimcheck verify`` to ``parser``."""
    _add_common(parser)
    parser.add_argument("--budget", choices=BUDGETS, default="smoke",
                        help="training budget (default: smoke)")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                        help="auto: cuda when torch sees one, else cpu")
    parser.add_argument("--timeout", type=_positive(float), metavar="SECONDS",
                        help="per-check safety net in the check's CPU seconds, finite and "
                        "positive (default by tier: 120 s; train by budget); crossing it is an "
                        "error, never a verdict")
    parser.add_argument("--jobs", "-j", type=_positive(int), default=default_jobs(),
                        help="worker processes, each check on one torch thread (default: the "
                        f"CPU count, at most {MAX_DEFAULT_JOBS})")
    parser.add_argument("--force", action="store_true", help="re-run even fresh results")
    parser.add_argument("--fail-on", choices=["contradicted"],
                        help="exit 3 when a claim is contradicted")
    parser.add_argument("--seed", type=int, default=0, help="seed handed to every check")
    parser.add_argument("--rerun-on-environment", action="store_true",
                        help="re-run results recorded under another torch, python or platform "
                        "(otherwise a difference is only shown; a claim may ask with rerun_on)")
    parser.add_argument("--recheck-results-changed-since", metavar="GIT_REF",
                        help="also re-run every claim whose result or power file differs from "
                        "GIT_REF (CI: the base of a pull request; the empty tree: all), and exit "
                        "4 when a re-made one differs from the committed one (docs/reliability.md)")
    parser.add_argument("--power", action="store_true",
                        help="then run the wrong variants (only those missing or stale) against "
                        "each verified claim's check, and report what it caught; a training "
                        "claim's variants run at its result's budget, never above --budget "
                        "(docs/power.md)")
    parser.add_argument("--power-scope", choices=["matrix", "listed"], default="matrix",
                        help="with --power: 'matrix' (default) runs every variant the check "
                        "reaches, 'listed' only those its catches: names (a claim whose power "
                        "file a re-check changed still gets its whole matrix)")
    parser.add_argument("--executor", choices=["local", "ray"], default="local",
                        help="local process pool (default), or a Ray cluster")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="auto or HOST:PORT of a running Ray cluster (default: start one)")


def configure_status_parser(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``claimcheck status`` to ``parser``."""
    _add_common(parser)


def _load(path_text: str | None) -> Wiki:
    from claimcheck.cards.wiki import card_files, load_cards, load_wiki

    target = Path(path_text) if path_text else None
    if target is not None and not target.exists():
        raise UsageError(f"{target}: no such file or folder")
    config = load_config(target)
    if target is not None and target.is_file():
        return load_cards(config, card_files(target))
    return load_wiki(config, target)


def _load_or_report(path_text: str | None) -> Wiki | None:
    try:
        wiki = _load(path_text)
    except ClaimcheckError as error:
        print(visible(error.one_line()), file=sys.stderr)
        return None
    for problem in wiki.load_errors:
        print(visible(_opens_from_here(problem, wiki).one_line()), file=sys.stderr)
    return None if wiki.load_errors else wiki


def _opens_from_here(error: ClaimcheckError, wiki: Wiki) -> ClaimcheckError:
    """``error`` with its path as it opens from the working folder (as lint prints it)."""
    if error.path is None:
        return error
    shown = copy.copy(error)
    shown.path = wiki.config.shown(error.path)
    return shown


class ProgressDisplay:
    """Rich progress on stderr: an overall bar and one line per running check."""

    def __init__(self, console: Console, echo: bool) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console
        self.echo = echo
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(),
            TextColumn("{task.fields[note]}", style="dim"), TimeElapsedColumn(),
            console=console, transient=True,
        )
        self.overall: TaskID | None = None
        self.running: dict[str, tuple[TaskID, float]] = {}

    def __enter__(self) -> ProgressDisplay:
        self.progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.progress.stop()

    def planned(self, total: int, device: str | None) -> None:
        """Show the overall bar (nothing when every result is fresh)."""
        if total:
            self.overall = self.progress.add_task(
                f"verify on {device}", total=total, note=f"0/{total}"
            )

    def task_event(self, event: TaskEvent) -> None:
        """Start a check's line, or update it with its own progress message."""
        if event.key not in self.running:
            task = self.progress.add_task(f"  {_inert(event.key)}", total=None, note="")
            self.running[event.key] = (task, time.monotonic())
        task, _ = self.running[event.key]
        if event.message != "started":
            fraction = event.fraction
            self.progress.update(
                task, description=f"  {_inert(event.key)}: {_inert(event.message)}",
                total=None if fraction is None else 1.0,
                completed=0.0 if fraction is None else fraction,
                note="" if fraction is None else f"{fraction:.0%}",
            )

    def finished(self, row: ClaimRow) -> None:
        """Advance the overall bar and echo the verdict above the display."""
        entry = self.running.pop(row.claim, None)
        if entry is not None:
            self.progress.remove_task(entry[0])
        if self.overall is not None:
            self.progress.advance(self.overall)
            done = self.progress.tasks[self.overall].completed
            total = self.progress.tasks[self.overall].total
            self.progress.update(self.overall, note=f"{done:.0f}/{total:.0f}")
        if self.echo:
            label = "errored" if row.errored else row.verdict
            said = f" {row.claim} {label} ({row.duration_s or 0:.2f} s)" + (
                f": {row.reason}" if row.reason else "")
            self.console.print(_MARKS[row.verdict] + _inert(said), highlight=False)


def _inert(text: str) -> str:
    """``text`` for a rich console: control characters shown, markup brackets escaped."""
    from rich.markup import escape

    return escape(visible(text))


def _executor(ns: argparse.Namespace) -> Executor | None:
    """The executor the options ask for (``None``: the runner's local pool)."""
    if ns.ray_address is not None and ns.executor != "ray":
        raise UsageError("--ray-address needs --executor ray")
    if ns.executor != "ray":
        return None
    from claimcheck.engine.ray_executor import RayExecutor

    address = ns.ray_address
    return RayExecutor(address=address, num_cpus=None if address else ns.jobs)


def run_verify(ns: argparse.Namespace) -> int:
    """``claimcheck verify``: run what is stale, print the report, return the exit code."""
    started = time.monotonic()
    executor = _executor(ns)
    wiki = _load_or_report(ns.path)
    if wiki is None:
        return ExitCode.USAGE
    recheck: frozenset[str] = frozenset()
    recheck_power: frozenset[str] = frozenset()
    if ns.recheck_results_changed_since:
        recheck = changed_result_claims(wiki, ns.recheck_results_changed_since)
        if ns.power:
            recheck_power = changed_power_claims(wiki, ns.recheck_results_changed_since)
    gating = bool(ns.recheck_results_changed_since)
    committed = snapshot(wiki, recheck, recheck_power) if gating else None
    options = RunOptions(
        budget=ns.budget, device=ns.device, timeout_s=ns.timeout, jobs=ns.jobs,
        force=ns.force, only=tuple(ns.only), seed=ns.seed,
        rerun_on_environment=ns.rerun_on_environment, recheck=recheck,
        recheck_power=recheck_power, ci_gate=gating,
        power_listed_only=ns.power_scope == "listed",
    )
    style = OutputFormat(ns.format)
    if sys.stderr.isatty():
        from rich.console import Console

        console = Console(stderr=True, highlight=False)
        with ProgressDisplay(console, echo=style is OutputFormat.TEXT) as display:
            report = verify(wiki, options, display, executor)
            power = _power(ns, wiki, options, report.interrupted, display, executor)
    else:
        report = verify(wiki, options, executor=executor)
        power = _power(ns, wiki, options, report.interrupted, None, executor)
    rows = add_power(report.rows, wiki)
    if _nothing_selected(ns.only, rows):
        return ExitCode.USAGE
    render(rows, style, sys.stdout, debug=getattr(ns, "debug", False), verbose=ns.verbose)
    out = sys.stdout if style is OutputFormat.TEXT else sys.stderr  # stdout where it stays text
    print(fitted_summary(summary_line(rows, time.monotonic() - started), terminal_width(out)),
          file=out, flush=True)
    if not ns.only:
        _unclaimed_note(wiki)
    if report.interrupted or (power is not None and power.interrupted):
        print(f"interrupted: {report.ran} result(s) finished and kept", file=sys.stderr)
        return ExitCode.INTERRUPTED
    if committed is not None and print_gate(compare(wiki, committed), sys.stderr):
        return ExitCode.GATE
    if any(row.errored for row in report.rows) or (power is not None and power.errored):
        return ExitCode.CHECK_ERRORS
    if ns.fail_on == "contradicted" and report.contradicted:
        return ExitCode.CONTRADICTED
    return ExitCode.OK


def _nothing_selected(only: list[str] | None, rows: Sized) -> bool:
    """Whether ``--only`` was given and matched no claim: said on stderr with how patterns
    match, instead of a silent "ran 0" that reads like a clean run (a slug pattern such as
    ``my-paper/claim*`` matches nothing: a global id starts with the paper key)."""
    if not only or rows:
        return False
    patterns = ", ".join(visible(repr(pattern)) for pattern in only)
    print(f"error: --only {patterns} matches no claim: a pattern is matched against a claim's "
          "global id (PAPER-KEY/claim-id, e.g. `2101.12491/params`), the arXiv id or the card "
          "slug, whole; write `*` for any text (`*params*`)", file=sys.stderr)
    return True


def _power(ns: argparse.Namespace, wiki: Wiki, options: RunOptions, interrupted: bool,
           display: ProgressDisplay | None, executor: Executor | None) -> PowerReport | None:
    """With ``--power`` (and the ordinary run not interrupted), the power runs."""
    if not ns.power or interrupted:
        return None
    return run_power(wiki, options, display, executor)


def run_status(ns: argparse.Namespace) -> int:
    """``claimcheck status``: print stored verdicts with stale markers; runs nothing."""
    from claimcheck.engine.recording import refuse_ambiguous, refuse_unrunnable
    from claimcheck.sources.checker import QuoteChecker
    from claimcheck.store.results import ResultStore
    from claimcheck.store.status import collect_status

    wiki = _load_or_report(ns.path)
    if wiki is None:
        return ExitCode.USAGE
    store = ResultStore(wiki.config.results, wiki.config.root)
    quotes = QuoteChecker(wiki.config)
    statuses = collect_status(wiki, store)
    selected = [stored_row(status, wiki, quotes) for status in statuses
                if matches(status.ref, tuple(ns.only))]
    rows = add_power(refuse_unrunnable(refuse_ambiguous(selected, wiki), statuses, wiki),
                     wiki, statuses)
    if _nothing_selected(ns.only, rows):
        return ExitCode.USAGE
    style = OutputFormat(ns.format)
    if style is OutputFormat.TEXT:
        render_status(rows, sys.stdout, ns.verbose)
    else:
        render(rows, style, sys.stdout)
    if not ns.only:
        _unclaimed_note(wiki)
    return ExitCode.OK


def _unclaimed_note(wiki: Wiki) -> None:
    """On stderr, how many stored results no card claims (a removed or renamed claim's): they
    are never shown, so status says they are there and where lint names them."""
    from claimcheck.authoring.lint_results import unclaimed_results

    left = [finding.path for finding in unclaimed_results(wiki)]
    if left:
        print(f"note: {len(left)} result file(s) no card claims (a removed or renamed claim's), "
              f"e.g. {visible(left[0])}: `claimcheck lint` lists them; delete them or restore "
              "the claims", file=sys.stderr)
