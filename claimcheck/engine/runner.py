"""Run a verify: plan it, run the checks, judge them, store each result as soon as it arrives.

The plan (which claims run, their time limits, what is refused without running) is
:mod:`claimcheck.engine.planning`; turning an outcome into a stored result and a report row is
:mod:`claimcheck.engine.recording`. Every outcome is written to the store as soon as it arrives, so
Ctrl-C keeps every finished result; a check that Ctrl-C stops leaves no result, only an
"interrupted" entry in the history of the result it would have replaced. A failed attempt never
replaces a successful result, nor a smaller budget a larger one (:meth:`ResultStore.record`).

The driver never imports torch: ``--device auto`` is resolved by each check's own process.
"""

from __future__ import annotations

import dataclasses
import itertools
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from claimcheck.cards.frontmatter import Tier
from claimcheck.cards.wiki import ClaimRef, Wiki
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.errors import CheckReferenceError
from claimcheck.core.provenance import environment_info, git_state
from claimcheck.engine.executor import LocalExecutor
from claimcheck.engine.planning import (
    BUDGETS,
    TIER_TIMEOUT_S,
    TRAIN_TIMEOUT_S,
    RunOptions,
    matches,
    needs_run,
    plan,
    refusal,
    timeout_for,
)
from claimcheck.engine.recording import (
    attempt_row,
    interrupted_attempt,
    outcome_result,
    refuse_ambiguous,
    stored_row,
)
from claimcheck.engine.tasks import Executor, Outcome, Task, TaskEvent
from claimcheck.reports.rows import ClaimRow
from claimcheck.sources.checker import QuoteChecker
from claimcheck.store.fingerprint import claim_fingerprint
from claimcheck.store.results import ResultStore, result_stem
from claimcheck.store.status import StoredStatus, shown
from claimcheck.verdicts.verdict import Verdict

__all__ = [
    "BUDGETS", "TIER_TIMEOUT_S", "TRAIN_TIMEOUT_S", "RunListener", "RunOptions", "RunReport",
    "SilentListener", "matches", "needs_run", "stored_row", "timeout_for", "verify",
]


@dataclass
class RunReport:
    """Every selected claim's row, and what this run did."""

    rows: list[ClaimRow]
    ran: int = 0
    errored: int = 0
    interrupted: bool = False
    device: str | None = None

    @property
    def contradicted(self) -> int:
        """How many selected claims are contradicted (fresh or stale)."""
        return sum(row.verdict == Verdict.CONTRADICTED.value for row in self.rows)


class RunListener(Protocol):
    """Hears what a run does, for a progress display."""

    def planned(self, total: int, device: str | None) -> None: ...
    def task_event(self, event: TaskEvent) -> None: ...
    def finished(self, row: ClaimRow) -> None: ...


class SilentListener:
    """A listener that ignores everything."""

    def planned(self, total: int, device: str | None) -> None:
        """Ignore the plan."""

    def task_event(self, event: TaskEvent) -> None:
        """Ignore progress."""

    def finished(self, row: ClaimRow) -> None:
        """Ignore results."""


