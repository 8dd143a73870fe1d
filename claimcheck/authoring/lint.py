"""``claimcheck lint``: find card errors before anything runs.

Rules, by level:

==========================================================  =======
finding                                                      level
==========================================================  =======
a card that does not load or validate                        error
a malformed citation (near-miss, bad id, bad locator)        error
bracketed text that looks like a citation and is none         warning
  (``[openreview HJWLfGWRb §3.1]``; with the citation meant)
duplicate slug / duplicate paper card / duplicate claim id   error
  (:mod:`claimcheck.store.conflicts`; verify refuses those claims)
malformed claim locator                                      error
a function a card names that the trust boundary refuses       error
  (``check:``, ``factory:``, ``a:``/``b:``, ``trainer:``; the
  same message verify gives, see :mod:`claimcheck.trust.boundary`)
an unknown built-in check kind (with "did you mean")         error
a file that leaves the wiki or is not a regular file          error
a page that is a symbolic link to another page, or a folder    error
  named like a card (``notes.md/``)
a built-in kind's args that break its model, or name an      error
unknown model, preset, config field or trainer key
a path argument (``data_folder``, ``*_dir``, ...) outside    error
  the project's data roots (:mod:`claimcheck.trust.data_paths`;
  the same message verify gives)
a custom check's args that its declaration does not allow    error
  (unknown key with "did you mean", missing key, wrong type;
  :mod:`claimcheck.checks.declared`)
``nan`` or ``inf`` in an expectation                         error
an expectation of the wrong type for the check's measurement  error
  (text for a number, ``equals`` on a real number, ``holds``
  on a count; :mod:`claimcheck.verdicts.expect_types`)
a ``catches:`` name that does not resolve (did you mean)    error
  (:mod:`claimcheck.authoring.lint_power`)
a listed wrong variant that the stored power run shows       warning
  missed (``--strict``: error)
a claim's stated basis that does not fit its check          error
a claim whose basis is missing and cannot be inferred        warning
a citation of a paper that has no paper card (outside code)   warning
a page without front matter that looks like a card           warning
a citation locator that covers no claim                      warning
a citation's ``#claim-name`` that is no claim at its locator error
a citation covering more than 5 claims that names none       warning
a claim statement with TeX outside ``$...$`` (shown raw)     warning
``papers:`` not matching the ids cited in the body           warning
a ``TODO`` placeholder left by ``claimcheck new``, or in a     warning
  plain page
an unknown ``related:`` slug                                 info
a result file no card claims (:mod:`lint_results`; when the   warning
  whole configured wiki is linted)
a ``train`` claim with no trainer, or a ``model:`` with no   error
  model factory (configured or default) that verify could load
a ``model:``/``preset:`` that no registration defines and     warning
  the factory's source never mentions
a ``model:`` no readable registration defines, where some     warning
  ``register_model`` calls cannot be read (a loop)
a ``shapes`` claim on a model whose ``forward`` returns       error
  several tensors, without ``field:``, or with a ``field:``
  the output does not have (an index out of range, an index
  into a dataclass or dict, an unknown name)
==========================================================  =======

The rules on readings, versions and refused sources are listed in
:mod:`claimcheck.authoring.lint_readings`.

Lint never imports torch or the project's content code: check references are resolved with
:mod:`claimcheck.trust.references` (files and ``ast`` only).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claimcheck.authoring.findings import Finding, Level
from claimcheck.authoring.lint_placeholders import (
    page_placeholder_findings,
    placeholder_findings,
)
from claimcheck.authoring.lint_power import (
    STRICT_RULES,
    catalogue_findings,
    catches_findings,
    power_findings,
)
from claimcheck.authoring.lint_readings import reading_findings, refused_findings
from claimcheck.authoring.lint_results import unclaimed_results
from claimcheck.authoring.lint_sources import source_findings
from claimcheck.cards.basis import basis_problem
from claimcheck.cards.citations import (
    Citation,
    CitationProblem,
    CitationSyntaxError,
    parse_citation,
)
from claimcheck.cards.frontmatter import Claim, ConceptCard, Expect, PaperCard
from claimcheck.cards.identifiers import PaperId, one_edit_apart, parse_paper_key
from claimcheck.cards.loader import LoadedCard, SalvagedClaims
from claimcheck.cards.locators import LocatorError, parse_locator
from claimcheck.cards.plainpages import PlainPage
from claimcheck.cards.wiki import Wiki, card_files, load_cards, load_wiki
from claimcheck.checks.api import builtin_kinds, unknown_kind_message
from claimcheck.checks.args import ArgsProblem, args_problems
from claimcheck.checks.catalog import model_catalog, trainer_facts
from claimcheck.checks.declared import (
    content_module_finder,
    field_problems,
    static_declaration,
)
from claimcheck.checks.resolve import configured_problem
from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import ClaimcheckError
from claimcheck.sources.checker import QuoteChecker
from claimcheck.store.conflicts import identity_conflicts
from claimcheck.trust.boundary import CallableSlot, callable_slots, resolve_reference
from claimcheck.trust.data_paths import path_arg_problems
from claimcheck.trust.references import is_reference
from claimcheck.trust.variants import Catalogue, load_catalogue
from claimcheck.verdicts.expect_types import expect_problems
from claimcheck.verdicts.verdict import format_value

Located = LoadedCard | SalvagedClaims
"""Where claims come from: a card that loaded, or the claims salvaged from one that did not."""

__all__ = ["Finding", "Level", "lint_selection", "lint_wiki", "strict"]


def strict(findings: list[Finding]) -> list[Finding]:
    """``findings`` as ``lint --strict`` reports them: the warnings of
    :data:`~claimcheck.authoring.lint_power.STRICT_RULES` become errors."""
    return [dataclasses.replace(f, level=Level.ERROR)
            if f.rule in STRICT_RULES and f.level is Level.WARNING else f for f in findings]

def lint_wiki(wiki: Wiki) -> list[Finding]:
    """Every finding of the wiki, sorted by place."""
    findings = [
        Finding(Level.ERROR, e.path or "?", e.line or 1, e.col or 1, e.message, "load")
        for e in wiki.load_errors
    ]
    findings.extend(_duplicates(wiki))
    kinds = list(builtin_kinds())
    slugs = {loaded.card.slug for loaded in wiki.cards}
    papers = wiki.papers()
    quotes = QuoteChecker(wiki.config)
    catalogue = load_catalogue(wiki.config)
    findings.extend(catalogue_findings(catalogue))
    findings.extend(power_findings(wiki, catalogue))
    for loaded in wiki.cards:
        findings.extend(catches_findings(catalogue, loaded))
        findings.extend(_citation_findings(wiki, loaded, papers))
        findings.extend(source_findings(loaded, papers, quotes))
        findings.extend(reading_findings(loaded, papers))
        findings.extend(refused_findings(wiki.config, loaded))
        if isinstance(loaded.card, PaperCard):
            findings.extend(_claim_findings(wiki.config, loaded, enumerate(loaded.card.claims),
                                            kinds))
        if isinstance(loaded.card, ConceptCard):
            findings.extend(_papers_field(loaded, loaded.card))
        findings.extend(_related(loaded, slugs))
        findings.extend(placeholder_findings(loaded))
    for salvaged in wiki.salvaged:  # a card that did not load: its claims that do still count
        findings.extend(_claim_findings(wiki.config, salvaged, salvaged.claims, kinds))
        for index, raw in salvaged.unvalidated:
            findings.extend(_unvalidated_findings(wiki.config, salvaged, index, raw, kinds))
        findings.extend(_salvaged_catches(catalogue, salvaged))
    for page in wiki.pages:
        findings.extend(_citation_findings(wiki, page, papers))
        findings.extend(source_findings(page, papers, quotes))
        findings.extend(refused_findings(wiki.config, page))
        findings.extend(page_placeholder_findings(page))
        if page.card_hint is not None:
            line, why = page.card_hint
            findings.append(Finding(Level.WARNING, page.display_path, line, 1,
                                    f"looks like a card without front matter: {why}",
                                    "no-front-matter"))
    return sorted(findings, key=lambda f: (f.path, f.line, f.col, f.message))


def lint_selection(config: ProjectConfig, target: Path | None) -> tuple[list[Finding], int]:
    """Lint ``target`` (a card, a folder, or the whole wiki when ``None``) in its wiki's context.

    For a part of the configured wiki, the whole wiki is loaded, so that a named card's
    citations, duplicates and related slugs are judged against every other card; only findings
    in the named files are returned, with the number of cards named. Files outside the wiki
    are judged on their own.
    """
    if target is not None and not _inside_wiki(target, config) and not _same(target,
                                                                             config.wiki):
        wiki = (load_cards(config, card_files(target)) if target.is_file()
                else load_wiki(config, target))  # not part of the wiki: judged on its own
        return lint_wiki(wiki), len(wiki.cards)
    wiki = load_wiki(config)
    if target is None or _same(target, config.wiki):  # the whole wiki: its store's orphans too
        findings = lint_wiki(wiki) + list(unclaimed_results(wiki))
        return sorted(findings, key=lambda f: (f.path, f.line, f.col, f.message)), len(wiki.cards)
    shown = config.relative(target)
    findings = [f for f in lint_wiki(wiki) if f.path == shown or f.path.startswith(shown + "/")]
    named = sum(c.display_path == shown or c.display_path.startswith(shown + "/")
                for c in wiki.cards)
    return findings, named


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _inside_wiki(target: Path, config: ProjectConfig) -> bool:
    try:
        resolved, wiki = target.resolve(), config.wiki.resolve()
    except OSError:
        return False
    return wiki in resolved.parents


def _duplicates(wiki: Wiki) -> Iterator[Finding]:
    """Ambiguous identities (:mod:`claimcheck.store.conflicts`: the table verify refuses with)."""
    for conflict in identity_conflicts(wiki):
        line, col = conflict.card.position(*conflict.where)
        yield _error(conflict.card, line, col, conflict.message, conflict.rule)


def _citation_findings(
    wiki: Wiki, loaded: LoadedCard | PlainPage, papers: dict[str, LoadedCard]
) -> Iterator[Finding]:
    for problem in loaded.citation_problems:
        hint = _card_id_hint(problem, papers) or problem.hint
        message = problem.message + (f" ({hint})" if hint else "")
        if problem.warning:
            yield Finding(Level.WARNING, problem.path, problem.line, problem.col, message,
                          "near-miss-citation")
        else:
            yield Finding(Level.ERROR, problem.path, problem.line, problem.col, message,
                          "citation")
    for citation in loaded.citations:
        if citation.in_code and (citation.paper_key not in papers
                                 or not wiki.covering_claims(citation)):
            continue  # an example shown as code (the authoring guide's): grammar only
        if citation.paper_key not in papers:
            label = PaperId(citation.scheme, citation.id).label
            failing = {salvaged.paper_key: salvaged.display_path for salvaged in wiki.salvaged}
            why = (f"whose paper card {failing[citation.paper_key]} does not load (its errors "
                   "are listed there)" if citation.paper_key in failing
                   else "which has no paper card")
            yield Finding(Level.WARNING, citation.path, citation.line, citation.col,
                          f"cites {label}, {why}", "no-paper")
        elif not wiki.covering_claims(citation):
            yield Finding(Level.WARNING, citation.path, citation.line, citation.col,
                          f"{citation.text}: no claim registered at this locator", "uncovered")
        else:
            yield from _claim_name_findings(wiki, citation)


def _card_id_hint(problem: CitationProblem, papers: dict[str, LoadedCard]) -> str | None:
    """``did you mean `[arxiv:1607.06450 eq. 3]`?`` for a citation whose malformed arXiv id
    (``1607.0645``) is one edit away from exactly one paper card's id; else ``None``."""
    if problem.bad_id is None or problem.repair is None:
        return None
    close = [key for key in papers if one_edit_apart(problem.bad_id, key)]
    if len(close) != 1:
        return None
    repaired = problem.repair.replace(f":{problem.bad_id}", f":{close[0]}", 1)
    try:
        parse_citation(repaired)
    except CitationSyntaxError:
        return None
    return f"did you mean `{repaired}`? {close[0]} is the paper of {papers[close[0]].display_path}"


