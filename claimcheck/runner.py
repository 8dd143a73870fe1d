"""Plan and run a verify: which claims to run, run them, judge them, store each result at once.

The planner runs a claim when it has a check and its stored result is missing or stale (or with
``force``); ``only`` narrows the selection with an fnmatch pattern on the global id, the arXiv id
or the card's slug. A stored ``train`` result made at a smaller budget than the one asked for is
re-run; a larger one satisfies a smaller request (a ``full`` GPU result is never overwritten by a
``smoke`` run). Claims marked ``unverified: reason`` are reported with that reason, never run.
A result whose check errored is kept like any other until its inputs change or ``force``.

Every outcome is judged (:func:`claimcheck.verdict.judge`) and written to the store as soon as it
arrives, so Ctrl-C keeps every finished result; nothing half-done is recorded. torch is imported
only when something actually runs (to resolve ``--device auto``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from claimcheck.cards import PaperCard, Tier
from claimcheck.checks.resolve import claim_tier
from claimcheck.errors import CheckReferenceError
from claimcheck.executor import Executor, LocalExecutor, Outcome, Task, TaskEvent
from claimcheck.fingerprint import claim_fingerprint
from claimcheck.output import ClaimRow
from claimcheck.provenance import environment_info, git_state, now_iso
from claimcheck.sources.checker import QuoteChecker, is_textual
from claimcheck.status import StoredStatus, collect_status
from claimcheck.store import Result, ResultStore, result_stem
from claimcheck.verdict import Verdict, judge, unverified
from claimcheck.wiki import ClaimRef, Wiki

BUDGETS = ("smoke", "short", "full")
TIER_TIMEOUT_S = {Tier.STATIC: 120.0, Tier.UNIT: 120.0, Tier.BENCH: 300.0}
TRAIN_TIMEOUT_S = {"smoke": 900.0, "short": 3600.0, "full": 48 * 3600.0}


@dataclass(frozen=True)
class RunOptions:
    """The knobs of one verify run (``timeout_s=None``: the tier's default)."""

    budget: str = "smoke"
    device: str = "auto"
    timeout_s: float | None = None
    jobs: int = 1
    force: bool = False
    only: str | None = None
    seed: int = 0


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


def matches(ref: ClaimRef, pattern: str | None) -> bool:
    """Whether ``--only PATTERN`` selects ``ref`` (global id, arXiv id or card slug)."""
    if pattern is None:
        return True
    names = (ref.global_id, ref.arxiv, ref.card.card.slug)
    return any(fnmatch.fnmatchcase(name, pattern) for name in names)


def needs_run(status: StoredStatus, options: RunOptions) -> bool:
    """Whether a claim with a check must run now (see the module docstring)."""
    result = status.result
    if options.force or result is None or status.stale:
        return True
    if result.tier == Tier.TRAIN.value and result.budget in BUDGETS:
        return BUDGETS.index(result.budget) < BUDGETS.index(options.budget)
    return False


def timeout_for(tier: Tier, options: RunOptions) -> float:
    """``--timeout`` if given, else the tier's default (train: by budget)."""
    if options.timeout_s is not None:
        return options.timeout_s
    if tier is Tier.TRAIN:
        return TRAIN_TIMEOUT_S[options.budget]
    return TIER_TIMEOUT_S[tier]


def resolve_device(requested: str) -> tuple[str, str]:
    """(device, why it is unusable or ""); ``auto`` is cuda when torch sees one, else cpu."""
    if requested == "cpu":
        return "cpu", ""
    import torch

    available = bool(torch.cuda.is_available())
    if requested == "auto":
        return ("cuda" if available else "cpu"), ""
    return requested, "" if available else "device unavailable: torch sees no CUDA device"


class _QuoteFields(NamedTuple):
    """The row fields that say what a verdict is evidence of (in ClaimRow's order)."""

    basis: str | None
    quote: str | None
    quote_state: str | None
    quote_message: str
    secondary_source: str | None


def stored_row(
    status: StoredStatus, wiki: Wiki, quotes: QuoteChecker | None = None
) -> ClaimRow:
    """The row of a claim from the store, or its by-design / never-run reason.

    A ``textual`` claim's verdict is derived from its quote (:mod:`claimcheck.sources.checker`),
    never read from the store; every row carries the claim's basis and its quote's state.
    """
    ref, result = status.ref, status.result
    claim = ref.claim
    card = wiki.config.relative(ref.card.path)
    expected = claim.expect.as_mapping() if claim.expect else None
    basis = ref.basis.value if ref.basis is not None else None
    quotes = quotes or QuoteChecker(wiki.config)
    paper = ref.card.card if isinstance(ref.card.card, PaperCard) else None
    check = quotes.claim_quote(paper, claim) if paper is not None else None
    extra = _QuoteFields(basis, claim.quote, check.state.value if check else None,
                         check.message if check else "", claim.secondary_source)
    if paper is not None and is_textual(claim):
        textual = quotes.textual_verdict(paper, claim)
        return ClaimRow(
            ref.global_id, card, ref.line, claim.statement, textual.verdict, textual.reason,
            None, None, None, False, None, None, None, None, textual.check.message, None, False,
            *extra,
        )
    if claim.check is None or result is None:
        reason = claim.unverified or "never run: run `claimcheck verify`"
        return ClaimRow(
            ref.global_id, card, ref.line, claim.statement, Verdict.UNVERIFIED.value, reason,
            None, expected, None, False, None, claim.tier.value if claim.tier else None,
            None, None, "", None, False, *extra,
        )
    return ClaimRow(
        ref.global_id, card, ref.line, claim.statement, Verdict(result.verdict).value,
        result.reason, result.measured, expected, result.fidelity, status.stale,
        result.duration_s, result.tier, result.budget, result.device, result.details or "",
        result.error, False, *extra,
    )


def _judged(ref: ClaimRef, outcome: Outcome) -> tuple[Verdict, str]:
    if outcome.evidence is None:
        judgement = unverified(outcome.reason or "the check produced no evidence")
    else:
        judgement = judge(ref.claim, outcome.evidence)
    return judgement.verdict, judgement.reason


@dataclass
class _Run:
    wiki: Wiki
    store: ResultStore
    options: RunOptions
    device: str
    shared: dict[str, Any]
    scratch: Path

    def task(self, ref: ClaimRef) -> tuple[Task, str]:
        check = ref.claim.check or ""
        try:
            tier = claim_tier(ref.claim)
        except CheckReferenceError:
            tier = Tier.UNIT  # the worker reports the bad reference as the check's failure
        task = Task(
            ref.global_id, check, dict(ref.claim.args), self.device, self.options.budget,
            self.options.seed, self.scratch / result_stem(ref.global_id), self.wiki.config.root,
            timeout_for(tier, self.options), tier.value,
            ref.claim.resources.model_dump() if ref.claim.resources else None,
        )
        return task, tier.value

    def record(self, ref: ClaimRef, tier: str, fingerprint: str, outcome: Outcome) -> ClaimRow:
        verdict, reason = _judged(ref, outcome)
        evidence = outcome.evidence
        data = {
            "schema": 1, "claim": ref.global_id,
            "card": self.wiki.config.relative(ref.card.path), "line": ref.line,
            "statement": ref.claim.statement, "cite": ref.claim.locators,
            "check": ref.claim.check, "tier": tier, "budget": self.options.budget,
            "verdict": verdict.value, "reason": reason,
            "measured": evidence.measured if evidence else None,
            "expected": ref.claim.expect.as_mapping() if ref.claim.expect else None,
            "fidelity": evidence.fidelity.value if evidence else None,
            "details": evidence.details if evidence else "",
            "device": self.device, "seed": self.options.seed,
            "duration_s": round(outcome.duration_s, 4),
            "timestamp": now_iso(),
            "fingerprint": fingerprint,
            "artifacts": dict(evidence.artifacts) if evidence else {},
            "data": evidence.data if evidence else None,
            "timings": dict(evidence.timings) if evidence else {},
            "error": outcome.error, "history": [], **self.shared,
        }
        artifacts = self.scratch / result_stem(ref.global_id) if evidence else None
        written = self.store.write(Result.from_json(data), artifacts_dir=artifacts)
        return dataclasses.replace(
            stored_row(StoredStatus(ref, written, False), self.wiki), ran=True
        )


def _plan(
    wiki: Wiki, store: ResultStore, options: RunOptions
) -> tuple[list[StoredStatus], list[StoredStatus]]:
    statuses = [s for s in collect_status(wiki, store) if matches(s.ref, options.only)]
    planned = [s for s in statuses if s.ref.claim.check is not None and needs_run(s, options)]
    return statuses, planned


def verify(
    wiki: Wiki,
    options: RunOptions,
    listener: RunListener | None = None,
    executor: Executor | None = None,
) -> RunReport:
    """Run the selected claims that need it and return a row for every selected claim.

    Raises :class:`~claimcheck.errors.StoreError` when another verify holds the store's lock.
    """
    hear = listener or SilentListener()
    store = ResultStore(wiki.config.results)
    statuses, planned = _plan(wiki, store, options)
    quotes = QuoteChecker(wiki.config)
    rows = {s.ref.global_id: stored_row(s, wiki, quotes) for s in statuses}
    report = RunReport(list(rows.values()))
    if not planned:
        hear.planned(0, None)
        return report
    device, unusable = resolve_device(options.device)
    report.device = device
    shared = {
        "environment": environment_info(),
        "git": git_state(wiki.config.root, ignore=wiki.config.results),
    }
    with store.run_lock(wait=False), tempfile.TemporaryDirectory(prefix="claimcheck-") as folder:
        _, planned = _plan(wiki, store, options)  # again, now that no other run can write
        hear.planned(len(planned), device)
        run = _Run(wiki, store, options, device, shared, Path(folder))
        refs = {s.ref.global_id: s.ref for s in planned}
        tasks = {key: run.task(ref) for key, ref in refs.items()}
        fingerprints = {
            s.ref.global_id: s.fingerprint or claim_fingerprint(s.ref, wiki.config)
            for s in planned
        }
        if unusable:
            outcomes: Iterator[Outcome] = iter([Outcome(k, None, unusable) for k in tasks])
        else:
            outcomes = (executor or LocalExecutor(options.jobs)).run(
                [task for task, _ in tasks.values()], hear.task_event
            )
        try:
            for outcome in outcomes:
                key = outcome.key
                row = run.record(refs[key], tasks[key][1], fingerprints[key], outcome)
                rows[key] = row
                report.ran += 1
                report.errored += outcome.errored
                hear.finished(row)
        except KeyboardInterrupt:
            report.interrupted = True
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()
    report.rows = list(rows.values())
    return report
