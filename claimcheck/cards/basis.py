"""What a verdict is evidence of: each claim's ``basis``, stated or inferred from its check.

A green badge on ``eq. 3`` may be evidence about the paper or only about our own code; the basis
tells the reader which. The five values (:class:`~claimcheck.cards.frontmatter.Basis`), one sentence
each in
:data:`BASIS_LEGEND`:

* ``paper-vs-code``: a figure the paper states, measured on a model built as the paper (or its
  official code) describes: the verdict can contradict the paper;
* ``implementation``: the wiki's code follows the paper's equation or procedure: it catches our
  bugs, but can never contradict the paper;
* ``reproduction``: a training or evaluation result;
* ``textual``: what the paper says, decided by the claim's quote found at its locator;
* ``wiki``: the wiki's own experiment or derivation, not a claim the paper makes.

Inference (:func:`inferred_basis`), used when a claim states no basis: ``params`` and ``shapes``
count or trace a model whose figure the claim cites from the paper, so they default to
``paper-vs-code``; ``train`` defaults to ``reproduction``; a ``ratio`` takes the default its
nested kinds share. A ``timing`` ratio (is it the paper's claim, measured on our layers, or our
own experiment?), a custom check (a property of our implementation, or the wiki's own
experiment?) and an ``unverified:`` claim are ambiguous: the author must choose, and lint says
so. A claim may always state another basis that its check allows (:data:`ALLOWED`); a
``textual`` claim takes no check at all.

Nothing here imports torch or the project's content code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claimcheck.cards.frontmatter import Basis, Claim

__all__ = [
    "ALLOWED",
    "BASIS_LEGEND",
    "BASIS_ORDER",
    "basis_problem",
    "claim_basis",
    "inferred_basis",
]

BASIS_ORDER = (
    Basis.PAPER_VS_CODE, Basis.IMPLEMENTATION, Basis.REPRODUCTION, Basis.TEXTUAL, Basis.WIKI,
)

BASIS_LEGEND: Mapping[Basis, str] = {
    Basis.PAPER_VS_CODE: (
        "A figure the paper states, measured on a model built as the paper or its official code "
        "describes it: the verdict is evidence about the paper."
    ),
    Basis.IMPLEMENTATION: (
        "The wiki's code follows the paper's equation or procedure: the verdict catches bugs in "
        "our code, but it can never contradict the paper."
    ),
    Basis.REPRODUCTION: (
        "A training or evaluation result, compared with the figure the paper reports."
    ),
    Basis.TEXTUAL: (
        "What the paper says, decided by the claim's quote found at its locator in the paper's "
        "pinned source; nothing is run."
    ),
    Basis.WIKI: (
        "The wiki's own experiment or derivation, not a claim the paper makes."
    ),
}

_MODEL_KINDS = {"params": Basis.PAPER_VS_CODE, "shapes": Basis.PAPER_VS_CODE}
_CHECKED = frozenset({Basis.PAPER_VS_CODE, Basis.IMPLEMENTATION, Basis.WIKI})
ALLOWED: Mapping[str, frozenset[Basis]] = {
    "params": _CHECKED,
    "shapes": _CHECKED,
    "ratio": _CHECKED | {Basis.REPRODUCTION},
    "timing": frozenset({Basis.PAPER_VS_CODE, Basis.WIKI}),
    "train": frozenset({Basis.REPRODUCTION, Basis.WIKI}),
    "flops": _CHECKED,
    "custom": _CHECKED,
}
"""The bases each kind of check may carry (``custom``: a ``module.path:function`` check).

A check measures code, so no check is ``textual``; only training is a ``reproduction`` (a ratio
may divide two training results); a timing on our layers is never "our code follows the
equation" (``implementation``)."""


def _kind(check: str) -> str:
    return "custom" if ":" in check else check


def inferred_basis(claim: Claim) -> Basis | None:
    """The basis implied by the claim's check kind, or ``None`` where that is ambiguous."""
    if claim.check is None:
        return Basis.TEXTUAL if claim.unverified is None and claim.quote else None
    if claim.check in _MODEL_KINDS:
        return _MODEL_KINDS[claim.check]
    if claim.check == "train":
        return Basis.REPRODUCTION
    if claim.check == "ratio":
        return _ratio_default(claim.args)
    return None


def _ratio_default(args: Mapping[str, Any]) -> Basis | None:
    found: set[Basis | None] = set()
    for side in ("numerator", "denominator"):
        spec = args.get(side)
        kind = spec.get("kind") if isinstance(spec, Mapping) else None
        if not isinstance(kind, str):
            return None
        found.add(_MODEL_KINDS.get(kind, Basis.REPRODUCTION if kind == "train" else None))
    return found.pop() if len(found) == 1 else None


def claim_basis(claim: Claim) -> Basis | None:
    """The claim's stated basis, else the inferred one (``None``: lint asks the author)."""
    return claim.basis if claim.basis is not None else inferred_basis(claim)


def basis_problem(claim: Claim) -> str | None:
    """Why the claim's basis is missing or does not fit its check, or ``None``."""
    if claim.basis is None:
        if claim.check is None or inferred_basis(claim) is not None:
            return None
        kind = _kind(claim.check)
        choices = " or ".join(b.value for b in BASIS_ORDER if b in ALLOWED.get(kind, _CHECKED))
        why = {
            "custom": "a custom check may test our implementation of the paper or run the "
                      "wiki's own experiment",
            "timing": "a timing may measure a speed the paper claims or be the wiki's own "
                      "experiment",
            "flops": "a FLOP count may be the analytic cost of our implementation or the "
                     "wiki's own comparison",
        }.get(kind, f"check {claim.check!r} does not say what it is evidence of")
        return f"choose basis: {choices} ({why})"
    if claim.check is None:
        return None
    allowed = ALLOWED.get(_kind(claim.check))
    if allowed is not None and claim.basis not in allowed:
        choices = ", ".join(b.value for b in BASIS_ORDER if b in allowed)
        return (f"basis {claim.basis.value!r} does not fit check {claim.check!r}: "
                f"use one of {choices}")
    return None
