"""``claimcheck verify --power``: run the wrong variants against every claim whose check reaches
them, a matrix.

After the ordinary verify (which re-runs only what is missing or stale), :func:`run_power` takes
each selected claim that is verified and fresh, not refused (:mod:`claimcheck.store.conflicts`)
and within the run's budget, and each variant of the catalogue whose power run for that claim is
missing, stale or was never decided (an error, exhaustion: retried every time; all of them with
``--force``, and all of a claim whose power file a pull request changed, with
``--recheck-results-changed-since``). A variant found unreached by the same claim under the same
fingerprint is not asked again.

Two rounds of tasks, each in a check's own process (:mod:`claimcheck.engine.power_child`):

1. one **probe** finds what each unlisted candidate variant changes;
2. one **bundle** per claim runs the check without a variant (traced: what content code it
   executes), then each listed variant, and each unlisted one whose changes the check reached,
   each in a fork of the bundle's process, which imported the check's module once.

Each outcome is judged against the claim's ``expect`` exactly as a normal run's is, with the
bundle's unvaried measurement beside it (:mod:`claimcheck.store.power` derives the state), and
the claim's power file is written as soon as its bundle ends; the variants found unreached are
written by fingerprint, so that they are not asked again until the claim or the variant changes.

Bounds. A training claim's variants run at the budget of the claim's stored result, never above
this run's ``--budget``: a claim verified at ``short`` has its variants run only by ``verify
--power --budget short`` (at the default ``smoke`` they stay "not run"). Everything else runs at
the run's budget, which only training uses. The claim's ``resources:`` apply to the bundle's
process, so alike to the unvaried and every varied run; each run has the claim's safety net.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.cards.frontmatter import Tier
from claimcheck.cards.wiki import Wiki
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.errors import ClaimcheckError
from claimcheck.core.provenance import now_iso
from claimcheck.engine.check_run import CHECK_RAISED
from claimcheck.engine.executor import LocalExecutor
from claimcheck.engine.planning import RunOptions, matches, refusal, timeout_for
from claimcheck.engine.recording import judged, with_output
from claimcheck.engine.safety_net import WALL_BACKSTOP
from claimcheck.engine.tasks import Executor, Outcome, Task
from claimcheck.reports.rows import ClaimRow
from claimcheck.store.conflicts import refused_identities
from claimcheck.store.fingerprint import Fingerprinter
from claimcheck.store.portable_paths import scrub
from claimcheck.store.power import (
    ClaimPower,
    claim_power,
    listed_variants,
    power_budget,
    variant_fingerprint,
)
from claimcheck.store.power_results import PowerStore, VariantRun
from claimcheck.store.result import budget_rank
from claimcheck.store.results import ResultStore, result_stem
from claimcheck.store.status import StoredStatus, collect_status
from claimcheck.trust.variants import Catalogue, WrongVariant, load_catalogue
from claimcheck.verdicts.verdict import Verdict

__all__ = ["Candidate", "PowerJob", "PowerReport", "add_power", "plan_power", "run_power"]

PROBE_KEY = "#probe"
"""The key of the probe task (no claim's global id starts with ``#``)."""


@dataclass(frozen=True)
class Candidate:
    """A variant to try against one claim: listed (always run) or not (run when reached)."""

    variant: WrongVariant
    listed: bool
    fingerprint: str


@dataclass(frozen=True)
class PowerJob:
    """One claim's bundle: its candidates and the task (without their changes yet)."""

    status: StoredStatus
    candidates: tuple[Candidate, ...]
    task: Task


@dataclass
class PowerReport:
    """What a power run did: variant runs made, how many errored (no measurement for another
    reason than the check raising), and pairs found unreached."""

    ran: int = 0
    errored: int = 0
    unreached: int = 0
    interrupted: bool = False


def plan_power(wiki: Wiki, statuses: list[StoredStatus], options: RunOptions,
               catalogue: Catalogue, fingerprints: Fingerprinter, scratch: Path
               ) -> list[PowerJob]:
    """The bundles this run must make (see the module docstring)."""
    store = PowerStore(wiki.config.results)
    jobs: list[PowerJob] = []
    for status in statuses:
        claim = status.ref.claim
        if claim.check is None or not catalogue.variants:
            continue
        power = claim_power(status, catalogue, store, fingerprints, wiki.config.confidence)
        if not power.applicable or power.why or refusal(status, wiki.config):
            continue
        budget = power_budget(status, options.budget)
        if budget_rank(budget) > budget_rank(options.budget):
            continue
        listed = {variant.name for variant in listed_variants(status, catalogue)[0]}
        runs, unreached = store.read_file(status.ref.global_id)
        # CI's re-check re-makes every entry of a changed power file, listed or not (a forged
        # entry may be an unlisted one); --force re-runs within the scope asked for.
        rechecked = status.ref.global_id in options.recheck_power
        again = options.force or rechecked
        candidates = []
        for name, variant in sorted(catalogue.variants.items()):
            fingerprint = variant_fingerprint(status, variant, fingerprints)
            run = runs.get(name)
            if not again and run is not None and run.fingerprint == fingerprint and run.current:
                continue
            known_unreached = not again and unreached.get(name) == fingerprint
            if name not in listed and not rechecked and (
                    options.power_listed_only or known_unreached):
                continue
            candidates.append(Candidate(variant, name in listed, fingerprint))
        if candidates:
            jobs.append(PowerJob(status, tuple(candidates),
                                 _task(status, budget, options, scratch, wiki.config.root)))
    return jobs


def _task(status: StoredStatus, budget: str, options: RunOptions, scratch: Path,
          root: Path) -> Task:
    ref = status.ref
    try:
        tier = claim_tier(ref.claim)
    except ClaimcheckError:
        tier = Tier.UNIT
    return Task(
        ref.global_id, ref.claim.check or "", dict(ref.claim.args), options.device, budget,
        options.seed, scratch / f"{result_stem(ref.global_id)}.power", root,
        None, tier.value,  # each run of the bundle has the claim's own net (run_timeout)
        ref.claim.resources.model_dump() if ref.claim.resources else None,
        power={"mode": "bundle", "run_timeout": timeout_for(tier, options), "variants": []},
    )


def run_power(wiki: Wiki, options: RunOptions, listener: object | None = None,
              executor: Executor | None = None) -> PowerReport:
    """Make every power run :func:`plan_power` plans, storing each claim's as it arrives.

    ``listener`` may have the methods of :class:`claimcheck.engine.runner.RunListener`.
    Raises :class:`~claimcheck.core.errors.StoreError` when another verify holds the store's lock.
    """
    report = PowerReport()
    results = ResultStore(wiki.config.results)
    with results.run_lock(wait=False), tempfile.TemporaryDirectory(prefix="claimcheck-") as tmp:
        refused = refused_identities(wiki)  # an ambiguous claim is never run (conflicts.py)
        statuses = [s for s in collect_status(wiki, results)
                    if matches(s.ref, options.only) and s.ref.global_id not in refused]
        fingerprints = Fingerprinter(wiki.config, cache_dir=results.folder / "cache")
        catalogue = load_catalogue(wiki.config, fingerprints.index)
        jobs = plan_power(wiki, statuses, options, catalogue, fingerprints, Path(tmp))
        _call(listener, "planned", len(jobs), options.device)
        if not jobs:
            return report
        pool = executor or LocalExecutor(options.jobs)
        try:
            changes = _probe(jobs, options, wiki, pool, Path(tmp))
            tasks = {job.task.key: job for job in jobs}
            running: Iterator[Outcome] = pool.run(
                [_with_changes(job, changes) for job in jobs],
                lambda event: _call(listener, "task_event", event))
            try:
                for outcome in running:
                    job = tasks[outcome.key]
                    _store(job, outcome, wiki, catalogue, report)
                    _call(listener, "finished", _progress_row(job, outcome, wiki))
            finally:
                close = getattr(running, "close", None)
                if close is not None:
                    close()
        except KeyboardInterrupt:
            report.interrupted = True
    return report


def _probe(jobs: list[PowerJob], options: RunOptions, wiki: Wiki, pool: Executor,
           scratch: Path) -> dict[str, Any]:
    """What each unlisted candidate variant changes (one probe task); ``{}`` when none is
    unlisted, and a variant whose probe failed has ``None`` (it is then not run unlisted)."""
    wanted = {c.variant.name: c.variant.reference for job in jobs for c in job.candidates
              if not c.listed}
    if not wanted:
        return {}
    task = Task(PROBE_KEY, "", {}, options.device, options.budget, options.seed,
                scratch / "probe", wiki.config.root, None, Tier.UNIT.value,
                power={"mode": "probe", "variants": sorted(wanted.items())})
    for outcome in pool.run([task], lambda event: None):
        if outcome.power is not None:
            return dict(outcome.power.get("changes", {}))
    return {}


def _with_changes(job: PowerJob, changes: dict[str, Any]) -> Task:
    """The bundle's task with its variants (and their probed changes), and a backstop for the
    whole bundle: every run's own net, at its wall-clock bound, for each run it may make."""
    variants = [{"name": c.variant.name, "reference": c.variant.reference, "listed": c.listed,
                 "changes": None if c.listed else changes.get(c.variant.name)}
                for c in job.candidates]
    spec = {**(job.task.power or {}), "variants": variants}
    each = spec.get("run_timeout")
    backstop = None if each is None else float(each) * WALL_BACKSTOP * (len(variants) + 2)
    return dataclasses.replace(job.task, power=spec, timeout_s=backstop)


def _store(job: PowerJob, outcome: Outcome, wiki: Wiki, catalogue: Catalogue,
           report: PowerReport) -> None:
    """Judge a bundle's runs and write the claim's power file (kept runs of variants this bundle
    did not try stay; names the catalogue lost go)."""
    gid = job.status.ref.global_id
    store = PowerStore(wiki.config.results)
    runs, unreached = store.read_file(gid)
    found = outcome.power or {}
    base: Outcome = found.get("base") or outcome
    made: dict[str, dict[str, Any]] = found.get("runs") or {}
    missing = set(found.get("unreached") or ())
    tried = {c.variant.name for c in job.candidates}
    runs = {n: r for n, r in runs.items() if n in catalogue.variants and n not in tried}
    unreached = {n: f for n, f in unreached.items() if n in catalogue.variants and n not in tried}
    for candidate in job.candidates:
        name = candidate.variant.name
        if name in missing:
            unreached[name] = candidate.fingerprint
            report.unreached += 1
            continue
        entry = made.get(name)
        if entry is None:
            if not candidate.listed:
                continue  # no trace or no probe: an unlisted variant is simply not tried
            why = ("without the variant the power run's own run gave no measurement: "
                   f"{base.reason}" if base.reason else "the power run ended before it ran")
            entry = {"outcome": Outcome(gid, None, why, error=why, errored=True), "called": "",
                     "reach": "listed"}
        run = _variant_run(job, candidate, entry, base, wiki)
        runs[name] = run
        report.ran += 1
        report.errored += run.errored
    store.write(gid, runs, unreached)


def _variant_run(job: PowerJob, candidate: Candidate, entry: dict[str, Any], base: Outcome,
                 wiki: Wiki) -> VariantRun:
    root = wiki.config.root
    outcome: Outcome = entry["outcome"]
    verdict, reason = judged(job.status.ref, outcome, wiki.config.confidence)
    evidence = outcome.evidence
    details = with_output(evidence.details if evidence else "", outcome.output)
    unvaried = base.evidence
    return VariantRun(
        reference=candidate.variant.reference, fingerprint=candidate.fingerprint,
        verdict=verdict.value, reason=scrub(reason, root),
        measured=evidence.measured if evidence else None,
        fidelity=evidence.fidelity.value if evidence else None, details=scrub(details, root),
        error=None if outcome.error is None else scrub(outcome.error, root),
        budget=job.task.budget, duration_s=round(outcome.duration_s, 4), timestamp=now_iso(),
        interval=evidence.interval if evidence else None, raised=_check_raised(outcome),
        base_measured=unvaried.measured if unvaried else None,
        base_interval=unvaried.interval if unvaried else None,
        called=str(entry.get("called") or ""), reach=str(entry.get("reach") or ""),
    )


def _check_raised(outcome: Outcome) -> bool:
    """Whether the claim's check itself raised under the variant (not decided either way, but
    not an error of the power run)."""
    if outcome.evidence is not None or outcome.error is None:
        return False
    return outcome.reason.startswith(f"{CHECK_RAISED} ")


def _progress_row(job: PowerJob, outcome: Outcome, wiki: Wiki) -> ClaimRow:
    """A row for a progress display's echo line: the claim, and its power now."""
    ref = job.status.ref
    store = PowerStore(wiki.config.results)
    runs = store.read(ref.global_id)
    tried = [runs[c.variant.name] for c in job.candidates if c.variant.name in runs]
    caught = sum(r.verdict == Verdict.CONTRADICTED.value and not r.called for r in tried)
    label = f"power: {len(tried)} variant run(s), {caught} contradicted"
    return ClaimRow(f"{ref.global_id} (power)", str(ref.card.path), ref.line,
                    ref.claim.statement, Verdict.VERIFIED.value, label, None, None, None, False,
                    round(outcome.duration_s, 4), job.task.tier, job.task.budget, None)


def _call(listener: object | None, method: str, *args: object) -> None:
    function = getattr(listener, method, None)
    if callable(function):
        function(*args)


def add_power(rows: list[ClaimRow], wiki: Wiki,
              statuses: list[StoredStatus] | None = None) -> list[ClaimRow]:
    """``rows`` with each checked claim's power section (``ClaimRow.power``) derived from the
    store; ``statuses`` are read from the store when not given and a claim lists variants."""
    refs = {ref.global_id: ref for ref in wiki.claims()}
    listing = bool(wiki.config.variants) or any(ref.claim.catches for ref in refs.values())
    if statuses is None and listing:
        statuses = collect_status(wiki, ResultStore(wiki.config.results))
    by_id = {status.ref.global_id: status for status in statuses or []}
    results = wiki.config.results
    store = PowerStore(results)
    fingerprints = Fingerprinter(wiki.config, cache_dir=results / "cache")
    catalogue = load_catalogue(wiki.config, fingerprints.index) if listing else None
    refused = refused_identities(wiki)  # a claim two cards could own shows no power
    shown: list[ClaimRow] = []
    for row in rows:
        ref = refs.get(row.claim)
        if ref is None or ref.claim.check is None or row.claim in refused:
            shown.append(dataclasses.replace(row, power=None) if row.power else row)
            continue
        status = by_id.get(row.claim)
        if status is None or catalogue is None:
            power = ClaimPower((), ref.claim.catches_note)
        else:
            power = claim_power(status, catalogue, store, fingerprints, wiki.config.confidence)
        shown.append(dataclasses.replace(row, power=power.to_json()))
    return shown
