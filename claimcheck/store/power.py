"""Power: what a verified claim would have caught, derived from its stored power runs.

A power run (``claimcheck verify --power``, :mod:`claimcheck.engine.power_run`) runs the claim's
check without a variant (traced) and then under each wrong variant of the catalogue
(:mod:`claimcheck.trust.variants`) that the claim lists in ``catches:`` or that its check reaches
(:mod:`claimcheck.engine.power_trace`), each in a process of its own, and judges every
measurement against the claim's unchanged ``expect``. Each variant run is in one state:

* **caught**: the check completed under the variant and the verdict flipped (contradicted);
* **missed**: the check completed, the claim stays verified, and the measurement moved: the check
  saw the change and its expectation let it through;
* **no longer a change**: the check completed and measured exactly what the same power run
  measured without the variant: the variant changes nothing this check measures (after a code
  change, typically a bug the code already has, or a path the check no longer takes);
* **not self-contained**: the variant called the function it replaces while the check ran, so its
  power follows that function's source and says nothing;
* **not decided**: no flip and no honest miss: an error, exhaustion (memory, stack, the safety
  net), a refusal or missing data under the variant, an unverified verdict (inconclusive, proxy),
  or an unvaried run in the power run that was not itself verified.

Listed variants with no fresh run are **not run** or **stale**, and a name the catalogue lacks is
**unknown**. Unlisted variants are shown when they ran (their check reached them), in every state.

Power is derived, never asserted, like a verdict (:mod:`claimcheck.store.status`): every read judges
a stored run's measurement (and its unvaried measurement) again against the card's current
``expect``, and marks it **stale** when its fingerprint (:func:`variant_fingerprint`: the claim's
fingerprint, its ``resources:`` included, the variant's reference and the sources of its module
and local imports, and for a training claim the budget) no longer matches. Power is measured
only for a claim that is verified (fresh).

A training claim's variants run at the budget of the claim's own stored result, so that the
variant and the verdict it is compared with measure the same amount of work; a power run at a
smaller ``--budget`` than that leaves them not run (:mod:`claimcheck.engine.power_run`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
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
from claimcheck.verdicts.verdict import Verdict, format_value, unverified

__all__ = [
    "FINGERPRINT_VERSION", "ClaimPower", "State", "VariantState", "claim_power", "judge_run",
    "listed_variants", "power_budget", "variant_fingerprint",
]

FINGERPRINT_VERSION = 2
"""Part of every power run's fingerprint: runs made before the matrix (version 1 kept no
unvaried measurement and no self-containment) read as stale."""


class State(str, Enum):
    """Where one variant stands against one claim (see the module docstring)."""

    CAUGHT = "caught"
    MISSED = "missed"
    NO_CHANGE = "no longer a change"
    NOT_SELF_CONTAINED = "not self-contained"
    NOT_DECIDED = "not decided"
    NOT_RUN = "not run"
    STALE = "stale"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class VariantState:
    """One variant of a claim: its state, and the run it rests on (if any), judged again.

    ``verdict``/``reason``/``measured`` are the claim's verdict under the variant; ``note`` says
    why a variant is not run, unknown, stale, not decided or not self-contained; ``listed`` says
    whether the claim lists it in ``catches:`` (else it ran because the check reaches it).
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
    listed: bool = True

    def to_json(self) -> dict[str, Any]:
        """The JSON form every output uses."""
        return {"name": self.name, "description": self.description, "state": self.state.value,
                "measured": self.measured, "listed": self.listed,
                "reference": self.reference, "verdict": self.verdict, "reason": self.reason,
                "budget": self.budget, "note": self.note}


_LABELS = {State.MISSED: "misses", State.NO_CHANGE: "no longer a change:",
           State.NOT_SELF_CONTAINED: "not self-contained:", State.NOT_DECIDED: "not decided:",
           State.STALE: "stale", State.NOT_RUN: "not run", State.UNKNOWN: "unknown"}