BROAD_LOCATOR = 5
"""A citation covering more claims than this, and naming none, gets a warning."""


def _claim_name_findings(wiki: Wiki, citation: Citation) -> Iterator[Finding]:
    """Claim names that are not claims of the paper at the locator; broad unnamed citations.

    A citation inside a code span or block is an example shown as text, with no badge, so its
    breadth is never a finding; the names it writes are still checked.
    """
    covered = wiki.covering_claims(citation)
    if not citation.claims:
        if len(covered) > BROAD_LOCATOR and not citation.in_code:
            yield Finding(
                Level.WARNING, citation.path, citation.line, citation.col,
                f"{citation.text} covers {len(covered)} claims: name the ones the sentence "
                f"states, e.g. `{citation._replace(claims=(covered[0].claim.id,))}`",
                "broad-locator")
        return
    at_locator = {ref.claim.id for ref in covered}
    of_paper = {ref.claim.id: ref for ref in wiki.claims_of(citation.paper_key)}
    for name in citation.claims:
        if name in at_locator:
            continue
        col = citation.col + citation.text.index(f" #{name}") + 1
        ref = of_paper.get(name)
        if ref is not None:
            message = (f"claim #{name} is at {', '.join(ref.claim.locators)}, which "
                       f"{', '.join(str(loc) for loc in citation.locators)} does not cover")
        else:
            message = f"#{name} is not a claim of {citation.key}"
        close = difflib.get_close_matches(name, sorted(at_locator), n=1, cutoff=0.6)
        if close:
            message += f" (did you mean #{close[0]}?)"
        yield Finding(Level.ERROR, citation.path, citation.line, col, message, "claim-name")


