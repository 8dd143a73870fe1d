"""``claimcheck report``: the wiki's verdicts as one file to attach to a pull request.

``--format html`` writes a self-contained page (inline CSS, no script, no external resource) from
the same templates as the site; ``--format markdown`` writes tables that GitHub renders, with
every card string escaped so that it cannot inject links, images or HTML.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from claimcheck.cards.identifiers import paper_label
from claimcheck.core.config import ProjectConfig, load_config
from claimcheck.core.errors import UsageError
from claimcheck.core.exitcodes import ExitCode
from claimcheck.core.outputs import write_output
from claimcheck.core.visible import visible
from claimcheck.reports.markdown import code_span
from claimcheck.site.powerfigures import power_share
from claimcheck.site.render import (
    Renderer,
    SourceHref,
    bases_summary,
    papers_summary,
    tiers_summary,
)
from claimcheck.site.siteindex import build_index
from claimcheck.site.views import ClaimView, SourceLink, tally

_SYMBOLS = {"verified": "✓", "contradicted": "✗", "unverified": "?"}
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|!#~])")


def configure_report_parser(parser: argparse.ArgumentParser) -> None:
    """Add the ``report`` options to ``parser``."""
    parser.add_argument("path", nargs="?", help="wiki folder (default: the configured wiki)")
    parser.add_argument("--format", choices=["html", "markdown"], default="markdown")
    parser.add_argument("--output", "-o", help="write to this file instead of stdout")
    parser.add_argument(
        "--repo-url", help="link checks to {repo-url}/blob/{branch}/path#Lline (e.g. a GitHub URL)"
    )
    parser.add_argument("--branch", default="main", help="branch for --repo-url links")


def source_linker(repo_url: str | None, branch: str) -> SourceHref:
    """Links to check sources: on the repository host when ``repo_url`` is given, else none."""

    def link(source: SourceLink | None) -> str | None:
        if source is None or not repo_url:
            return None
        return f"{repo_url.rstrip('/')}/blob/{branch}/{source.path}#L{source.line}"

    return link


def escape_markdown(text: str) -> str:
    """Card text made inert for a Markdown table cell: no HTML, links, images or emphasis,
    and no control, escape or bidi character (shown escaped: :mod:`claimcheck.core.visible`)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = visible(" ".join(text.split()))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _verdict_cell(claim: ClaimView) -> str:
    cell = f"{_SYMBOLS.get(claim.verdict, '?')} {claim.verdict}"
    if claim.stale:
        cell += " (stale)"
    if claim.errored:
        cell += " (error)"
    if claim.power:
        cell += f"<br>{escape_markdown(claim.power)}"
    return cell


def markdown_report(
    claims: Sequence[ClaimView], wiki: str, generated: str, source_href: SourceHref
) -> str:
    """Counts, contradictions, stale results and one table per paper, as GitHub Markdown."""
    totals = tally(claims)
    lines = [
        "# claimcheck report",
        "",
        f"Generated {generated} from {code_span(str(wiki))}: {totals.total} claims.",
        "",
        "| verdict | claims |",
        "|---|---|",
        *(f"| {_SYMBOLS[name]} {name} | {count} |" for name, count in totals.as_pairs()),
        f"| ⟳ stale | {totals.stale} |",
        "",
        "## Contradictions",
        "",
    ]
    contradicted = [claim for claim in claims if claim.verdict == "contradicted"]
    lines += [
        f"- {code_span(claim.global_id)}: {escape_markdown(claim.statement)} Expected "
        f"{escape_markdown(claim.expected)}, measured {escape_markdown(claim.measured)}."
        for claim in contradicted
    ] or ["None."]
    lines += ["", "## Stale results", ""]
    lines += [
        f"- {code_span(claim.global_id)}: last {claim.verdict}, run "
        f"{escape_markdown(claim.run_date)}."
        for claim in claims
        if claim.stale
    ] or ["None."]
    share = power_share(claims)
    if share is not None:
        lines += ["", "## Power (wrong variants the checks catch)", "",
                  f"{share.all_caught} of {share.counted} verified claims that list wrong "
                  f"variants catch all of them; {share.unlisted} checked claims list none.", ""]
        lines += [f"- {code_span(claim.global_id)}: {escape_markdown(claim.power)}"
                  for claim in claims
                  if claim.power_all_caught is False]
    lines += ["", "## Per basis (what each verdict is evidence of)", "",
              "| basis | ✓ | ✗ | ? | stale |", "|---|---|---|---|---|"]
    lines += [
        f"| {escape_markdown(basis)} | {c.verified} | {c.contradicted} | {c.unverified} "
        f"| {c.stale} |"
        for basis, c in bases_summary(claims)
    ]
    lines += ["", "## Per tier", "", "| tier | ✓ | ✗ | ? | stale |", "|---|---|---|---|---|"]
    lines += [
        f"| {escape_markdown(tier)} | {c.verified} | {c.contradicted} | {c.unverified} "
        f"| {c.stale} |"
        for tier, c in tiers_summary(claims)
    ]
    for paper in papers_summary(claims, {}):
        lines += [
            "",
            f"## {escape_markdown(paper.title)} ({escape_markdown(paper_label(paper.arxiv))})",
            "",
            "| claim | locator | statement | check | expected | measured | verdict | basis | run |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for claim in claims:
            if claim.arxiv != paper.arxiv:
                continue
            check = code_span(claim.check, in_table=True)
            href = source_href(claim.check_source)
            if href:
                check = f"[{check}]({href})"
            statement = escape_markdown(claim.statement)
            if claim.about.quote:
                statement += f"<br>quote: “{escape_markdown(claim.about.quote)}”"
                if claim.about.quote_note:
                    statement += f" ({escape_markdown(claim.about.quote_note)})"
            cells = [
                code_span(claim.claim_id, in_table=True), escape_markdown(claim.locators),
                statement, check,
                escape_markdown(claim.expected), escape_markdown(claim.measured),
                _verdict_cell(claim), escape_markdown(claim.about.basis or "not stated"),
                escape_markdown(claim.run_date),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def build_report(config: ProjectConfig, wiki: Path, fmt: str, source_href: SourceHref) -> str:
    """The report of ``wiki`` in ``fmt`` ("html" or "markdown")."""
    index = build_index(config, wiki, config.results)
    claims = index.claims()
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    shown = config.relative(wiki)
    if fmt == "html":
        return Renderer().report("claimcheck report", shown, generated, claims, source_href)
    return markdown_report(claims, shown, generated, source_href)


def run_report(namespace: argparse.Namespace) -> int:
    """Write the report to ``--output`` or stdout."""
    target = Path(namespace.path) if namespace.path else None
    if target is not None and not target.is_dir():
        raise UsageError(f"{target}: not a wiki folder")
    config = load_config(target)
    text = build_report(
        config,
        target or config.wiki,
        namespace.format,
        source_linker(namespace.repo_url, namespace.branch),
    )
    if namespace.output:
        write_output(namespace.output, text, config.root)  # never through a committed link
    else:
        sys.stdout.write(visible(text, keep_newlines=True))  # a terminal obeys no stored escape
    return ExitCode.OK