@dataclass(frozen=True)
class ClaimPower:
    """The power of one claim: its variants' states (the listed ones first, in the card's order,
    then the unlisted ones that ran), or why none is listed or measured.

    ``applicable`` is false when the claim is not (freshly) verified: then nothing is run and
    ``why`` says so.
    """

    variants: tuple[VariantState, ...]
    note: str | None = None
    applicable: bool = True
    why: str = ""

    @property
    def listed(self) -> int:
        """How many variants the claim lists (each counted once, whatever its spelling)."""
        return sum(v.listed for v in self.variants)

    def named(self, state: State, listed: bool = True) -> list[str]:
        """The names of the listed (or unlisted) variants in ``state``."""
        return [v.name for v in self.variants if v.state is state and v.listed is listed]

    @property
    def all_caught(self) -> bool:
        """Every listed variant is caught (fresh), and at least one is listed."""
        listed = [v for v in self.variants if v.listed]
        return bool(listed) and all(v.state is State.CAUGHT for v in listed)

    def summary(self) -> str:
        """One line: ``catches 3 of 3 listed wrong variants``, ``catches 1 of 2: misses
        priors-before-softmax``, ``no wrong variant listed``, with ``; also catches N unlisted:
        ...`` when the check catches variants it does not list (every view prints this)."""
        also = self.named(State.CAUGHT, listed=False)
        extra = f"; also catches {len(also)} unlisted: {', '.join(also)}" if also else ""
        if not self.listed:
            line = "no wrong variant listed" + (f" ({self.note})" if self.note else "")
            return line + extra
        if not self.applicable:
            return f"{self.listed} wrong variant(s) listed, not measured: {self.why}"
        caught = len(self.named(State.CAUGHT))
        if caught == self.listed:
            return f"catches {caught} of {self.listed} listed wrong variants{extra}"
        details = [f"{label} {', '.join(self.named(state))}" for state, label in _LABELS.items()
                   if self.named(state)]
        return f"catches {caught} of {self.listed}: " + "; ".join(details) + extra

    def to_json(self) -> dict[str, Any]:
        """The ``power`` section of a claim in JSON output (docs/power.md)."""
        return {"summary": self.summary(), "listed": self.listed,
                "caught": len(self.named(State.CAUGHT)), "missed": self.named(State.MISSED),
                "not_decided": self.named(State.NOT_DECIDED),
                "unlisted_caught": self.named(State.CAUGHT, listed=False),
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
               "version": FINGERPRINT_VERSION,
               **fingerprints.reference_sources(variant.reference, Role.WRONG_VARIANT)}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def judge_run(status: StoredStatus, run: VariantRun, confidence: float) -> tuple[str, str]:
    """The claim's verdict and reason under the variant, judged again from the run's own
    measurement against the card's current ``expect``."""
    return _judged(status, run.measured, run.fidelity, run.interval,
                   run.reason or "the power run produced no measurement", confidence)


def _judged(status: StoredStatus, measured: Any, fidelity: str | None,
            interval: dict[str, Any] | None, why: str, confidence: float) -> tuple[str, str]:
    claim = status.ref.claim
    if measured is None or claim.expect is None:
        judgement = unverified(why)
    else:
        kind = Fidelity(fidelity) if fidelity in ("exact", "proxy") else Fidelity.PROXY
        judgement = judge(claim, Evidence(measured=measured, fidelity=kind, interval=interval),
                          confidence)
    return judgement.verdict.value, judgement.reason


def listed_variants(status: StoredStatus, catalogue: Catalogue,
                    fingerprints: Fingerprinter | None = None
                    ) -> tuple[list[WrongVariant], list[VariantState]]:
    """The variants a claim lists, each once whatever its spelling, in the card's order, and
    the states of the names that do not resolve (unknown)."""
    found: dict[str, WrongVariant] = {}
    unknown: list[VariantState] = []
    for name in status.ref.claim.catches:
        try:
            variant = catalogue.resolve(name, fingerprints.index if fingerprints else None)
        except ClaimcheckError as exc:
            unknown.append(VariantState(name, State.UNKNOWN, note=exc.message))
            continue
        found.setdefault(variant.name, variant)
    return list(found.values()), unknown


