"""Lint throughput at scale: 1,000 generated cards with 20 citations each.

Prints cards per second and the peak memory of the lint itself, and the ratio of a whole lint
(load every card, scan its citations, apply every rule) to a *floor* made of what any card tool
must do: read each file, parse its front matter with ``yaml.CSafeLoader`` and validate it once
with pydantic. The two are timed in alternating rounds in this process, on the process's CPU
clock (``time.process_time``), so machine load falls on both and waiting for a core counts for
neither; the ratio is what to read on a shared machine. Run:
``python benchmarks/lint_scale.py [--cards 1000] [--citations 20] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import yaml

from claimcheck.authoring.lint import Level, lint_wiki
from claimcheck.cards.loader import _CARD_ADAPTER
from claimcheck.cards.wiki import card_files, load_wiki
from claimcheck.core.config import load_config

PAPERS = 10
LOCATORS = ["§3.1", "tab. 2", "eq. 5", "fig. 4", "alg. 1"]


def _paper(index: int) -> str:
    claims = "\n".join(
        f"  - id: claim-{n}\n    cite: {loc}\n    statement: Claim {n} of paper {index}.\n"
        f"    unverified: generated for the benchmark"
        for n, loc in enumerate(LOCATORS)
    )
    return (
        f"---\nkind: paper\nslug: paper-{index}\narxiv: \"2101.{10000 + index}\"\n"
        f"title: Paper {index}\nauthors: [A. Author]\nyear: 2021\nupdated_at: 2026-11-29\n"
        f"claims:\n{claims}\n---\n## Method\n\nText [arxiv:2101.{10000 + index} §3].\n"
    )


def _concept(index: int, citations: int) -> str:
    cited = sorted({f"2101.{10000 + (index + n) % PAPERS}" for n in range(citations)})
    papers = ", ".join(f'"{c}"' for c in cited)
    sentences = "\n".join(
        f"Sentence {n} states a fact [arxiv:2101.{10000 + (index + n) % PAPERS} "
        f"{LOCATORS[n % len(LOCATORS)]}]."
        for n in range(citations)
    )
    return (
        f"---\nkind: concept\nslug: concept-{index}\ntitle: Concept {index}\n"
        f"summary: Generated.\ntags: [generated]\npapers: [{papers}]\nstatus: draft\n"
        f"updated_at: 2026-11-29\n---\n## Overview\n\n{sentences}\n\n"
        "`code [arxiv:2101.10000 §3.1]` span.\n"
    )


def generate(folder: Path, cards: int, citations: int) -> None:
    """Write ``cards`` cards (``PAPERS`` paper cards, the rest concept cards) under folder."""
    (folder / "pyproject.toml").write_text("[tool.claimcheck]\nwiki = \"wiki\"\n")
    wiki = folder / "wiki"
    wiki.mkdir()
    for index in range(PAPERS):
        (wiki / f"paper-{index}.md").write_text(_paper(index), encoding="utf-8")
    for index in range(cards - PAPERS):
        (wiki / f"concept-{index}.md").write_text(_concept(index, citations), encoding="utf-8")


def floor(files: list[Path]) -> int:
    """Read each card, parse its front matter with CSafeLoader, validate it once: the least a
    card linter does. Returns the number of valid cards (so nothing is optimised away)."""
    valid = 0
    for file in files:
        text = file.read_text(encoding="utf-8")
        front = text.split("\n---\n", 1)[0].removeprefix("---\n")
        data = yaml.load(front, Loader=yaml.CSafeLoader)
        valid += _CARD_ADAPTER.validate_python(data) is not None
    return valid


def interleaved(config: object, files: list[Path], rounds: int) -> tuple[float, float]:
    """Median CPU seconds of (whole lint, floor) over ``rounds`` alternating rounds."""
    lints, floors = [], []
    for _ in range(rounds):
        start = time.process_time()
        lint_wiki(load_wiki(config))  # type: ignore[arg-type]
        lints.append(time.process_time() - start)
        start = time.process_time()
        floor(files)
        floors.append(time.process_time() - start)
    return statistics.median(lints), statistics.median(floors)


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--citations", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, args.cards, args.citations)
        config = load_config(root)
        print(f"load average before: {_loadavg()}")
        lint_s, floor_s = interleaved(config, card_files(config.wiki), args.rounds)
        tracemalloc.start()
        start = time.perf_counter()
        wiki = load_wiki(config)
        findings = lint_wiki(wiki)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        start = time.perf_counter()
        lint_wiki(load_wiki(config))
        untraced = time.perf_counter() - start
    errors = sum(f.level is Level.ERROR for f in findings)
    warnings = sum(f.level is Level.WARNING for f in findings)
    citations = sum(len(c.citations) for c in wiki.cards)
    print(f"cards: {len(wiki.cards)}  citations: {citations}  errors: {errors}  "
          f"warnings: {warnings}")
    print(f"lint time: {untraced:.2f} s  ({len(wiki.cards) / untraced:,.0f} cards/s)")
    print(f"with tracemalloc: {elapsed:.2f} s; peak traced memory: {peak / 2**20:.1f} MiB")
    print(f"interleaved, CPU time, median of {args.rounds}: lint {lint_s:.2f} s, floor (read + "
          f"CSafeLoader + one pydantic validation per card) {floor_s:.2f} s: "
          f"lint / floor = {lint_s / floor_s:.2f}x")
    print(f"load average after: {_loadavg()}")


if __name__ == "__main__":
    main()