def _claim_findings(
    config: ProjectConfig, loaded: Located, claims: Iterable[tuple[int, Claim]], kinds: list[str]
) -> Iterator[Finding]:
    for index, claim in claims:
        yield from _locator_findings(loaded, index, claim.cite)
        yield from _non_finite_expect(loaded, index, claim.expect)
        yield from _typed_expect(loaded, index, claim.check, claim.args, claim.expect)
        yield from _raw_tex(loaded, index, claim)
        if claim.check is None:
            continue
        check_findings = list(_check_findings(config, loaded, index, claim.id, claim.check,
                                              claim.args, kinds))
        yield from check_findings
        if not any(f.rule in ("reference", "unknown-kind") for f in check_findings):
            yield from _basis_findings(loaded, index, claim)  # a warning about a known check


def _unvalidated_findings(
    config: ProjectConfig, loaded: Located, index: int, raw: dict[str, Any], kinds: list[str]
) -> Iterator[Finding]:
    """A claim that does not validate (its errors are load errors): its locators and the check
    it names are still judged, so that no error hides another."""
    cite = raw.get("cite")
    if isinstance(cite, str) or (isinstance(cite, list)
                                 and all(isinstance(item, str) for item in cite)):
        yield from _locator_findings(loaded, index, cite)
    check, args = raw.get("check"), raw.get("args")
    if isinstance(check, str) and check and isinstance(args, dict):  # args as written only:
        yield from _check_findings(config, loaded, index, str(raw.get("id", index)), check,
                                   args, kinds)  # a claim without them errs already
        expect = _valid_part_of_expect(raw.get("expect"))
        yield from _non_finite_expect(loaded, index, expect)
        yield from _typed_expect(loaded, index, check, args, expect)


