"""``claimcheck verify --power``: run each verified claim's check once per listed wrong variant.

After the ordinary verify (which re-runs only what is missing or stale), :func:`run_power` plans
one task per (claim, listed variant) whose power run is missing or stale (all of them with
``--force``, and all of a claim whose power file a pull request changed, with
``--recheck-results-changed-since``), for the selected claims that are verified and fresh
(:mod:`claimcheck.store.power`).
Each task is the claim's own task (check, args, seed, time limit, resources) with the variant's
reference: the worker runs it in a fresh process, like every check, and the child applies the
variant right before the check runs (:func:`claimcheck.engine.child.apply_variant`), so nothing of a
variant outlives its task or reaches another check. Each outcome is judged against the claim's
``expect`` exactly as a normal run's is, and written to the power store as soon as it arrives.

Bounds. A training claim's variants run at the budget of the claim's stored result, never above
this run's ``--budget``: a claim verified at ``short`` has its variants run only by ``verify
--power --budget short`` (at the default ``smoke`` they stay "not run"). Everything else runs at
the run's budget, which only training uses.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from claimcheck.cards.frontmatter import Tier
from claimcheck.cards.wiki import Wiki
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.errors import ClaimcheckError
from claimcheck.core.provenance import now_iso
from claimcheck.engine.child import CHECK_RAISED
from claimcheck.engine.executor import LocalExecutor
from claimcheck.engine.planning import RunOptions, matches, refusal, timeout_for
from claimcheck.engine.recording import judged, with_output
from claimcheck.engine.tasks import Executor, Outcome, Task
from claimcheck.reports.rows import ClaimRow
from claimcheck.store.conflicts import refused_identities
from claimcheck.store.fingerprint import Fingerprinter
from claimcheck.store.portable_paths import scrub
from claimcheck.store.power import ClaimPower, claim_power, power_budget, variant_fingerprint
from claimcheck.store.power_results import PowerStore, VariantRun
from claimcheck.store.result import budget_rank
from claimcheck.store.results import ResultStore, result_stem
from claimcheck.store.status import StoredStatus, collect_status
from claimcheck.trust.variants import Catalogue, WrongVariant, load_catalogue
from claimcheck.verdicts.verdict import Verdict

__all__ = ["PowerJob", "PowerReport", "add_power", "plan_power", "run_power"]

KEY_SEPARATOR = "#"
"""Between a claim's global id and a variant's name in a power task's key."""


@dataclass(frozen=True)
class PowerJob:
    """One power run to do: a claim, one of its variants, its fingerprint and its task."""

    status: StoredStatus
    variant: WrongVariant
    fingerprint: str
    task: Task


@dataclass
class PowerReport:
    """What a power run did: how many variant runs it made and how many errored."""

    ran: int = 0
    errored: int = 0
    interrupted: bool = False


def plan_power(wiki: Wiki, statuses: list[StoredStatus], options: RunOptions,
               catalogue: Catalogue, fingerprints: Fingerprinter, scratch: Path
               ) -> list[PowerJob]:
    """The power runs this run must make (see the module docstring)."""
    store = PowerStore(wiki.config.results)
    jobs: list[PowerJob] = []
    for status in statuses:
        claim = status.ref.claim
        if not claim.catches or claim.check is None:
            continue
        power = claim_power(status, catalogue, store, fingerprints, wiki.config.confidence)
        if not power.applicable or refusal(status, wiki.config, options):
            continue
        budget = power_budget(status, options.budget)
        if budget_rank(budget) > budget_rank(options.budget):
            continue
        runs = store.read(status.ref.global_id)
        for name in claim.catches:
            try:
                variant = catalogue.resolve(name, fingerprints.index)
            except ClaimcheckError:
                continue  # lint's error; the view shows it as unknown
            fingerprint = variant_fingerprint(status, variant, fingerprints)
            run = runs.get(variant.name)
            again = options.force or status.ref.global_id in options.recheck_power
            if run is not None and run.fingerprint == fingerprint and not again:
                continue
            task = _task(status, variant, budget, options, scratch, wiki.config.root)
            jobs.append(PowerJob(status, variant, fingerprint, task))
    return jobs


def _task(status: StoredStatus, variant: WrongVariant, budget: str, options: RunOptions,
          scratch: Path, root: Path) -> Task:
    ref = status.ref
    try:
        tier = claim_tier(ref.claim)
    except ClaimcheckError:
        tier = Tier.UNIT
    key = f"{ref.global_id}{KEY_SEPARATOR}{variant.name}"
    return Task(
        key, ref.claim.check or "", dict(ref.claim.args), options.device, budget, options.seed,
        scratch / f"{result_stem(ref.global_id)}.{variant.name}", root,
        timeout_for(tier, options), tier.value,
        ref.claim.resources.model_dump() if ref.claim.resources else None,
        variant=variant.reference,
    )


