"""The claim graph: papers → claims → the pages that cite them, laid out by Graphviz ``dot``.

One graph per paper (its claims, coloured by verdict, stale ones dashed and marked ⟳, and every
page that cites them) and one overview (papers, with the concept cards that cite them while
there are few enough to read). Every node links to its page or claim row. A paper's graph
shows at most :data:`MAX_CITERS` citing pages; the table under the graph lists all of them.

Layout is Graphviz's (``dot`` from the distribution, found on ``PATH``): one ``dot`` process lays
out every graph of the build. Its SVG is sanitised like any other SVG before it is inlined.
Without ``dot`` the pages keep their tables and say how to get the drawing.

Card strings only ever appear inside quoted DOT strings, escaped, so a title cannot add an
attribute (Graphviz's ``image`` or ``imagepath`` would read files).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from claimcheck.cards.identifiers import paper_label
from claimcheck.site.svgclean import clean_svg
from claimcheck.site.views import SYMBOLS, ClaimView, Tally

MAX_CITERS = 40
MAX_OVERVIEW_CITERS = 60
DOT_TIMEOUT_S = 120
FILL = {"verified": "#1b6e35", "contradicted": "#b3261e", "unverified": "#5f6368"}
STALE = "#8a5a00"
_FONT = "Helvetica,Arial,sans-serif"


@dataclass(frozen=True)
class Citer:
    """A page that cites claims: its docs-relative source path and its title."""

    src: str
    title: str


def quoted(*lines: str) -> str:
    """``lines`` as one DOT string: escString sequences and HTML entities stay literal."""
    escaped = (
        " ".join(line.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;").split())
        for line in lines
    )
    return '"' + "\\n".join(escaped) + '"'


def _header(name: str) -> list[str]:
    return [
        f"digraph {quoted(name)} {{",
        f'graph [rankdir=LR, bgcolor="transparent", nodesep=0.12, ranksep=0.5, '
        f'fontname="{_FONT}"];',
        f'node [fontname="{_FONT}", fontsize=10, shape=box, style="rounded,filled", '
        f'fillcolor="#ffffff", color="#5f6368", margin="0.08,0.04"];',
        'edge [color="#9aa0a6", arrowsize=0.6];',
    ]


def _node(
    name: str, label: Sequence[str], url: str | None, tooltip: str, **extra: str
) -> str:
    attributes = [f"label={quoted(*label)}", f"tooltip={quoted(tooltip)}"]
    if url:
        attributes.append(f'URL={quoted(url)}, target="_top"')
    attributes += [f"{key}={quoted(value)}" for key, value in extra.items()]
    return f"{name} [{', '.join(attributes)}];"


def _claim_node(name: str, claim: ClaimView, url: str) -> str:
    label = [f"{SYMBOLS.get(claim.verdict, '?')} {claim.claim_id}", claim.locators]
    style = {"fillcolor": FILL.get(claim.verdict, FILL["unverified"]), "fontcolor": "#ffffff"}
    if claim.stale:
        label.append("⟳ stale")
        style |= {"style": "rounded,filled,dashed", "color": STALE, "penwidth": "2.5"}
    tooltip = f"{claim.verdict}{' (stale)' if claim.stale else ''}: {claim.statement}"
    return _node(name, label, url, tooltip, **style)


def paper_dot(
    arxiv: str,
    title: str,
    claims: Sequence[ClaimView],
    citers: Mapping[str, Sequence[Citer]],
    paper_url: str | None,
    claim_url: Callable[[ClaimView], str],
    page_url: Callable[[str], str],
) -> str:
    """The graph of one paper: paper → its claims, boxed by locator → the pages citing them.

    Claims are grouped by their first locator (one box per table, section or equation), and
    the graph draws one edge from a box to each page citing any claim in it, not one per claim:
    a paper of 50 claims cited from five pages reads as a handful of boxes, not a hairball. The
    table under the graph keeps which page cites which claim.
    """
    lines = _header(arxiv)
    lines.insert(1, "graph [compound=true];")
    lines.append(_node("paper", [title, paper_label(arxiv)], paper_url, title,
                       style="filled,bold", fillcolor="#e8eaed"))
    shown: dict[str, str] = {}
    hidden = 0
    groups: dict[str, list[tuple[str, ClaimView]]] = {}
    for number, claim in enumerate(claims):
        groups.setdefault(claim.locators.split(", ")[0], []).append((f"c{number}", claim))
    for box, (locator, members) in enumerate(groups.items()):
        lines.append(f"subgraph cluster_{box} {{")
        lines.append(f'label={quoted(locator)}; style="rounded"; color="#bdc1c6"; fontsize=10;')
        lines += [_claim_node(name, claim, claim_url(claim)) for name, claim in members]
        lines.append("}")
        first = members[0][0]
        lines.append(f"paper -> {first} [lhead=cluster_{box}];")
        cited: dict[str, None] = {}
        for _, claim in members:
            for citer in citers.get(claim.global_id, ()):
                if citer.src not in shown:
                    if len(shown) >= MAX_CITERS:
                        hidden += 1
                        continue
                    shown[citer.src] = f"p{len(shown)}"
                    lines.append(_node(shown[citer.src], [citer.title], page_url(citer.src),
                                       citer.title, shape="ellipse", fillcolor="#f1f3f4"))
                cited[shown[citer.src]] = None
        lines += [f"{first} -> {page} [ltail=cluster_{box}];" for page in cited]
    if hidden:
        lines.append(_node("more", [f"{hidden} more citations (listed below)"], None,
                           "listed in the table under the graph", shape="note"))
    lines.append("}")
    return "\n".join(lines)


KIND_LABELS = {"paper": "paper", "code": "our code", "wiki": "wiki", "unstated": "basis?"}
"""How a paper's node names each evidence kind, whose counts it keeps apart."""


