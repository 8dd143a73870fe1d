"""Lint rules of power: the wrong variants a claim lists in ``catches:``.

==========================================================  =======
finding                                                      level
==========================================================  =======
a ``catches:`` name the catalogue lacks (with "did you mean") error
  or the trust boundary refuses (the message verify gives)
a wrong variant name defined twice in the catalogue, or one  error
  that takes arguments, is async or is a class
a wrong variant without a docstring naming its bug           warning
a listed variant the claim's check does not catch: the       warning
  claim stays verified under it (``--strict``: error)
a listed variant that is no longer a change for the claim    warning
  (the check measures the same under it) (``--strict``:
  error)
a listed variant that called the function it replaces while  warning
  the claim's check ran: not self-contained (``--strict``:
  error)
a listed variant whose power run was not decided (an error,  warning
  exhaustion, a refusal, an unverified verdict)
a verified claim's listed variant with no fresh power run    info
==========================================================  =======

The last three read the power results (``claimcheck verify --power``) from the results store,
judged again like every view (:mod:`claimcheck.store.power`); the finding sits at the claim's line,
as every verdict of the claim does, and names the variant.

Names are resolved against the catalogue of :mod:`claimcheck.trust.variants`, read with :mod:`ast`;
nothing is imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from claimcheck.authoring.findings import Finding, Level
from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.loader import LoadedCard, SalvagedClaims
from claimcheck.cards.wiki import Wiki
from claimcheck.core.errors import ClaimcheckError
from claimcheck.store.fingerprint import Fingerprinter
from claimcheck.store.power import State, VariantState, claim_power
from claimcheck.store.power_results import PowerStore
from claimcheck.store.results import ResultStore
from claimcheck.store.status import collect_status
from claimcheck.trust.variants import Catalogue
from claimcheck.verdicts.verdict import format_value

__all__ = ["STRICT_RULES", "catalogue_findings", "catches_findings", "power_findings"]

STRICT_RULES = frozenset({"variant-missed", "variant-no-change", "variant-not-self-contained"})
"""Warnings that ``claimcheck lint --strict`` (CI) makes errors: a listed variant that the
check does not catch, whatever the reason."""


def catalogue_findings(catalogue: Catalogue) -> Iterator[Finding]:
    """The catalogue's own problems (a name defined twice), at the variant's ``def``."""
    for problem in catalogue.problems:
        yield Finding(Level.ERROR if problem.error else Level.WARNING,
                      catalogue.config.relative(problem.file), problem.line, 1,
                      problem.message, "variant-catalogue")


def catches_findings(catalogue: Catalogue, loaded: LoadedCard | SalvagedClaims,
                     written: Iterable[tuple[int, str, Sequence[object]]] | None = None
                     ) -> Iterator[Finding]:
    """Every ``catches:`` entry that does not resolve, where it is: those of ``loaded``'s
    claims, or ``written`` as ``(claim index, claim id, names)`` for a card that did not load
    (a name that is not a string is left to the schema error)."""
    if written is None:
        card = loaded.card if isinstance(loaded, LoadedCard) else None
        if not isinstance(card, PaperCard):
            return
        written = [(index, claim.id, claim.catches) for index, claim in enumerate(card.claims)]
    for index, claim_id, names in written:
        for position, name in enumerate(names):
            if not isinstance(name, str):
                continue
            try:
                catalogue.resolve(name)
            except ClaimcheckError as exc:
                line, col = loaded.position("claims", index, "catches", position)
                yield Finding(Level.ERROR, loaded.display_path, line, col,
                              f"claim '{claim_id}': catches: {exc.message}", "catches")


_POWER_LEVELS = {State.MISSED: ("variant-missed", Level.WARNING),
                 State.NO_CHANGE: ("variant-no-change", Level.WARNING),
                 State.NOT_SELF_CONTAINED: ("variant-not-self-contained", Level.WARNING),
                 State.NOT_DECIDED: ("variant-not-decided", Level.WARNING),
                 State.NOT_RUN: ("power-not-run", Level.INFO),
                 State.STALE: ("power-not-run", Level.INFO)}


def power_findings(wiki: Wiki, catalogue: Catalogue) -> Iterator[Finding]:
    """Listed variants that the stored power runs show missed, errored, or not (freshly) run,
    for verified claims (a claim that is not verified has no power to measure)."""
    if not catalogue.variants:
        return
    results = ResultStore(wiki.config.results)
    fingerprints = Fingerprinter(wiki.config, cache_dir=results.folder / "cache")
    store = PowerStore(wiki.config.results)
    for status in collect_status(wiki, results):
        ref = status.ref
        if ref.claim.check is None or not isinstance(ref.card.card, PaperCard):
            continue
        power = claim_power(status, catalogue, store, fingerprints, wiki.config.confidence)
        if not power.applicable:
            continue
        index = next(i for i, c in enumerate(ref.card.card.claims) if c is ref.claim)
        for variant in power.variants:
            rule_level = _POWER_LEVELS.get(variant.state)
            if rule_level is None or not variant.listed:
                continue
            rule, level = rule_level
            line, col = ref.card.position("claims", index)
            yield Finding(level, ref.card.display_path, line, col,
                          f"claim '{ref.claim.id}': {_power_message(variant)}", rule)


def _power_message(variant: VariantState) -> str:
    name = variant.name
    if variant.state is State.MISSED:
        return (f"wrong variant {name!r} is not caught: the claim stays verified under it "
                f"(measured {format_value(variant.measured)}); the check cannot tell this bug "
                "from the model")
    if variant.state is State.NO_CHANGE:
        return (f"wrong variant {name!r} is no longer a change for this claim: {variant.note}; "
                "drop it from catches: or measure what it changes")
    if variant.state is State.NOT_SELF_CONTAINED:
        return f"wrong variant {name!r} is not self-contained: {variant.note}"
    if variant.state is State.NOT_DECIDED:
        return f"the power run of wrong variant {name!r} was not decided: {variant.note}"
    return (f"wrong variant {name!r} has no fresh power result ({variant.note}): run "
            "`claimcheck verify --power`")
