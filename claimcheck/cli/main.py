"""The ``claimcheck`` command line: a thin layer that parses arguments and calls the library.

``main(argv)`` returns an exit code (:class:`~claimcheck.core.exitcodes.ExitCode`), so scripts can
tell "all verified" from "contradicted" from "usage error", and tests can call it in-process.
Errors a user can cause print one line each; ``--debug`` shows tracebacks instead.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from claimcheck.core import strict_json
from claimcheck.core.config import load_config
from claimcheck.core.errors import ClaimcheckError, UsageError
from claimcheck.core.exitcodes import ExitCode
from claimcheck.core.outputs import write_output
from claimcheck.core.version import __version__
from claimcheck.core.visible import show_warning, terminal_width, visible

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError` (one line, exit 2) and whose
    positionals may follow its options (``new paper --doi X SLUG``), where argparse allows."""

    _intermixing = False

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None,
    ) -> tuple[argparse.Namespace, list[str]]:
        """Positionals and options in any order; plain parsing where a parser nests others
        (argparse cannot intermix those)."""
        if self._intermixing or self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            protected, held = _protect_after_double_dash(list(sys.argv[1:] if args is None
                                                             else args))
            ns, extras = self.parse_known_intermixed_args(protected, namespace)
            return _restore_held(ns, held), [held.get(extra, extra) for extra in extras]
        finally:
            self._intermixing = False


_HELD = "\x00held-{}"


