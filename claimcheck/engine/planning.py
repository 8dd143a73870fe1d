"""Which claims a verify runs, with which limits, and which it refuses without running.

A claim with a check runs when its stored result is missing, stale or errored (the check raised,
timed out or died, and measured nothing: like a power run without a measurement, such a result
never stands until its fingerprint changes; a check that found its dataset or weights missing did
not err, and stays current), with ``force``, with
``recheck`` (its result file changed in a pull request: ``--recheck-results-changed-since``), or
when it is a ``train`` result made at a smaller budget than the one asked for. A re-check leaves
alone a training result made at a budget above the run's (:func:`beyond_budget`): CI cannot
re-make it, and the views that gate (``ci_gate``) show it as "not re-made by CI". ``only`` narrows
the selection with an fnmatch pattern on the global id, the arXiv id or the card's slug. Claims
marked ``unverified: reason`` are reported with that reason, never run.

A stored result is evidence only of what it holds: its ``tier`` and ``budget`` are data a pull
request can edit, so they never decide whether a stale result runs. A stale result is re-run
whatever it says it is; the tier that counts is the claim's own (:func:`claim_tier`). A run
still never replaces a successful ``train`` result with one of a smaller budget
(:mod:`claimcheck.store.results`): the smaller run goes into its history, and the kept result stays
shown as stale until a run at its own budget refreshes it.

Budgets are amounts of work (the trainer's business); the time limits here are only safety nets,
several times the expected time, and crossing one is an error of that run, never a verdict.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from claimcheck.cards.frontmatter import Tier
from claimcheck.cards.wiki import ClaimRef, Wiki
from claimcheck.checks.api import get_builtin
from claimcheck.checks.args import args_problems
from claimcheck.checks.catalog import model_catalog, trainer_facts
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import CheckReferenceError
from claimcheck.store.conflicts import refused_identities
from claimcheck.store.result import BUDGETS, budget_rank
from claimcheck.store.results import ResultStore
from claimcheck.store.status import StoredStatus, collect_status
from claimcheck.trust.boundary import NESTED_KIND_ARGS, callable_slots, resolve_reference
from claimcheck.trust.data_paths import path_arg_problems
from claimcheck.trust.references import is_reference

__all__ = [
    "BUDGETS", "TIER_TIMEOUT_S", "TRAIN_TIMEOUT_S", "RunOptions", "matches", "needs_run",
    "plan", "refusal", "timeout_for",
]

TIER_TIMEOUT_S = {Tier.STATIC: 120.0, Tier.UNIT: 120.0, Tier.BENCH: 300.0}
TRAIN_TIMEOUT_S = {"smoke": 2400.0, "short": 7200.0, "full": 48 * 3600.0}
"""Safety nets in CPU seconds of the check (:mod:`claimcheck.engine.safety_net`). A card may
enlarge a budget's work (``epochs: 3`` on the whole 4,000-digit train part at ``smoke``), and a
training claim trains each seed three times (its stream and init controls), so the net is sized
for the largest run the wiki declares at each budget, with room to spare: the largest,
``2101.12491/mnist-5k-three-epochs`` at smoke (nine 3-epoch trainings on 4,000 digits), took
1,723 s of wall-clock time on a shared core of the project's 2-core machine (it had passed the
old 900 CPU-second net). A net only catches a run that hangs or runs away; it never decides a
verdict."""


@dataclass(frozen=True)
class RunOptions:
    """The knobs of one verify run (``timeout_s=None``: the tier's default).

    ``rerun_on_environment`` re-runs every result whose recorded environment (torch, python,
    platform) differs from this one; ``recheck`` holds global ids whose result files a pull
    request changed, re-run whatever their state; ``recheck_power`` those whose power files it
    changed, whose variants a power run runs again; ``ci_gate`` (set by a re-check) shows a
    result CI cannot re-make as "not re-made by CI" (:func:`claimcheck.store.status.not_remade`);
    ``power_listed_only`` (``--power-scope listed``) limits a power run to the variants each
    claim lists, except for claims in ``recheck_power``, whose whole matrix is re-made.
    """

    budget: str = "smoke"
    device: str = "auto"
    timeout_s: float | None = None
    jobs: int = 1
    force: bool = False
    only: tuple[str, ...] = ()
    seed: int = 0
    rerun_on_environment: bool = False
    recheck: frozenset[str] = field(default_factory=frozenset)
    recheck_power: frozenset[str] = field(default_factory=frozenset)
    ci_gate: bool = False
    power_listed_only: bool = False


def matches(ref: ClaimRef, patterns: tuple[str, ...]) -> bool:
    """Whether the ``--only PATTERN`` options select ``ref``: any pattern matching its global id,
    arXiv id or card slug; no pattern selects every claim."""
    if not patterns:
        return True
    names = (ref.global_id, ref.arxiv, ref.card.card.slug)
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)


def beyond_budget(status: StoredStatus, options: RunOptions) -> bool:
    """Whether the stored result belongs to a training claim (by the claim's own check) and was
    made at a larger budget than this run's, which it cannot re-make. A re-check leaves such a
    result as it is; every published view shows it as "not re-made by CI"
    (:func:`claimcheck.store.status.not_remade`)."""
    stored = status.stored
    if stored is None:
        return False
    try:
        training = claim_tier(status.ref.claim) is Tier.TRAIN
    except CheckReferenceError:
        return False
    return training and budget_rank(stored.budget) > budget_rank(options.budget)


def needs_run(status: StoredStatus, options: RunOptions) -> bool:
    """Whether a claim with a check must run now (see the module docstring)."""
    stored = status.stored or status.result
    if status.ref.global_id in options.recheck and not beyond_budget(status, options):
        return True
    if options.force or stored is None:
        return True
    if status.stale or (stored.error is not None and stored.measured is None):
        return True
    if (claim_tier(status.ref.claim) is Tier.TRAIN and stored.tier == Tier.TRAIN.value
            and stored.budget in BUDGETS):
        return budget_rank(stored.budget) < budget_rank(options.budget)
    return False


def timeout_for(tier: Tier, options: RunOptions) -> float:
    """``--timeout`` if given, else the tier's safety net (train: by budget)."""
    if options.timeout_s is not None:
        return options.timeout_s
    if tier is Tier.TRAIN:
        return TRAIN_TIMEOUT_S[options.budget]
    return TIER_TIMEOUT_S[tier]


def refusal(status: StoredStatus, config: ProjectConfig) -> str:
    """Why the claim is not run although it was planned (``""``: run it).

    In this order: a check kind that is not registered (``unknown check kind 'parms' (did you
    mean 'params'?)``); a function the claim names that the trust boundary refuses (it names
    the real problem); a path argument outside the project's data roots; a ``ratio`` side, at
    any depth, whose ``kind`` is not registered. These are the messages lint gives, and such a
    claim never reaches a worker.
    """
    ref = status.ref
    check = ref.claim.check
    if check is not None and not is_reference(check):
        try:
            get_builtin(check)
        except CheckReferenceError as exc:
            return exc.message
    for slot in callable_slots(ref.claim.check, ref.claim.args):
        try:
            resolve_reference(slot.text, config, role=slot.role)
        except CheckReferenceError as exc:
            return exc.message
    paths = path_arg_problems(ref.claim.args, config, ref.claim.check)
    if paths:
        return paths[0].message
    return _nested_kind(check, ref.claim.args, config)


def _nested_kind(check: str | None, args: Mapping[str, Any], config: ProjectConfig) -> str:
    """Lint's error for a measurement nested in ``check``'s args (a ``ratio``'s numerator or
    denominator, at any depth) whose ``kind`` is no built-in kind (``""``: none). Lint's
    :func:`args_problems` validates each level; it is asked again for every nested level, since
    it descends only a few levels itself."""
    if check is None or check not in NESTED_KIND_ARGS:
        return ""
    facts = trainer_facts(config, None)
    levels: list[tuple[str, Any]] = [(check, args)]
    while levels:
        kind, level = levels.pop(0)
        if not isinstance(level, Mapping):
            continue
        for problem in args_problems(kind, level, model_catalog(config), facts):
            if problem.path[-1:] == ("kind",) and not problem.warning:
                return f"args: {problem.message}"
        for key in NESTED_KIND_ARGS[kind]:
            spec = level.get(key)
            if isinstance(spec, Mapping) and spec.get("kind") in NESTED_KIND_ARGS:
                levels.append((spec["kind"], spec.get("args")))
    return ""


def plan(
    wiki: Wiki, store: ResultStore, options: RunOptions
) -> tuple[list[StoredStatus], list[StoredStatus]]:
    """Every selected claim's status, and those of them to run (never a claim whose identity is
    ambiguous, :mod:`claimcheck.store.conflicts`: its rows say why, :func:`refuse_ambiguous`)."""
    refused = refused_identities(wiki)
    statuses = [
        s for s in collect_status(wiki, store, rerun_on_environment=options.rerun_on_environment,
                                  ci_gate=options.ci_gate)
        if matches(s.ref, options.only)
    ]
    planned = [s for s in statuses if s.ref.claim.check is not None
               and s.ref.global_id not in refused and needs_run(s, options)]
    return statuses, planned
