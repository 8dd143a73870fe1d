"""Site build cost with and without the claimcheck plugin, on generated wikis of 30 to 1,000 cards.

Each build is ``python -m mkdocs build`` in a fresh process (what CI and a reader pay, Python
start-up included) with Material, search and offline; the two variants differ only in the
``claimcheck`` plugin (badges, hover cards, claims tables, dashboard, claim graphs laid out by
Graphviz). Builds are interleaved (for each repeat, every size, plain then plugin) and timed in
CPU seconds of the build and its children (``dot`` included), because six sessions share the
machine and wall time follows their load. A third variant runs the plugin with
``nav_section_limit: 0``, so that its navigation lists every card as plain Material's does: the
plugin's own cost per card, apart from the navigation it saves. Run::

    python benchmarks/site_build.py [--sizes 30 100 300 1000] [--repeats 3] [--repo]

It prints, per size, the median CPU of each variant and their ratio, the scaling exponent fitted
to the plugin builds (least squares of log CPU on log cards), and the load average. Goals
(issue 13): ratio at most 1.3, exponent at most 1.1, 1,000 cards under 60 s of CPU.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPERS_PER_100 = 5
LOCATORS = ("§3.1", "tab. 2", "eq. 5", "fig. 4", "alg. 1")
CITATIONS_PER_CONCEPT = 10
MKDOCS_YML = """site_name: generated wiki
docs_dir: wiki
theme:
  name: material
  font: false
  features: [navigation.indexes, navigation.prune]
markdown_extensions: [admonition, attr_list, md_in_html, {{toc: {{permalink: true}}}}]
plugins: [search, offline{plugin}]
extra: {{generator: false}}
"""


def _paper_card(index: int) -> str:
    arxiv = f"2101.{10000 + index}"
    claims = "".join(
        f"  - id: claim-{n}\n    cite: {locator}\n    statement: Claim {n} of paper {index}.\n"
        f"    unverified: generated for the benchmark\n"
        for n, locator in enumerate(LOCATORS)
    )
    return (
        f'---\nkind: paper\nslug: paper-{index}\narxiv: "{arxiv}"\ntitle: Paper {index}\n'
        f"authors: [A. Author]\nyear: 2021\nupdated_at: 2026-11-29\nclaims:\n{claims}---\n\n"
        f"# Paper {index}\n\n## Method\n\nThe method [arxiv:{arxiv} §3.1].\n\n"
        f"## Paper vs code\n\nThe code differs in [arxiv:{arxiv} tab. 2].\n"
    )


def _concept_card(index: int, papers: int) -> str:
    sentences = "\n".join(
        f"Sentence {n} states a fact [arxiv:2101.{10000 + (index + n) % papers} "
        f"{LOCATORS[n % len(LOCATORS)]}]."
        for n in range(CITATIONS_PER_CONCEPT)
    )
    cited = sorted({f'"2101.{10000 + (index + n) % papers}"' for n in range(CITATIONS_PER_CONCEPT)})
    return (
        f"---\nkind: concept\nslug: concept-{index}\ntitle: Concept {index}\n"
        f"summary: A generated concept.\npapers: [{', '.join(cited)}]\n"
        f"tags: [generated]\nupdated_at: 2026-11-29\n---\n\n# Concept {index}\n\n{sentences}\n"
    )


VARIANTS = {
    "plain": "",
    "plugin": ", claimcheck",
    "full-nav": ", {claimcheck: {nav_section_limit: 0}}",
}


def generate(folder: Path, cards: int, variant: str) -> Path:
    """A project of ``cards`` cards (5 papers per 100 cards, the rest concepts)."""
    (folder / "wiki" / "papers").mkdir(parents=True)
    (folder / "wiki" / "concepts").mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n', encoding="utf-8")
    yml = MKDOCS_YML.format(plugin=VARIANTS[variant])
    (folder / "mkdocs.yml").write_text(yml, encoding="utf-8")
    (folder / "wiki" / "index.md").write_text("# Generated wiki\n", encoding="utf-8")
    papers = max(1, cards * PAPERS_PER_100 // 100)
    for index in range(papers):
        (folder / "wiki" / "papers" / f"paper-{index}.md").write_text(
            _paper_card(index), encoding="utf-8")
    for index in range(cards - papers):
        (folder / "wiki" / "concepts" / f"concept-{index}.md").write_text(
            _concept_card(index, papers), encoding="utf-8")
    return folder


def build_cost(project: Path, site: Path) -> tuple[float, float]:
    """Wall and CPU (user + system, children included) seconds of one build."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "-d", str(site)],
        cwd=project, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def exponent(points: list[tuple[int, float]]) -> float:
    """Slope of log(cost) against log(size), by least squares."""
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(cost) for _, cost in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    top = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    return top / sum((x - mean_x) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repo", action="store_true", help="also time the repository's wiki")
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    cpu: dict[tuple[int, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        projects = {
            (size, variant): generate(scratch / f"{size}-{variant}", size, variant)
            for size in args.sizes for variant in VARIANTS
        }
        for repeat in range(args.repeats):
            for size in args.sizes:
                order = list(VARIANTS) if repeat % 2 == 0 else list(reversed(VARIANTS))
                for variant in order:
                    project = projects[(size, variant)]
                    _, seconds = build_cost(project, project / "site")
                    cpu.setdefault((size, variant), []).append(seconds)
            loads.append(os.getloadavg()[0])
        repeats = args.repeats if args.repo else 0
        repo = [build_cost(ROOT, scratch / "repo-site") for _ in range(repeats)]
    print(f"load average (1 min) during the runs: {min(loads):.1f} to {max(loads):.1f} "
          f"on {os.cpu_count()} cores; {args.repeats} interleaved repeats, median CPU seconds")
    print("| cards | plain Material | with claimcheck | ratio | claimcheck, full nav | ratio |")
    print("|---|---|---|---|---|---|")
    medians = {key: statistics.median(values) for key, values in cpu.items()}
    for size in args.sizes:
        plain, plugin, full = (medians[(size, variant)] for variant in VARIANTS)
        print(f"| {size} | {plain:.2f} | {plugin:.2f} | {plugin / plain:.2f} | {full:.2f} "
              f"| {full / plain:.2f} |")
    if len(args.sizes) > 1:
        fits = {variant: exponent([(size, medians[(size, variant)]) for size in args.sizes])
                for variant in VARIANTS}
        print("\nfitted exponent of CPU against cards: "
              + ", ".join(f"{variant} {value:.2f}" for variant, value in fits.items()))
    if repo:
        print(f"repository wiki: {statistics.median(w for w, _ in repo):.2f} s wall, "
              f"{statistics.median(c for _, c in repo):.2f} s CPU (median of {len(repo)})")


if __name__ == "__main__":
    main()
