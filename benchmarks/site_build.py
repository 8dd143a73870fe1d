"""Site build time: the repository's wiki, and a generated wiki of 1,000 cards.

Each build is ``python -m mkdocs build --strict`` in a fresh process (what CI and a reader pay,
Python start-up included), with the claimcheck plugin, search and offline plugins on. Run:
``python benchmarks/site_build.py [--cards 1000] [--repeats 3]``. Target: the repo's wiki < 5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPERS = 50
LOCATORS = ("§3.1", "tab. 2", "eq. 5", "fig. 4", "alg. 1")
CITATIONS_PER_CONCEPT = 10
MKDOCS_YML = """site_name: generated wiki
docs_dir: wiki
theme:
  name: material
  font: false
  features: [navigation.sections, navigation.indexes]
plugins: [search, offline, claimcheck]
extra: {generator: false}
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
        f"# Paper {index}\n\nThe method [arxiv:{arxiv} §3.1].\n"
    )


def _concept_card(index: int) -> str:
    sentences = "\n".join(
        f"Sentence {n} states a fact [arxiv:2101.{10000 + (index + n) % PAPERS} "
        f"{LOCATORS[n % len(LOCATORS)]}]."
        for n in range(CITATIONS_PER_CONCEPT)
    )
    return (
        f"---\nkind: concept\nslug: concept-{index}\ntitle: Concept {index}\n"
        f"tags: [generated]\nupdated_at: 2026-11-29\n---\n\n# Concept {index}\n\n{sentences}\n"
    )


def generate(folder: Path, cards: int) -> Path:
    """Write a project with ``cards`` cards (``PAPERS`` papers, the rest concepts)."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text('[tool.claimcheck]\nwiki = "wiki"\n', encoding="utf-8")
    (folder / "mkdocs.yml").write_text(MKDOCS_YML, encoding="utf-8")
    for kind in ("papers", "concepts"):
        (folder / "wiki" / kind).mkdir(parents=True)
    (folder / "wiki" / "index.md").write_text("# Generated wiki\n", encoding="utf-8")
    papers = min(PAPERS, cards)
    for index in range(papers):
        path = folder / "wiki" / "papers" / f"paper-{index}.md"
        path.write_text(_paper_card(index), encoding="utf-8")
    for index in range(cards - papers):
        path = folder / "wiki" / "concepts" / f"concept-{index}.md"
        path.write_text(_concept_card(index), encoding="utf-8")
    return folder


def build_seconds(project: Path, site: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one strict build of ``project`` into ``site``.

    CPU time is reported too because wall time on a shared machine depends on its load.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
        cwd=project,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        repo = [build_seconds(ROOT, scratch / "repo-site") for _ in range(args.repeats)]
        cards = len(list((ROOT / "wiki").rglob("*.md")))
        generated = generate(scratch / "generated", args.cards)
        large = build_seconds(generated, scratch / "generated-site")
    repo_wall = statistics.median(wall for wall, _ in repo)
    repo_cpu = statistics.median(cpu for _, cpu in repo)
    print(f"load average before the runs: {load:.1f} on {os.cpu_count()} cores")
    print("| wiki | pages | wall s (fresh process) | CPU s |")
    print("|---|---|---|---|")
    print(
        f"| repository `wiki/` | {cards} | {repo_wall:.2f} (median of {args.repeats}) "
        f"| {repo_cpu:.2f} |"
    )
    print(f"| generated | {args.cards} | {large[0]:.2f} | {large[1]:.2f} |")
    verdict = "meets" if repo_wall < 5 else "misses"
    print(f"\nThe repository's wiki {verdict} the 5 s target (wall).")


if __name__ == "__main__":
    main()
