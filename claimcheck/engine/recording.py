"""From a task's outcome to a stored :class:`~claimcheck.store.result.Result`, and from a stored
status to a report row.

Every outcome is judged (:func:`claimcheck.verdicts.judge.judge`) against the claim's ``expect``.
What the check printed is appended, bounded, to the details. Every text that goes into the store
(reason, details, traceback) has its absolute paths made relative to the project root or marked
as outside it (:func:`claimcheck.store.portable_paths.scrub`), so a committed result never holds the
folders of the machine that ran it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, NamedTuple

from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.wiki import ClaimRef, Wiki
from claimcheck.core.provenance import now_iso
from claimcheck.engine.planning import refusal
from claimcheck.engine.tasks import Outcome
from claimcheck.reports.rows import ClaimRow
from claimcheck.sources.checker import QuoteChecker, is_textual
from claimcheck.store.conflicts import refused_identities
from claimcheck.store.portable_paths import scrub
from claimcheck.store.result import Result
from claimcheck.store.status import StoredStatus
from claimcheck.verdicts.interval import interval_display
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import Verdict, unverified

NEVER_RUN = "never run: run `claimcheck verify`"


def judged(ref: ClaimRef, outcome: Outcome, confidence: float | None = None
           ) -> tuple[Verdict, str]:
    """The verdict and reason of one outcome (no evidence: unverified, with the reason);
    ``confidence`` is the level for evidence measured over seeds."""
    if outcome.evidence is None:
        judgement = unverified(outcome.reason or "the check produced no evidence")
    else:
        judgement = judge(ref.claim, outcome.evidence, confidence)
    return judgement.verdict, judgement.reason


def with_output(details: str, output: str) -> str:
    """``details``, then what the check printed (already bounded by the worker)."""
    if not output.strip():
        return details
    printed = f"The check printed ({len(output):,} characters kept):\n{output.rstrip()}"
    return f"{details}\n\n{printed}" if details else printed


def outcome_result(
    ref: ClaimRef, outcome: Outcome, *, root: Path, tier: str, fingerprint: str,
    budget: str, seed: int, device: str, shared: dict[str, Any],
    confidence: float | None = None,
) -> Result:
    """The result to store for ``outcome`` (its paths scrubbed; see the module docstring)."""
    verdict, reason = judged(ref, outcome, confidence)
    evidence = outcome.evidence
    details = with_output(evidence.details if evidence else "", outcome.output)
    return Result(
        claim=ref.global_id, card=_relative(ref.card.path, root), line=ref.line,
        statement=ref.claim.statement, cite=ref.claim.locators, check=ref.claim.check,
        tier=tier, budget=budget, verdict=verdict, reason=scrub(reason, root),
        measured=evidence.measured if evidence else None,
        expected=ref.claim.expect.as_mapping() if ref.claim.expect else None,
        fidelity=evidence.fidelity.value if evidence else None,
        fingerprint=fingerprint, details=scrub(details, root),
        device=outcome.device or device, seed=seed, duration_s=round(outcome.duration_s, 4),
        timestamp=now_iso(),
        artifacts=dict(evidence.artifacts) if evidence else {},
        error=None if outcome.error is None else scrub(outcome.error, root),
        data=evidence.data if evidence else None,
        timings=dict(evidence.timings) if evidence else {},
        interval=evidence.interval if evidence else None,
        environment=dict(shared.get("environment", {})), git=dict(shared.get("git", {})),
    )


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root))
    except ValueError:
        return str(path)


def interrupted_attempt(budget: str, fingerprint: str) -> dict[str, Any]:
    """The history entry of a run that Ctrl-C stopped before its check finished."""
    return {"verdict": Verdict.UNVERIFIED.value, "reason": "interrupted before it finished",
            "measured": None, "timestamp": now_iso(), "fingerprint": fingerprint,
            "budget": budget, "errored": True, "kept_earlier_result": "failed"}


class _QuoteFields(NamedTuple):
    """The row fields that say what a verdict is evidence of (in ClaimRow's order)."""

    basis: str | None
    quote: str | None
    quote_state: str | None
    quote_message: str
    secondary_source: str | None


def refuse_ambiguous(rows: list[ClaimRow], wiki: Wiki) -> list[ClaimRow]:
    """``rows`` with every claim whose identity is ambiguous (:mod:`claimcheck.store.conflicts`)
    shown as refused with lint's message, whatever the store holds for its id: it errs, so the
    run fails, and no stored verdict is shown for a claim two cards could own."""
    return _shown_refused(rows, refused_identities(wiki))


def refuse_unrunnable(rows: list[ClaimRow], statuses: list[StoredStatus],
                      wiki: Wiki) -> list[ClaimRow]:
    """``rows`` with every claim that verify would refuse as its card now stands (a function
    the trust boundary refuses, an unknown kind, a path outside the data roots:
    :func:`~claimcheck.engine.planning.refusal`) shown as refused with lint's message, however
    the store holds an earlier check's verdict: that verdict was measured by another check."""
    return _shown_refused(rows, {
        status.ref.global_id: why for status in statuses
        if status.ref.claim.check is not None and (why := refusal(status, wiki.config))})


def _shown_refused(rows: list[ClaimRow], refused: dict[str, str]) -> list[ClaimRow]:
    """``rows`` with each claim of ``refused`` (global id: lint's message) unverified and in
    error with that message, no stored measurement, verdict or interval shown."""
    return [row if row.claim not in refused else dataclasses.replace(
        row, verdict=Verdict.UNVERIFIED.value, reason=refused[row.claim],
        error=refused[row.claim], measured=None, fidelity=None, stale=False, interval=None,
        shown=None, ran=False)
        for row in rows]


def stored_row(
    status: StoredStatus, wiki: Wiki, quotes: QuoteChecker | None = None
) -> ClaimRow:
    """The row of a claim from the store (as shown: judged again), or its by-design / never-run
    reason.

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
        return ClaimRow(
            ref.global_id, card, ref.line, claim.statement, Verdict.UNVERIFIED.value,
            claim.unverified or NEVER_RUN, None, expected, None, False, None,
            claim.tier.value if claim.tier else None, None, None, "", None, False, *extra,
        )
    return ClaimRow(
        ref.global_id, card, ref.line, claim.statement, Verdict(result.verdict).value,
        result.reason, result.measured, expected, result.fidelity, status.stale,
        result.duration_s, result.tier, result.budget, result.device, result.details or "",
        result.error, False, *extra, environment_note=status.environment_note,
        interval=result.interval,
        shown=interval_display(result.interval, wiki.config.confidence, result.budget),
    )


def attempt_row(row: ClaimRow, attempt: ClaimRow, kept: Result, because: str) -> ClaimRow:
    """This run's row for an attempt that did not replace the stored result: the kept result
    (``row``), as ``status`` shows it and the summary counts it, with what the attempt gave and
    why it was not stored; an errored attempt still errs (exit code 1)."""
    outcome = "errored" if attempt.errored else attempt.verdict
    said = attempt.reason or f"measured {attempt.measured_text()}"
    ran = "" if said in row.reason else f"this run (budget {attempt.budget}) {outcome}: {said}; "
    note = (f"{ran}not stored: the earlier {kept.verdict.value} result ({kept.timestamp}, budget "
            f"{kept.budget}) is kept, as this attempt {because}")
    return dataclasses.replace(row, reason="; ".join(p for p in (row.reason, note) if p),
                               error=attempt.error if attempt.errored else None,
                               duration_s=attempt.duration_s)
