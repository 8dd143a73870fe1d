"""Run a claim's check in this process, optionally under a wrong variant, and judge it against
the card's own ``expect`` (read from the card, never re-typed): what a power run does in its
child process, for the content tests."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claimcheck import CheckContext, Judgement, judge, load_config, load_wiki, normalise_evidence
from claimcheck.checks.api import DataUnavailable
from claimcheck.checks.resolve import resolve_check
from claimcheck.trust.variants import load_catalogue
from claimcheck.verdicts.verdict import unverified

ROOT = Path(__file__).resolve().parents[2]
CONFIG = load_config(ROOT)
WIKI = load_wiki(CONFIG)


def claim_ref(global_id: str) -> Any:
    ref = WIKI.claim(global_id)
    if ref is None:
        raise LookupError(f"no claim {global_id}")
    return ref


@functools.cache
def variants() -> dict[str, Callable[[], None]]:
    """Every wrong variant of the project's catalogue, by its card name (read once: reading the
    catalogue parses every module of models/variants, about 0.3 s, and each test asks)."""
    found: dict[str, Callable[[], None]] = {}
    for name, variant in load_catalogue(CONFIG).variants.items():
        module_name, _, function = variant.reference.partition(":")
        found[name] = getattr(importlib.import_module(module_name), function)
    return found


def apply_variant(name: str, monkeypatch: Any) -> None:
    """Break the model with variant ``name``, every change undone when the test ends."""
    from models.variants import patching

    monkeypatch.setattr(patching, "APPLY", monkeypatch.setattr)
    variants()[name]()


def run_claim(global_id: str, scratch: Path, seed: int = 0) -> Judgement:
    """The claim's verdict from a fresh run of its check (an exception is unverified)."""
    claim = claim_ref(global_id).claim
    check = resolve_check(claim.check, CONFIG)
    context = CheckContext(args=dict(claim.args), device="cpu", budget="smoke", seed=seed,
                           scratch=scratch, root=CONFIG.root, config=CONFIG)
    try:
        evidence = normalise_evidence(check.function(context))
    except (DataUnavailable, RecursionError, MemoryError):
        raise  # no data, or exhaustion (a broken variant): errored in a power run, never caught
    except Exception as exc:  # a variant that breaks the check is caught, as in a power run
        return unverified(f"check raised {type(exc).__name__}: {exc}")
    return judge(claim, evidence, CONFIG.confidence)


def listed_pairs(kinds_left_out: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(claim id, variant name) for every variant a card's ``catches:`` lists, except claims
    whose check is one of ``kinds_left_out``."""
    return [(ref.global_id, name) for ref in WIKI.claims() for name in ref.claim.catches
            if ref.claim.check not in kinds_left_out]


def catches_table() -> list[str]:
    """Markdown rows ``| variant | claims that list it |`` for the whole catalogue, sorted."""
    listed: dict[str, list[str]] = {name: [] for name in variants()}
    for claim_id, name in listed_pairs():
        listed.setdefault(name, []).append(f"`{claim_id}`")
    return [f"| `{name}` | {', '.join(sorted(claims)) or '(none)'} |"
            for name, claims in sorted(listed.items())]
