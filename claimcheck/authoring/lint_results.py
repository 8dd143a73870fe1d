"""Lint rule: results that no card claims.

A claim that is removed or renamed leaves its result file in the store (``.claimcheck/results/``),
where it is never shown, re-run or re-judged again, and CI keeps committing it. Each such file
is a warning at its own path, naming the claim it was made for. While a card does not load, its
claims are unknown, so the rule stays silent rather than call their results orphans.

Only names are read (:func:`claimcheck.core.safe_fs.list_folder`: no link is followed).
"""

from __future__ import annotations

from collections.abc import Iterator

from claimcheck.authoring.findings import Finding, Level
from claimcheck.cards.wiki import Wiki
from claimcheck.core import safe_fs
from claimcheck.store.results import result_stem

__all__ = ["unclaimed_results"]


def unclaimed_results(wiki: Wiki) -> Iterator[Finding]:
    """A warning per result file whose claim no card holds."""
    if wiki.load_errors or not wiki.config.results.is_dir():
        return
    claimed = {result_stem(ref.global_id) for ref in wiki.claims()}
    try:
        names = safe_fs.list_folder(wiki.config.results, "results")
    except (OSError, safe_fs.UnsafeEntry):
        return  # verify and status refuse such a store with their own message
    shown = wiki.config.relative(wiki.config.results)
    for name, kind in names:
        if kind is not None or name.startswith(".") or not name.endswith(".json"):
            continue
        stem = name.removesuffix(".json")
        if stem not in claimed:
            claim = stem.replace("__", "/", 1) if "__" in stem else stem
            yield Finding(Level.WARNING, f"{shown}/results/{name}", 1, 1,
                          f"a result that no card claims ({claim}: its claim was removed or "
                          "renamed): delete the file, or restore the claim", "unclaimed-result")
