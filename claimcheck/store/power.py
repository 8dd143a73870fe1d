"""Power: what a verified claim would have caught, derived from its stored power runs.

A claim lists wrong variants (``catches:``, :mod:`claimcheck.trust.variants`). A power run
(``claimcheck verify --power``, :mod:`claimcheck.engine.power_run`) runs the claim's check once
under each, in the check's own isolated process, and judges the measurement against the claim's
unchanged ``expect``. A variant is **caught** when that verdict is not ``verified``; **missed**
when the broken model still verifies the claim. A run that fails to produce a measurement (the
variant or the check's process failed, the time limit passed) is **errored**: the claim's check
could not be asked, so the variant is neither caught nor missed. The check raising *because of*
the variant is an unverified verdict, so it counts as caught, as mutation testing counts a
crashing test as a killed mutant (running out of memory or stack does not: it is errored).

Power is derived, never asserted, like a verdict (:mod:`claimcheck.store.status`): every read judges
a stored run's measurement again against the card's current ``expect``, and marks it **stale**
when its fingerprint (:func:`variant_fingerprint`: the claim's fingerprint, the variant's
reference and the sources of its module and local imports, and for a training claim the budget)
no longer matches. Power is measured only for a claim that is verified (fresh): a variant is
caught when the claim is *no longer* verified, which says nothing where it never was.

A training claim's variants run at the budget of the claim's own stored result, so that the
variant and the verdict it is compared with measure the same amount of work; a power run at a
smaller ``--budget`` than that leaves them not run (:mod:`claimcheck.engine.power_run`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import Enum
from typing import Any

from claimcheck.cards.frontmatter import Tier
from claimcheck.checks.api import Evidence, Fidelity
from claimcheck.core.errors import ClaimcheckError
from claimcheck.store.fingerprint import Fingerprinter, canonical_json
from claimcheck.store.power_results import PowerStore, VariantRun
from claimcheck.store.result import Result
from claimcheck.store.status import StoredStatus
from claimcheck.trust.roles import Role
from claimcheck.trust.variants import Catalogue, WrongVariant
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import Verdict, unverified

__all__ = [
    "ClaimPower", "State", "VariantState", "claim_power", "judge_run", "power_budget",
    "variant_fingerprint",
]


class State(str, Enum):
    """Where one listed variant stands."""

    CAUGHT = "caught"
    MISSED = "missed"
    ERRORED = "errored"
    NOT_RUN = "not run"
    STALE = "stale"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class VariantState:
    """One listed variant of a claim: its state, and the run it rests on (if any), judged again.

    ``verdict``/``reason``/``measured`` are the claim's verdict under the variant; ``note`` says
    why a variant is not run, unknown or stale.
    """

    name: str
    state: State
    reference: str | None = None
    verdict: str | None = None
    reason: str = ""
    measured: Any = None
    budget: str | None = None
    note: str = ""
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON form every output uses."""
        return {"name": self.name, "state": self.state.value, "reference": self.reference,
                "description": self.description, "verdict": self.verdict,
                "reason": self.reason, "measured": self.measured, "budget": self.budget,
                "note": self.note}


@dataclass(frozen=True)
class ClaimPower:
    """The power of one claim: its listed variants' states, or why none is listed or measured.

    ``applicable`` is false when the claim is not (freshly) verified: then nothing is run and
    ``why`` says so.
    """

    variants: tuple[VariantState, ...]
    note: str | None = None
    applicable: bool = True
    why: str = ""

    @property
    def listed(self) -> int:
        """How many variants the claim lists."""
        return len(self.variants)

    def named(self, state: State) -> list[str]:
        """The names of the listed variants in ``state``."""
        return [v.name for v in self.variants if v.state is state]

    @property
    def all_caught(self) -> bool:
        """Every listed variant is caught (fresh), and at least one is listed."""
        return bool(self.variants) and all(v.state is State.CAUGHT for v in self.variants)

    def summary(self) -> str:
        """One line: ``catches 3 of 3 listed wrong variants``, ``catches 1 of 2: misses
        priors-before-softmax``, ``no wrong variant listed`` (every view prints this)."""
        if not self.variants:
            return "no wrong variant listed" + (f" ({self.note})" if self.note else "")
        if not self.applicable:
            return f"{self.listed} wrong variant(s) listed, not measured: {self.why}"
        caught = len(self.named(State.CAUGHT))
        if caught == self.listed:
            return f"catches {caught} of {self.listed} listed wrong variants"
        labels = {State.MISSED: "misses", State.STALE: "stale", State.NOT_RUN: "not run",
                  State.ERRORED: "errored", State.UNKNOWN: "unknown"}
        details = [f"{label} {', '.join(self.named(state))}" for state, label in labels.items()
                   if self.named(state)]
        return f"catches {caught} of {self.listed}: " + "; ".join(details)

    def to_json(self) -> dict[str, Any]:
        """The ``power`` section of a claim in JSON output."""
        return {"summary": self.summary(), "listed": self.listed,
                "caught": len(self.named(State.CAUGHT)), "missed": self.named(State.MISSED),
                "applicable": self.applicable, "why": self.why, "note": self.note,
                "variants": [v.to_json() for v in self.variants]}


