"""Stored status of every claim: its last result, judged again, and whether it is stale.

Status is derived, never asserted. Every read (``claimcheck status``, the verify planner and its
report, the site, ``claimcheck report``) goes through :func:`collect_status`, which

* judges the stored ``measured`` and ``fidelity`` again against the card's *current* ``expect``
  (:func:`rejudge`): a stored verdict that disagrees with its own measurement is shown as
  unverified, "stored verdict disagrees with its own measurement", so a hand-edited or forged
  result file cannot show a verdict its evidence does not support;
* marks a result stale when the fingerprint stored with it differs from the claim's fingerprint
  now (:mod:`claimcheck.store.fingerprint`), or when the claim's ``rerun_on`` (or verify's
  ``--rerun-on-environment``) names a part of the environment that changed;
* notes any other environment difference as provenance ("ran under torch 2.13.0, you have
  2.14.0") without making the result stale;
* shows a failed last attempt that did not replace the kept result;
* for a published view (``ci_gate=True``: the site, and verify when it gates a pull request),
  shows a ``train`` result of a budget above :data:`CI_BUDGET` as unverified, "not re-made by
  CI" (:func:`not_remade`): CI cannot re-make it, so it is the word of whoever committed it, and
  fails closed (docs/reliability.md, "What CI guarantees").

Nothing here runs a check or imports torch.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claimcheck.cards.frontmatter import Tier
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.errors import CheckReferenceError
from claimcheck.core.provenance import environment_changes, environment_info
from claimcheck.store.fingerprint import Fingerprinter
from claimcheck.store.result import BUDGETS, Result, budget_rank
from claimcheck.store.results import ResultStore
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import Verdict, describe_expect, format_value

if TYPE_CHECKING:
    from claimcheck.cards.frontmatter import Claim
    from claimcheck.cards.wiki import ClaimRef, Wiki

STALE_LEGEND = (
    "stale: the claim, its check's code, the modules that code imports, or the tool's version "
    "changed since this result was stored (or a part of the environment the claim asks to "
    "re-run on); run `claimcheck verify` to refresh it."
)
DISAGREES = "stored verdict disagrees with its own measurement"
INCOMPLETE = "stored result incomplete"
NOT_REMADE = "not re-made by CI"
CI_BUDGET = "smoke"
"""The training budget ``.ci/run`` re-makes results at; a larger one is never re-made by CI."""
SHOWN_PARTS = ("torch", "python")
"""Environment differences every status row notes; ``platform`` is noted only when asked for."""


@dataclass(frozen=True)
class StoredStatus:
    """One claim with its stored result (``None``: never run) and its stale marker.

    ``result`` is the result as shown: verdict and reason judged again (:func:`rejudge`);
    ``stored`` is the file as written. ``fingerprint`` is the claim's current fingerprint, for a
    caller that goes on to run it. ``environment_note`` names environment differences;
    ``stale_reason`` says why a stale result is stale.
    """

    ref: ClaimRef
    result: Result | None
    stale: bool
    fingerprint: str = ""
    stored: Result | None = None
    environment_note: str = ""
    stale_reason: str = ""


def collect_status(
    wiki: Wiki, store: ResultStore, *, rerun_on_environment: bool = False,
    ci_gate: bool = False,
) -> list[StoredStatus]:
    """The status of every claim of ``wiki``, in wiki order (one read of the store).

    ``rerun_on_environment`` makes any environment difference stale, for every claim;
    ``ci_gate`` shows what CI cannot re-make as such (:func:`not_remade`).
    """
    stored = store.read_all()
    fingerprints = Fingerprinter(wiki.config, cache_dir=store.folder / "cache")
    current = environment_info()
    statuses: list[StoredStatus] = []
    for ref in wiki.claims():
        fingerprint = fingerprints.fingerprint(ref.claim)
        result = stored.get(ref.global_id)
        if result is None:
            statuses.append(StoredStatus(ref, None, False, fingerprint))
            continue
        stale_reason = "" if result.fingerprint == fingerprint else "its inputs changed"
        asked = {"torch", "python", "platform"} if rerun_on_environment else _parts(ref.claim)
        changed = environment_changes(result.environment, current, asked)
        if changed and not stale_reason:
            stale_reason = "the environment it asks to re-run on changed: " + changed
        as_shown = shown(ref.claim, result, wiki.config.confidence)
        if ci_gate:
            as_shown = not_remade(ref.claim, as_shown)
        statuses.append(StoredStatus(
            ref, as_shown, bool(stale_reason),
            fingerprint, result,
            environment_changes(result.environment, current, SHOWN_PARTS), stale_reason,
        ))
    fingerprints.save()
    return statuses


def _parts(claim: Claim) -> set[str]:
    parts: set[str] = set(claim.rerun_on)
    return {"torch", "python", "platform"} if "environment" in parts else parts


def shown(claim: Claim, result: Result, confidence: float | None = None) -> Result:
    """``result`` as every view shows it: judged again (a figure measured over seeds at the
    project's ``confidence`` level), with a failed last attempt noted."""
    verdict, reason = rejudge(claim, result, confidence)
    attempt = result.last_attempt
    if isinstance(attempt, dict) and attempt.get("errored"):
        reason = "; ".join(part for part in (reason, _attempt_note(attempt)) if part)
    if verdict is result.verdict and reason == result.reason:
        return result
    return dataclasses.replace(result, verdict=verdict, reason=reason)


def not_remade(claim: Claim, result: Result) -> Result:
    """``result`` as a published view shows it: the result of a training claim (by the claim's
    check, never the file's ``tier``) made at a budget above :data:`CI_BUDGET`, or at none CI
    knows, is unverified, "not re-made by CI", whatever it says, because CI cannot re-make it
    and a pull request can commit any such file. So is a result whose last attempt to re-make it
    measured nothing (CI lacked the data or device: the store kept the file and noted the
    attempt). (No result is vouched for outside the pull request yet: docs/reliability.md.)"""
    attempt = result.last_attempt
    if isinstance(attempt, dict) and attempt.get("measured") is None:
        why = " ".join(str(attempt.get("reason") or "it measured nothing").split())
        reason = (f"{NOT_REMADE}: the last attempt to re-make it measured nothing ({why}); "
                  f"the file says {result.verdict.value}")
    elif ci_remakes(claim, result.budget):
        return result
    else:
        reason = (f"{NOT_REMADE}: made at budget {result.budget!r}, above the {CI_BUDGET!r} "
                  f"budget CI re-makes; the file says {result.verdict.value}")
    return dataclasses.replace(result, verdict=Verdict.UNVERIFIED, reason=reason)


def ci_remakes(claim: Claim, budget: str) -> bool:
    """Whether CI re-makes a result of ``claim`` stored at ``budget``: any claim but a training
    one, and a training one at a budget no larger than :data:`CI_BUDGET`."""
    try:
        training = claim_tier(claim) is Tier.TRAIN
    except CheckReferenceError:
        training = False
    if not training:
        return True
    return budget in BUDGETS and budget_rank(budget) <= budget_rank(CI_BUDGET)


def _attempt_note(attempt: dict[str, Any]) -> str:
    when = str(attempt.get("timestamp", "?"))
    why = str(attempt.get("reason") or "it failed")
    return f"the last attempt ({when}, budget {attempt.get('budget', '?')}) failed: {why}"


def _incomplete(claim: Claim, result: Result) -> str:
    """What a stored measurement lacks that its claim's check always records (``""``: nothing).

    Every claim of the ``train`` tier (the built-in ``train`` kind, or a custom check the card
    declares ``tier: train``: :func:`claim_tier`) measures a figure over seeds and records its
    confidence interval and the budget it ran at; a file without them would be judged on its
    mean alone, as if it were exact.
    """
    try:
        if claim_tier(claim) is not Tier.TRAIN:
            return ""
    except CheckReferenceError:
        return ""
    if result.interval is None:
        return "a training result holds the confidence interval of its seeds, and this one has none"
    if result.budget not in BUDGETS:
        return f"budget {result.budget!r} is none of {', '.join(BUDGETS)}"
    return ""


def rejudge(claim: Claim, result: Result, confidence: float | None = None
            ) -> tuple[Verdict, str]:
    """The verdict and reason that ``result``'s own measurement supports under the card's
    current ``expect``; see the module docstring."""
    if claim.check is None or claim.expect is None:
        return result.verdict, result.reason
    if result.measured is None or result.error is not None:
        if result.verdict is Verdict.UNVERIFIED:
            return result.verdict, result.reason
        return Verdict.UNVERIFIED, (f"{DISAGREES}: the file says {result.verdict.value}, but "
                                    "it holds no measurement")
    missing = _incomplete(claim, result)
    if missing:
        return Verdict.UNVERIFIED, f"{INCOMPLETE}: {missing}"
    judged = judge(claim, result.as_evidence(), confidence)
    if judged.verdict is result.verdict:
        return result.verdict, result.reason or judged.reason
    if result.expected != claim.expect.as_mapping():
        note = judged.reason or "the measurement meets it"
        return judged.verdict, f"judged again against the card's current expect: {note}"
    return Verdict.UNVERIFIED, (
        f"{DISAGREES}: the file says {result.verdict.value}, but measured "
        f"{format_value(result.measured)} (fidelity {result.fidelity}) against "
        f"{describe_expect(claim.expect)} is {judged.verdict.value}"
        + (f" ({judged.reason})" if judged.reason else "")
    )