def overview_dot(
    papers: Sequence[tuple[str, str, Tally, Mapping[str, Tally]]],
    citers: Mapping[str, Sequence[Citer]],
    graph_url: Callable[[str], str],
    page_url: Callable[[str], str],
) -> str:
    """Papers (with their verdict counts, one line per evidence kind) and, while they are few,
    the pages citing them."""
    lines = _header("overview")
    pages = {citer.src: citer for group in citers.values() for citer in group}
    draw_pages = len(pages) <= MAX_OVERVIEW_CITERS
    names = {src: f"p{number}" for number, src in enumerate(sorted(pages))}
    for number, (arxiv, title, counts, kinds) in enumerate(papers):
        summaries = [
            f"{KIND_LABELS.get(kind, kind)}: "
            + " ".join(f"{SYMBOLS[name]}{count}" for name, count in tallied.as_pairs() if count)
            + (f" ⟳{tallied.stale}" if tallied.stale else "")
            for kind, tallied in kinds.items()
        ]
        outline = {"color": FILL["contradicted"], "penwidth": "2"} if counts.contradicted else {}
        lines.append(_node(f"a{number}", [title, paper_label(arxiv), *summaries],
                           graph_url(arxiv), f"{title}: the claim graph of this paper",
                           **outline))
        if draw_pages:
            for src in sorted({citer.src for citer in citers.get(arxiv, ())}):
                lines.append(f"{names[src]} -> a{number};")
    if draw_pages:
        for src, name in names.items():
            lines.append(_node(name, [pages[src].title], page_url(src), pages[src].title,
                               shape="ellipse", fillcolor="#f1f3f4"))
    lines.append("}")
    return "\n".join(lines)


def dot_available() -> bool:
    """Whether Graphviz's ``dot`` is on ``PATH``."""
    return shutil.which("dot") is not None


def render_svgs(graphs: Sequence[str]) -> list[str | None]:
    """Lay out every graph with one ``dot`` process; a graph that fails gives ``None``.

    Raises ``OSError`` or ``subprocess.SubprocessError`` when ``dot`` cannot run at all.
    """
    if not graphs:
        return []
    completed = subprocess.run(
        ["dot", "-Tsvg"], input="\n".join(graphs).encode("utf-8"), capture_output=True,
        timeout=DOT_TIMEOUT_S, check=False,
    )
    documents = completed.stdout.decode("utf-8", "replace").split("<?xml")[1:]
    if len(documents) != len(graphs):
        raise subprocess.SubprocessError(
            completed.stderr.decode("utf-8", "replace").strip() or "dot gave no drawing"
        )
    return [clean_svg("<?xml" + document, site_links=True) for document in documents]