def _valid_part_of_expect(raw: object) -> Expect | None:
    """The expectation as written, or, where it does not validate (``equals`` beside
    ``rel_tol``, a tolerance of the wrong type), the fields of it that do on their own: their
    other problems are still judged (a load error already names the rest)."""
    if not isinstance(raw, dict):
        return None
    try:
        return Expect.model_validate(raw)
    except ValidationError as error:
        wrong = {detail["loc"][0] for detail in error.errors() if detail["loc"]}
    kept = {key: value for key, value in raw.items()
            if key in Expect.model_fields and key not in wrong}
    return Expect.model_construct(**kept) if kept else None


def _salvaged_catches(catalogue: Catalogue, salvaged: SalvagedClaims) -> Iterator[Finding]:
    """``catches:`` entries that do not resolve, in the claims of a card that did not load (a
    schema error elsewhere in the card must not hide them)."""
    written = [(index, claim.id, list(claim.catches)) for index, claim in salvaged.claims]
    written += [(index, str(raw.get("id", index)), raw["catches"])
                for index, raw in salvaged.unvalidated if isinstance(raw.get("catches"), list)]
    yield from catches_findings(catalogue, salvaged, written)


def _locator_findings(loaded: Located, index: int, cite: str | list[str]) -> Iterator[Finding]:
    for position, text in enumerate(cite if isinstance(cite, list) else [cite]):
        try:
            parse_locator(text)
        except LocatorError as exc:
            where = ("claims", index, "cite") + ((position,) if isinstance(cite, list) else ())
            line, col = loaded.position(*where)
            hint = f" ({exc.hint})" if exc.hint else ""
            yield _error(loaded, line, col,
                         f"malformed claim locator {text!r}: {exc.message}{hint}",
                         "claim-locator")


