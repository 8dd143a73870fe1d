"""Run a claim's check in this process, optionally under a wrong variant, and judge it against
the card's own ``expect`` (read from the card, never re-typed): what a power run does in its
child process, for the content tests."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claimcheck import CheckContext, Judgement, judge, load_config, load_wiki, normalise_evidence
from claimcheck.checks.resolve import resolve_check
from claimcheck.verdict import unverified

ROOT = Path(__file__).resolve().parents[2]
CONFIG = load_config(ROOT)
WIKI = load_wiki(CONFIG)


def claim_ref(global_id: str) -> Any:
    ref = WIKI.claim(global_id)
    if ref is None:
        raise LookupError(f"no claim {global_id}")
    return ref


def variants() -> dict[str, Callable[[], None]]:
    """Every ``@wrong_variant`` function of ``models.variants``, by its card name."""
    import models.variants as package

    found: dict[str, Callable[[], None]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"models.variants.{info.name}")
        for name, value in vars(loaded).items():
            if getattr(value, "__claimcheck_marker__", None) == "wrong_variant":
                found[name.replace("_", "-")] = value
    return found


def run_claim(global_id: str, scratch: Path, seed: int = 0) -> Judgement:
    """The claim's verdict from a fresh run of its check (an exception is unverified)."""
    claim = claim_ref(global_id).claim
    check = resolve_check(claim.check, CONFIG)
    context = CheckContext(args=dict(claim.args), device="cpu", budget="smoke", seed=seed,
                           scratch=scratch, root=CONFIG.root, config=CONFIG)
    try:
        evidence = normalise_evidence(check.function(context))
    except Exception as exc:  # a variant that breaks the check is caught, as in a power run
        return unverified(f"check raised {type(exc).__name__}: {exc}")
    return judge(claim, evidence, CONFIG.confidence)