def power_budget(status: StoredStatus, run_budget: str) -> str:
    """The budget a claim's variants run at: a training claim's stored result's budget (the
    verdict they are compared with), else the run's."""
    result = status.stored
    if result is not None and result.tier == Tier.TRAIN.value:
        return result.budget
    return run_budget


def variant_fingerprint(status: StoredStatus, variant: WrongVariant,
                        fingerprints: Fingerprinter) -> str:
    """The fingerprint of one power run (see the module docstring)."""
    result = status.stored
    budget = result.budget if result is not None and result.tier == Tier.TRAIN.value else None
    payload = {"claim": status.fingerprint, "variant": variant.reference, "budget": budget,
               **fingerprints.reference_sources(variant.reference, Role.WRONG_VARIANT)}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def judge_run(status: StoredStatus, run: VariantRun, confidence: float) -> tuple[str, str]:
    """The claim's verdict and reason under the variant, judged again from the run's own
    measurement against the card's current ``expect``."""
    claim = status.ref.claim
    if run.measured is None or claim.expect is None:
        judgement = unverified(run.reason or "the power run produced no measurement")
    else:
        evidence = _evidence(run)
        judgement = judge(claim, evidence, confidence)
    return judgement.verdict.value, judgement.reason


def _evidence(run: VariantRun) -> Evidence:
    fidelity = Fidelity(run.fidelity) if run.fidelity in ("exact", "proxy") else Fidelity.PROXY
    return Evidence(measured=run.measured, fidelity=fidelity, interval=run.interval)


def claim_power(status: StoredStatus, catalogue: Catalogue, store: PowerStore,
                fingerprints: Fingerprinter, confidence: float) -> ClaimPower:
    """The power of ``status``'s claim, derived from the power store (see the module docstring);
    ``confidence`` is the project's level for measurements over seeds."""
    claim = status.ref.claim
    if not claim.catches:
        return ClaimPower((), claim.catches_note)
    why = _not_applicable(status)
    runs = store.read(status.ref.global_id)
    states = tuple(_state(status, name, catalogue, runs, fingerprints, confidence)
                   for name in claim.catches)
    if why:
        states = tuple(s if s.state is State.UNKNOWN else VariantState(
            s.name, State.NOT_RUN, s.reference, note=why, description=s.description)
            for s in states)
    return ClaimPower(states, claim.catches_note, not why, why)


def _not_applicable(status: StoredStatus) -> str:
    result: Result | None = status.result
    if result is None:
        return "the claim has no result yet"
    if status.stale:
        return "the claim's result is stale"
    if result.verdict is not Verdict.VERIFIED:
        return f"the claim is {result.verdict.value}, not verified"
    return ""


def _state(status: StoredStatus, name: str, catalogue: Catalogue, runs: dict[str, VariantRun],
           fingerprints: Fingerprinter, confidence: float) -> VariantState:
    try:
        variant = catalogue.resolve(name, fingerprints.index)
    except ClaimcheckError as exc:
        return VariantState(name, State.UNKNOWN, note=exc.message)
    name = variant.name  # a card may write the full reference; runs are stored by card name
    run = runs.get(name)
    if run is None:
        return VariantState(name, State.NOT_RUN, variant.reference, note=_never_run(status),
                            description=variant.description)
    verdict, reason = judge_run(status, run, confidence)
    fresh = variant_fingerprint(status, variant, fingerprints)
    base = dict(reference=variant.reference, verdict=verdict, reason=reason,
                measured=run.measured, budget=run.budget, description=variant.description)
    if run.fingerprint != fresh:
        return VariantState(name, State.STALE, **base,
                            note="the claim, the variant's code or the budget changed since")
    if run.errored:
        return VariantState(name, State.ERRORED, **base, note=run.reason or "it errored")
    state = State.MISSED if verdict == Verdict.VERIFIED.value else State.CAUGHT
    return VariantState(name, state, **base)


def _never_run(status: StoredStatus) -> str:
    """How to run a variant never run: a training claim's variants need its result's budget."""
    result = status.stored
    if result is not None and result.tier == Tier.TRAIN.value:
        return (f"never run: run `claimcheck verify --power --budget {result.budget}` (a "
                "training claim's variants run at its result's budget)")
    return "never run: run `claimcheck verify --power`"