def _check_findings(
    config: ProjectConfig, loaded: Located, index: int, claim_id: str, check: str,
    args: dict[str, Any], kinds: list[str],
) -> Iterator[Finding]:
    """Everything about the check a claim names: the function or kind, its args, the
    configured callables it relies on, and every other function its args name."""
    for problem in path_arg_problems(args, config, check):
        line, col = loaded.position("claims", index, "args", *problem.path)
        yield _error(loaded, line, col, problem.message, "path-arg")
    slots = {slot.path: slot for slot in callable_slots(check, args)}
    line, col = loaded.position("claims", index, "check")
    if is_reference(check):
        check_errors = list(_reference_error(config, loaded, slots.pop(("check",)), line, col))
        yield from check_errors
        if not check_errors:
            yield from _declared_args_findings(config, loaded, index, check, args)
    elif check not in kinds:
        yield _error(loaded, line, col, unknown_kind_message(check, kinds), "unknown-kind")
    else:
        yield from _configured_findings(config, loaded, index, claim_id, check, args)
        yield from _args_findings(config, loaded, index, check, args)
    for path, slot in slots.items():
        line, col = loaded.position("claims", index, *path)
        yield from _reference_error(config, loaded, slot, line, col)


_RAW_TEX = re.compile(r"[\^_]\{|\\[A-Za-z]+")
_MATHS_OR_CODE = re.compile(r"`[^`]*`|\$[^$]*\$")


def _raw_tex(loaded: Located, index: int, claim: Claim) -> Iterator[Finding]:
    """A statement with TeX outside ``$...$`` and code spans: the site would show it raw."""
    if _RAW_TEX.search(_MATHS_OR_CODE.sub("", claim.statement)):
        line, col = loaded.position("claims", index, "statement")
        yield Finding(Level.WARNING, loaded.display_path, line, col,
                      f"claim '{claim.id}': its statement holds TeX outside $...$, which the "
                      "site would show raw: write maths as `$1 - e^{-\\lVert s \\rVert}$`",
                      "raw-tex")


def _basis_findings(loaded: Located, index: int, claim: Claim) -> Iterator[Finding]:
    """A stated basis that does not fit the check is an error; a missing one that cannot be
    inferred is a warning, so that cards written before ``basis`` existed still pass."""
    problem = basis_problem(claim)
    if problem is None:
        return
    stated = claim.basis is not None
    line, col = loaded.position("claims", index, "basis" if stated else "id")
    yield Finding(Level.ERROR if stated else Level.WARNING, loaded.display_path, line, col,
                  f"claim '{claim.id}': {problem}", "basis")


def _args_findings(
    config: ProjectConfig, loaded: Located, index: int, kind: str, args: dict[str, Any]
) -> Iterator[Finding]:
    trainer = args.get("trainer") if isinstance(args.get("trainer"), str) else None
    facts = trainer_facts(config, trainer)
    yield from _located_args(loaded, index, args_problems(kind, args, model_catalog(config), facts))


def _configured_needs(kind: str, args: dict[str, Any], depth: int = 0) -> set[str]:
    """The ``[tool.claimcheck]`` callables a built-in claim relies on: the trainer for ``train``
    without ``trainer:``, the model factory for a model named by ``model:``."""
    needs = set()
    if kind == "train" and "trainer" not in args:
        needs.add("trainer")
    if kind in ("params", "shapes", "flops") and "model" in args:
        needs.add("model_factory")
    if kind == "ratio" and depth < 4:
        for side in ("numerator", "denominator"):
            spec = args.get(side)
            if isinstance(spec, dict) and isinstance(spec.get("args", {}), dict):
                needs |= _configured_needs(str(spec.get("kind")), spec.get("args", {}), depth + 1)
    return needs


def _configured_findings(
    config: ProjectConfig, loaded: Located, index: int, claim_id: str, check: str,
    args: dict[str, Any],
) -> Iterator[Finding]:
    """A configured trainer or model factory that verify could not load: named, with the fix."""
    for key in sorted(_configured_needs(check, args)):
        problem = configured_problem(config, key)
        if problem is not None:
            line, col = loaded.position("claims", index, "check")
            yield _error(loaded, line, col, f"claim '{claim_id}': {problem}", "configured")


