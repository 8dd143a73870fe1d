"""Cost of the locator index and the quote matcher on a paper-sized LaTeX document.

    python benchmarks/source_index.py [--sections 40] [--quotes 200]

Generates a synthetic paper (sections with subsections, numbered and starred equations, align
blocks with \\nonumber and \\tag, tables with captions and labels, references), packs it as an
e-print would be (gzipped tar), then measures: reading the e-print, building the index (regions
+ canonical text), and checking quotes found at, away from and absent from their locators.
Prints sizes, times and throughput; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tarfile
import time

from claimcheck.cards.locators import parse_locator
from claimcheck.sources.latex import read_source
from claimcheck.sources.quotes import SourceIndex, check_quote


def synthetic_paper(sections: int) -> str:
    """A LaTeX document with ``sections`` sections, each with the constructs the index reads."""
    parts = ["\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n",
             "\\begin{abstract}A network of barely 160K parameters.\\end{abstract}\n"]
    for s in range(1, sections + 1):
        parts.append(f"\\section{{Section {s}}}\\label{{sec:{s}}}\n")
        for sub in range(1, 4):
            parts.append(f"\\subsection{{Part {sub}}}\n")
            parts.append(("Capsule networks route by agreement between predictions; "
                          f"see Table~\\ref{{tab:{s}}} and Eq.~\\eqref{{eq:{s}}}. ") * 12
                         + f"Section {s}.{sub} reports {s}{sub}{{,}}824 parameters.\n")
        parts.append(f"\\begin{{equation}}\\label{{eq:{s}}} v_{s} = \\frac{{1}}{{e^{{s}}}} "
                     "\\end{equation}\n")
        parts.append("\\begin{align}a &= b \\\\ c &= d \\nonumber \\\\ e &= f \\tag{T}"
                     "\\end{align}\n\\begin{equation*} x = y \\end{equation*}\n")
        parts.append(f"\\begin{{table}}\\caption{{Results {s}.}}\\label{{tab:{s}}}"
                     f"\\begin{{tabular}}{{lr}} Ours & {s}.26 \\\\ Base & 0.25 \\\\"
                     "\\end{tabular}\\end{table}\n")
    parts.append("\\end{document}\n")
    return "".join(parts)


def eprint(text: str) -> bytes:
    """``text`` as a gzipped tar holding ``main.tex``."""
    buffer = io.BytesIO()
    data = text.encode("utf-8")
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("main.tex")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", type=int, default=40)
    parser.add_argument("--quotes", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    text = synthetic_paper(args.sections)
    packed = eprint(text)
    reads, builds = [], []
    index = None
    for _ in range(args.repeats):
        start = time.perf_counter()
        project = read_source(packed)
        reads.append(time.perf_counter() - start)
        start = time.perf_counter()
        index = SourceIndex.from_project(project)
        builds.append(time.perf_counter() - start)
    assert index is not None
    cases = [
        (f"Section {s}.2 reports {s}2,824 parameters", f"§{s}.2") for s in
        range(1, args.sections + 1)
    ] + [(f"Ours {s}.26", f"tab. {s}") for s in range(1, args.sections + 1)] + [
        (f"Ours {s}.26", f"§{s}.1") for s in range(1, args.sections + 1)
    ] + [("a sentence the paper never wrote", "§1")]
    cases = (cases * (args.quotes // len(cases) + 1))[: args.quotes]
    start = time.perf_counter()
    states: dict[str, int] = {}
    for quote, locator in cases:
        state = check_quote(index, quote, [parse_locator(locator)]).state.value
        states[state] = states.get(state, 0) + 1
    quote_time = time.perf_counter() - start
    megabytes = len(text.encode("utf-8")) / 1e6
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print(f"document: {megabytes:.2f} MB of LaTeX ({len(packed) / 1e3:.0f} kB gzipped), "
          f"{len(index.regions)} regions, {len(index.text.text):,} canonical characters")
    print(f"read e-print (median of {args.repeats}): {statistics.median(reads) * 1e3:.1f} ms")
    print(f"build index (median of {args.repeats}): {statistics.median(builds) * 1e3:.0f} ms "
          f"= {megabytes / statistics.median(builds):.2f} MB/s")
    print(f"{len(cases)} quote checks: {quote_time * 1e3:.0f} ms "
          f"= {quote_time / len(cases) * 1e3:.2f} ms each; outcomes {states}")


if __name__ == "__main__":
    main()