def run_power(wiki: Wiki, options: RunOptions, listener: object | None = None,
              executor: Executor | None = None) -> PowerReport:
    """Make every power run :func:`plan_power` plans, storing each as it arrives.

    ``listener`` may have the methods of :class:`claimcheck.engine.runner.RunListener`.
    Raises :class:`~claimcheck.core.errors.StoreError` when another verify holds the store's lock.
    """
    report = PowerReport()
    results = ResultStore(wiki.config.results)
    store = PowerStore(wiki.config.results)
    with results.run_lock(wait=False), tempfile.TemporaryDirectory(prefix="claimcheck-") as tmp:
        refused = refused_identities(wiki)  # an ambiguous claim is never run (conflicts.py)
        statuses = [s for s in collect_status(wiki, results)
                    if matches(s.ref, options.only) and s.ref.global_id not in refused]
        fingerprints = Fingerprinter(wiki.config, cache_dir=results.folder / "cache")
        catalogue = load_catalogue(wiki.config, fingerprints.index)
        jobs = {job.task.key: job
                for job in plan_power(wiki, statuses, options, catalogue, fingerprints,
                                      Path(tmp))}
        _call(listener, "planned", len(jobs), options.device)
        if not jobs:
            return report
        running: Iterator[Outcome] = (executor or LocalExecutor(options.jobs)).run(
            [job.task for job in jobs.values()],
            lambda event: _call(listener, "task_event", event))
        try:
            for outcome in running:
                job = jobs[outcome.key]
                run = _variant_run(job, outcome, wiki)
                stored = store.read(job.status.ref.global_id)
                listed = _listed_names(job.status, catalogue)
                kept = {name: r for name, r in stored.items() if name in listed}
                store.write(job.status.ref.global_id, {**kept, job.variant.name: run})
                report.ran += 1
                report.errored += run.errored
                _call(listener, "finished", _progress_row(job, run))
        except KeyboardInterrupt:
            report.interrupted = True
        finally:
            close = getattr(running, "close", None)
            if close is not None:
                close()
    return report


def _listed_names(status: StoredStatus, catalogue: Catalogue) -> set[str]:
    """The card names of the variants a claim lists (a card may write full references)."""
    names = set()
    for text in status.ref.claim.catches:
        try:
            names.add(catalogue.resolve(text).name)
        except ClaimcheckError:
            continue
    return names


def _variant_run(job: PowerJob, outcome: Outcome, wiki: Wiki) -> VariantRun:
    root = wiki.config.root
    verdict, reason = judged(job.status.ref, outcome, wiki.config.confidence)
    evidence = outcome.evidence
    details = with_output(evidence.details if evidence else "", outcome.output)
    return VariantRun(
        reference=job.variant.reference, fingerprint=job.fingerprint, verdict=verdict.value,
        reason=scrub(reason, root), measured=evidence.measured if evidence else None,
        fidelity=evidence.fidelity.value if evidence else None, details=scrub(details, root),
        error=None if outcome.error is None else scrub(outcome.error, root),
        budget=job.task.budget, duration_s=round(outcome.duration_s, 4), timestamp=now_iso(),
        interval=evidence.interval if evidence else None, raised=_check_raised(outcome),
    )


EXHAUSTION = ("MemoryError", "RecursionError")
"""Exceptions that say a limit ran out (the memory limit, the stack: typically a variant whose
replacement calls the very name it replaced), not what the check measures: errored, not caught."""


def _check_raised(outcome: Outcome) -> bool:
    """Whether the claim's check itself raised under the variant: the claim is then no longer
    verified because of the broken model, so the variant counts as caught; :data:`EXHAUSTION`
    counts as errored."""
    if outcome.evidence is not None or outcome.error is None:
        return False
    if not outcome.reason.startswith(f"{CHECK_RAISED} "):
        return False
    raised = outcome.reason[len(CHECK_RAISED) + 1:].split(":", 1)[0]
    return raised not in EXHAUSTION


def _progress_row(job: PowerJob, run: VariantRun) -> ClaimRow:
    """A row for a progress display's echo line: the task's key, the verdict under the variant.
    """
    ref = job.status.ref
    caught = "caught" if run.verdict != Verdict.VERIFIED.value else "MISSED"
    label = "errored" if run.errored else caught
    return ClaimRow(job.task.key, str(ref.card.path), ref.line, ref.claim.statement,
                    run.verdict, f"{label}: {run.reason}" if run.reason else label,
                    run.measured, None, run.fidelity, False, run.duration_s, job.task.tier,
                    run.budget, None, error=run.error)


def _call(listener: object | None, method: str, *args: object) -> None:
    function = getattr(listener, method, None)
    if callable(function):
        function(*args)


def add_power(rows: list[ClaimRow], wiki: Wiki,
              statuses: list[StoredStatus] | None = None) -> list[ClaimRow]:
    """``rows`` with each checked claim's power section (``ClaimRow.power``) derived from the
    store; ``statuses`` are read from the store when not given and a claim lists variants."""
    refs = {ref.global_id: ref for ref in wiki.claims()}
    listing = any(ref.claim.catches for ref in refs.values())
    if statuses is None and listing:
        statuses = collect_status(wiki, ResultStore(wiki.config.results))
    by_id = {status.ref.global_id: status for status in statuses or []}
    results = wiki.config.results
    store = PowerStore(results)
    fingerprints = Fingerprinter(wiki.config, cache_dir=results / "cache")
    catalogue = load_catalogue(wiki.config, fingerprints.index) if listing else None
    shown: list[ClaimRow] = []
    for row in rows:
        ref = refs.get(row.claim)
        if ref is None or ref.claim.check is None:
            shown.append(row)
            continue
        status = by_id.get(row.claim)
        if status is None or catalogue is None:
            power = ClaimPower((), ref.claim.catches_note)
        else:
            power = claim_power(status, catalogue, store, fingerprints, wiki.config.confidence)
        shown.append(dataclasses.replace(row, power=power.to_json()))
    return shown
