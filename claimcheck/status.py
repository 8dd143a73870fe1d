"""Stored status of every claim: its last result, and whether that result is stale.

Status is derived, never asserted: a result is stale when the fingerprint stored with it differs
from the claim's fingerprint now (:mod:`claimcheck.fingerprint`). Nothing here runs a check or
imports torch, so ``claimcheck status``, the verify planner and the site can all afford it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimcheck.fingerprint import Fingerprinter
from claimcheck.store import Result, ResultStore

if TYPE_CHECKING:
    from claimcheck.wiki import ClaimRef, Wiki

STALE_LEGEND = (
    "stale: the claim, its check's code, the modules that code imports, or the tool or torch "
    "version changed since this result was stored; run `claimcheck verify` to refresh it."
)


@dataclass(frozen=True)
class StoredStatus:
    """One claim with its stored result (``None``: never run) and its stale marker.

    ``fingerprint`` is the claim's current fingerprint, for a caller that goes on to run it.
    """

    ref: ClaimRef
    result: Result | None
    stale: bool
    fingerprint: str = ""


def collect_status(wiki: Wiki, store: ResultStore) -> list[StoredStatus]:
    """The status of every claim of ``wiki``, in wiki order (one read of the store)."""
    stored = store.read_all()
    fingerprints = Fingerprinter(wiki.config, cache_dir=store.folder / "cache")
    statuses: list[StoredStatus] = []
    for ref in wiki.claims():
        current = fingerprints.fingerprint(ref.claim)
        result = stored.get(ref.global_id)
        stale = result is not None and result.fingerprint != current
        statuses.append(StoredStatus(ref, result, stale, current))
    fingerprints.save()
    return statuses