def _protect_after_double_dash(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """``args`` with every dash-led string after the first ``--`` replaced by a stand-in that
    cannot look like an option, and the originals by stand-in: intermixed parsing drops the
    ``--`` and would read ``-name`` after it as an option."""
    if "--" not in args:
        return args, {}
    end = args.index("--")
    held: dict[str, str] = {}
    after = []
    for text in args[end + 1:]:
        if text.startswith("-"):
            held[_HELD.format(len(held))] = text
            text = _HELD.format(len(held) - 1)
        after.append(text)
    return args[:end] + after, held


def _restore_held(ns: argparse.Namespace, held: dict[str, str]) -> argparse.Namespace:
    """``ns`` with the stand-ins of :func:`_protect_after_double_dash` put back."""
    for name, value in vars(ns).items():
        if isinstance(value, str) and value in held:
            setattr(ns, name, held[value])
        elif isinstance(value, list):
            setattr(ns, name, [held.get(v, v) if isinstance(v, str) else v for v in value])
    return ns


def _lint(ns: argparse.Namespace) -> int:
    from claimcheck.authoring.lint import Level, lint_selection, strict

    target = Path(ns.path) if ns.path else None
    config = load_config(target)
    if target is not None and not target.exists():
        raise UsageError(f"{target}: no such file or folder")
    findings, cards = lint_selection(config, target)
    if ns.strict:
        findings = strict(findings)
    if ns.format == "json":
        print(strict_json.dumps([
            {"path": f.path, "line": f.line, "col": f.col, "level": f.level.value,
             "rule": f.rule, "message": f.message} for f in findings
        ], indent=2))
    elif ns.format == "github":
        from claimcheck.reports.formats import github_command

        for f in findings:
            command = {"error": "error", "warning": "warning", "info": "notice"}[f.level.value]
            print(github_command(command, f.path, f.line, f.message, f.col))
    else:
        width = terminal_width(sys.stdout)
        for f in findings:
            print(f.as_text(config.shown(f.path), width))
        counts = {level: sum(f.level is level for f in findings) for level in Level}
        if sys.stderr.isatty():
            print(f"{cards} card(s): {counts[Level.ERROR]} error(s), "
                  f"{counts[Level.WARNING]} warning(s), {counts[Level.INFO]} info",
                  file=sys.stderr)
    has_errors = any(f.level is Level.ERROR for f in findings)
    return ExitCode.CHECK_ERRORS if has_errors else ExitCode.OK


def _new(ns: argparse.Namespace) -> int:
    from claimcheck.authoring.scaffold import write_new_card

    config = load_config(Path(ns.wiki) if ns.wiki else None)
    authors = [a.strip() for a in ns.authors.split(",")] if ns.authors else None
    if ns.kind == "concept" and (ns.arxiv or ns.doi or ns.openreview or ns.url):
        raise UsageError("identifiers (--arxiv, --doi, --openreview, --url) are for paper cards")
    path, note = write_new_card(config, ns.kind, ns.slug, ns.arxiv, ns.title, authors,
                          doi=ns.doi, openreview=ns.openreview, url=ns.url, year=ns.year,
                          offline=ns.offline)
    print(config.relative(path))
    if note:
        print(note, file=sys.stderr)
    return ExitCode.OK


def _init(ns: argparse.Namespace) -> int:
    from claimcheck.authoring.project_init import write_project

    if not ns.folder.strip():
        raise UsageError(f"init needs a folder name, not an empty one ({ns.folder!r}); "
                         "write `claimcheck init .` for the current folder")
    folder = Path(ns.folder)
    written = write_project(folder)
    for path in written:
        print(path)
    print(f"a new wiki in {folder}: `cd {shlex.quote(_not_an_option(folder))}`, then "
          "`claimcheck lint`, `claimcheck verify`, `mkdocs serve`; CI runs .ci/run",
          file=sys.stderr)
    return ExitCode.OK


def _not_an_option(folder: Path) -> str:
    """``folder`` as a shell word no command reads as an option (``./-name`` for ``-name``)."""
    text = str(folder)
    return f"./{text}" if text.startswith("-") else text


def _schema(ns: argparse.Namespace) -> int:
    from claimcheck.authoring.schema import card_json_schema_text

    text = card_json_schema_text(load_config(None))
    if ns.output:
        write_output(ns.output, text, load_config(None).root)
    else:
        sys.stdout.write(text)
    return ExitCode.OK


def _lazy(module: str, function: str) -> Handler:
    def handler(ns: argparse.Namespace) -> int:
        imported = __import__(module, fromlist=[function])
        result: int = getattr(imported, function)(ns)
        return result

    return handler


_HEAVY_COMMANDS = {
    "verify": ("run stale checks and print verdicts", "claimcheck.cli.verify",
               "configure_verify_parser", "run_verify"),
    "status": ("print stored verdicts; runs nothing", "claimcheck.cli.verify",
               "configure_status_parser", "run_status"),
    "report": ("one-file HTML or Markdown report", "claimcheck.site.report",
               "configure_report_parser", "run_report"),
    "papers": ("papers' sources: `papers fetch [ID…] [--pin]`", "claimcheck.cli.papers",
               "configure_papers_parser", "run_papers"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (subcommands lint, new, init, schema, verify, status, report, papers).

    The engine and the site are imported only when ``command`` is one of theirs, so that
    ``claimcheck lint`` stays light.
    """
    parser = _Parser(prog="claimcheck", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"claimcheck {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    lint = commands.add_parser("lint", help="check cards before anything runs")
    lint.add_argument("path", nargs="?", help="wiki folder or card file (default: the wiki)")
    lint.add_argument("--format", choices=["text", "json", "github"], default="text")
    lint.add_argument("--strict", action="store_true",
                      help="make the warnings CI must not pass errors: a listed wrong variant "
                      "that the claim's check does not catch")
    lint.set_defaults(handler=_lint)

    new = commands.add_parser("new", help="write a new card that passes lint")
    new.add_argument("kind", choices=["concept", "paper"])
    new.add_argument("slug", nargs="?", help="the card's slug (papers: default from title)")
    identity = new.add_mutually_exclusive_group()
    identity.add_argument("--arxiv", help="arXiv id of the paper (paper cards)")
    identity.add_argument("--doi", help="DOI of the paper, e.g. 10.1038/s41598-021-93977-0")
    identity.add_argument("--openreview", help="OpenReview id of the paper, e.g. HJWLfGWRb")
    identity.add_argument("--url", help="address of a paper that has none of those ids")
    new.add_argument("--title", help="the paper's title (default: from its metadata)")
    new.add_argument("--authors", help="comma-separated author names")
    new.add_argument("--year", type=int, help="publication year (default: from its metadata)")
    new.add_argument("--offline", action="store_true",
                     help="do not ask the network for metadata; write placeholders")
    new.add_argument("--wiki", help="project folder (default: the current one)")
    new.set_defaults(handler=_new)

    init = commands.add_parser("init", help="write a new wiki project into a folder")
    init.add_argument("folder", help="the project folder (created if missing; nothing in it is "
                      "overwritten)")
    init.set_defaults(handler=_init)

    schema = commands.add_parser("schema", help="print the JSON Schema of card front matter")
    schema.add_argument("--output", "-o", help="write to this file instead of stdout")
    schema.set_defaults(handler=_schema)

    for name, (text, module, configure, run) in _HEAVY_COMMANDS.items():
        sub = commands.add_parser(name, help=text)
        if name == command:
            getattr(__import__(module, fromlist=[configure]), configure)(sub)
        sub.set_defaults(handler=_lazy(module, run))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    try:
        command = next((a for a in arguments if not a.startswith("-")), None)
        ns = build_parser(command).parse_args(arguments)
        with warnings.catch_warnings():  # warnings quote committed file names: keep them inert
            warnings.showwarning = show_warning
            code: int = ns.handler(ns)
        return int(code)
    except ClaimcheckError as error:
        if debug:
            raise
        print(visible(error.one_line()), file=sys.stderr)
        return ExitCode.USAGE
    except OSError as error:  # a path the system refuses: one line naming it, never a traceback
        if debug:
            raise
        print(visible(_os_error_line(error)), file=sys.stderr)
        return ExitCode.USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _os_error_line(error: OSError) -> str:
    """``error: PATH: reason`` for an :class:`OSError` no command turned into its own message."""
    reason = error.strerror or str(error) or type(error).__name__
    where = f"{error.filename}: " if error.filename is not None else ""
    return f"error: {where}{reason}"