@dataclass
class _Run:
    wiki: Wiki
    store: ResultStore
    options: RunOptions
    shared: dict[str, Any]
    scratch: Path
    quotes: QuoteChecker

    @property
    def confidence(self) -> float:
        """The project's confidence level, for figures measured over seeds."""
        return self.wiki.config.confidence

    def task(self, ref: ClaimRef) -> tuple[Task, str]:
        check = ref.claim.check or ""
        try:
            tier = claim_tier(ref.claim)
        except CheckReferenceError:
            tier = Tier.UNIT  # the worker reports the bad reference as the check's failure
        task = Task(
            ref.global_id, check, dict(ref.claim.args), self.options.device,
            self.options.budget, self.options.seed, self.scratch / result_stem(ref.global_id),
            self.wiki.config.root, timeout_for(tier, self.options), tier.value,
            ref.claim.resources.model_dump() if ref.claim.resources else None,
        )
        return task, tier.value

    def record(self, status: StoredStatus, tier: str, fingerprint: str,
               outcome: Outcome, refused: bool = False) -> ClaimRow:
        """Store ``outcome`` and give its row; a ``refused`` claim's refusal replaces whatever
        result was stored (an earlier verdict was measured by another check)."""
        ref = status.ref
        result = outcome_result(
            ref, outcome, root=self.wiki.config.root, tier=tier, fingerprint=fingerprint,
            budget=self.options.budget, seed=self.options.seed, device=self.options.device,
            shared=self.shared, confidence=self.wiki.config.confidence,
        )
        artifacts = self.scratch / result_stem(ref.global_id) if outcome.evidence else None
        recorded = self.store.record(result, artifacts, previous=status.stored,
                                     keep_better=not refused)
        if recorded.not_stored:
            row = stored_row(StoredStatus(ref, shown(ref.claim, result, self.confidence), False),
                             self.wiki, self.quotes)
            note = f"not stored: {recorded.not_stored}"
            row = dataclasses.replace(row, verdict=Verdict.UNVERIFIED.value, error=note,
                                      reason="; ".join(p for p in (row.reason, note) if p))
        elif recorded.kept_because:  # counted as what the store keeps, as status counts it
            attempt = stored_row(StoredStatus(ref, shown(ref.claim, result, self.confidence),
                                              False), self.wiki, self.quotes)
            kept = recorded.stored
            row = stored_row(StoredStatus(ref, shown(ref.claim, kept, self.confidence),
                                          kept.fingerprint != fingerprint, fingerprint, kept),
                             self.wiki, self.quotes)
            row = attempt_row(row, attempt, kept, recorded.kept_because)
        else:
            stored = recorded.stored
            row = stored_row(StoredStatus(ref, shown(ref.claim, stored, self.confidence), False,
                                          fingerprint, stored), self.wiki, self.quotes)
        return dataclasses.replace(row, ran=True)


def verify(
    wiki: Wiki,
    options: RunOptions,
    listener: RunListener | None = None,
    executor: Executor | None = None,
) -> RunReport:
    """Run the selected claims that need it and return a row for every selected claim.

    Raises :class:`~claimcheck.core.errors.StoreError` when another verify holds the store's lock.
    """
    hear = listener or SilentListener()
    store = ResultStore(wiki.config.results, wiki.config.root)
    statuses, planned = plan(wiki, store, options)
    quotes = QuoteChecker(wiki.config)
    rows = {s.ref.global_id: stored_row(s, wiki, quotes) for s in statuses}
    report = RunReport(refuse_ambiguous(list(rows.values()), wiki))
    if not planned:
        hear.planned(0, None)
        return report
    report.device = options.device
    shared = {
        "environment": environment_info(),
        "git": git_state(wiki.config.root, ignore=wiki.config.results),
    }
    with store.run_lock(wait=False), tempfile.TemporaryDirectory(prefix="claimcheck-") as folder:
        _, planned = plan(wiki, store, options)  # again, now that no other run can write
        hear.planned(len(planned), options.device)
        run = _Run(wiki, store, options, shared, Path(folder), quotes)
        by_key = {s.ref.global_id: s for s in planned}
        tasks = {key: run.task(status.ref) for key, status in by_key.items()}
        fingerprints = {
            key: status.fingerprint or claim_fingerprint(status.ref, wiki.config)
            for key, status in by_key.items()
        }
        refused = {key: why for key, status in by_key.items()
                   if (why := refusal(status, wiki.config))}
        runnable = [task for key, (task, _) in tasks.items() if key not in refused]
        started: set[str] = set()

        def heard(event: TaskEvent) -> None:
            started.add(event.key)
            hear.task_event(event)

        running: Iterator[Outcome] = iter(())
        if runnable:
            running = (executor or LocalExecutor(options.jobs)).run(runnable, heard)
        failed = (Outcome(key, None, why, error=why, errored=True)
                  for key, why in refused.items())
        try:
            for outcome in itertools.chain(failed, running):
                key = outcome.key
                started.discard(key)
                row = run.record(by_key[key], tasks[key][1], fingerprints[key], outcome,
                                 refused=key in refused)
                rows[key] = row
                report.ran += 1
                report.errored += outcome.errored
                hear.finished(row)
        except KeyboardInterrupt:
            report.interrupted = True
            for key in sorted(started):
                store.note_attempt(key, interrupted_attempt(options.budget, fingerprints[key]))
        finally:
            close = getattr(running, "close", None)
            if close is not None:
                close()
    report.rows = refuse_ambiguous(list(rows.values()), wiki)
    return report