def _declared_args_findings(
    config: ProjectConfig, loaded: Located, index: int, check: str, args: dict[str, Any]
) -> Iterator[Finding]:
    """A custom check's args against its declaration (:mod:`claimcheck.checks.declared`)."""
    reference = resolve_reference(check, config)
    declaration = static_declaration(reference.file, reference.function,
                                     content_module_finder(config))
    if declaration.error is not None:
        line, col = loaded.position("claims", index, "check")
        yield _error(loaded, line, col, f"check {check!r} declares args that lint cannot "
                     f"read: {declaration.error}", "args")
        return
    problems = field_problems(declaration.fields, args)
    yield from _located_args(loaded, index, [
        ArgsProblem((problem.key,) if problem.key in args else (), problem.message,
                    problem.at_key) for problem in problems])


def _located_args(
    loaded: Located, index: int, problems: list[ArgsProblem]
) -> Iterator[Finding]:
    for problem in problems:
        where = ("claims", index, "args", *problem.path)
        if ("claims", index, "args") not in loaded.positions.values:
            where = ("claims", index, "check")
        if problem.at_key and problem.path:
            line, col = loaded.positions.key(where)
        else:
            line, col = loaded.position(*where)
        yield Finding(Level.WARNING if problem.warning else Level.ERROR, loaded.display_path,
                      line, col, f"args: {problem.message}", "args")


def _reference_error(
    config: ProjectConfig, loaded: Located, slot: CallableSlot, line: int, col: int
) -> Iterator[Finding]:
    """The trust boundary's refusal of one named function, exactly as verify words it."""
    try:
        resolve_reference(slot.text, config, role=slot.role)
    except ClaimcheckError as exc:
        yield _error(loaded, line, col, exc.message, "reference")


def _non_finite_expect(loaded: Located, index: int, expect: Expect | None) -> Iterator[Finding]:
    """``nan`` and ``inf`` in an expectation: no measurement could ever be judged against them."""
    if expect is None:
        return
    for key in sorted(expect.model_fields_set):
        value = getattr(expect, key)
        if _has_non_finite(value):
            line, col = loaded.position("claims", index, "expect", key)
            yield _error(loaded, line, col, f"expect.{key} is {format_value(value)}: an "
                         "expectation must be a finite number", "non-finite")


def _typed_expect(
    loaded: Located, index: int, check: str | None, args: dict[str, Any], expect: Expect | None
) -> Iterator[Finding]:
    """An expectation no measurement of the check could be judged by (:mod:`expect_types`)."""
    if expect is None:
        return
    for problem in expect_problems(check, args, expect):
        line, col = loaded.position("claims", index, "expect", problem.key)
        level = Level.WARNING if problem.warning else Level.ERROR
        yield Finding(level, loaded.display_path, line, col, problem.message, "expect-type")


def _has_non_finite(value: object) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    return isinstance(value, list) and any(_has_non_finite(item) for item in value)


def _papers_field(loaded: LoadedCard, card: ConceptCard) -> Iterator[Finding]:
    cited = {c.paper_key for c in loaded.citations}
    listed = {parse_paper_key(item).key for item in card.papers}
    if cited == listed:
        return
    line, col = loaded.position("papers") if "papers" in card.model_fields_set else (1, 1)
    for key in sorted(cited - listed):
        yield Finding(Level.WARNING, loaded.display_path, line, col,
                      f"the body cites {_label(key)} but papers: does not list it", "papers")
    for key in sorted(listed - cited):
        yield Finding(Level.WARNING, loaded.display_path, line, col,
                      f"papers: lists {_label(key)} but the body never cites it", "papers")


def _label(key: str) -> str:
    return parse_paper_key(key).label


def _related(loaded: LoadedCard, slugs: set[str]) -> Iterator[Finding]:
    for index, slug in enumerate(loaded.card.related):
        if slug not in slugs:
            line, col = loaded.position("related", index)
            yield Finding(Level.INFO, loaded.display_path, line, col,
                          f"related slug '{slug}' has no card yet", "related")


def _error(loaded: Located, line: int, col: int, message: str, rule: str) -> Finding:
    return Finding(Level.ERROR, loaded.display_path, line, col, message, rule)