def claim_power(status: StoredStatus, catalogue: Catalogue, store: PowerStore,
                fingerprints: Fingerprinter, confidence: float) -> ClaimPower:
    """The power of ``status``'s claim, derived from the power store (see the module docstring);
    ``confidence`` is the project's level for measurements over seeds."""
    claim = status.ref.claim
    why = _not_applicable(status)
    listed, unknown = listed_variants(status, catalogue, fingerprints)
    runs = {} if why else store.read(status.ref.global_id)
    states = [_state(status, variant, runs.get(variant.name), fingerprints, confidence)
              for variant in listed] + unknown
    if why:
        states = [s if s.state is State.UNKNOWN else dataclasses.replace(
            s, state=State.NOT_RUN, verdict=None, reason="", measured=None, note=why)
            for s in states]
        return ClaimPower(tuple(states), claim.catches_note, not listed and not unknown, why)
    names = {v.name for v in listed}
    for name, run in sorted(runs.items()):
        variant = catalogue.variants.get(name)
        if name in names or variant is None:
            continue
        state = _state(status, variant, run, fingerprints, confidence, listed=False)
        if state.state is not State.STALE:
            states.append(state)
    return ClaimPower(tuple(states), claim.catches_note)


def _not_applicable(status: StoredStatus) -> str:
    result: Result | None = status.result
    if result is None:
        return "the claim has no result yet"
    if status.stale:
        return "the claim's result is stale"
    if result.verdict is not Verdict.VERIFIED:
        return f"the claim is {result.verdict.value}, not verified"
    return ""


def _state(status: StoredStatus, variant: WrongVariant, run: VariantRun | None,
           fingerprints: Fingerprinter, confidence: float, listed: bool = True) -> VariantState:
    name = variant.name
    if run is None:
        return VariantState(name, State.NOT_RUN, variant.reference, note=_never_run(status),
                            description=variant.description, listed=listed)
    verdict, reason = judge_run(status, run, confidence)
    base = dict(reference=variant.reference, verdict=verdict, reason=reason,
                measured=run.measured, budget=run.budget, description=variant.description,
                listed=listed)
    if run.fingerprint != variant_fingerprint(status, variant, fingerprints):
        return VariantState(name, State.STALE, **base,
                            note="the claim, the variant's code or the budget changed since")
    state, note = _decide(status, run, verdict, confidence)
    return VariantState(name, state, **base, note=note)


def _decide(status: StoredStatus, run: VariantRun, verdict: str,
            confidence: float) -> tuple[State, str]:
    """The state of a fresh run, and its note (see the module docstring)."""
    if run.called:
        return State.NOT_SELF_CONTAINED, (
            f"the variant called {run.called}, the function it replaces, while the check ran: "
            "rewrite it without calling the original")
    if run.measured is None:
        return State.NOT_DECIDED, run.reason or "the power run produced no measurement"
    unvaried, why = _judged(status, run.base_measured, run.fidelity, run.base_interval,
                            "the power run's own unvaried run produced no measurement",
                            confidence)
    if unvaried != Verdict.VERIFIED.value:
        return State.NOT_DECIDED, f"without the variant the power run gave {unvaried}: {why}"
    if verdict == Verdict.CONTRADICTED.value:
        return State.CAUGHT, ""
    if verdict == Verdict.VERIFIED.value:
        if _same(run.measured, run.base_measured) and _same(run.interval, run.base_interval):
            return State.NO_CHANGE, (
                f"the check measured {format_value(run.measured)} under the variant, exactly as "
                "without it: the variant changes nothing this check measures")
        return State.MISSED, ""
    return State.NOT_DECIDED, f"under the variant the claim is {verdict}"


def _same(a: Any, b: Any) -> bool:
    """Equal measurements, NaN equal to NaN (a run under no change repeats the unvaried one)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(type(a) is type(b) and a == b)


def _never_run(status: StoredStatus) -> str:
    """How to run a variant never run: a training claim's variants need its result's budget."""
    result = status.stored
    if result is not None and result.tier == Tier.TRAIN.value:
        return (f"never run: run `claimcheck verify --power --budget {result.budget}` (a "
                "training claim's variants run at its result's budget)")
    return "never run: run `claimcheck verify --power`"
