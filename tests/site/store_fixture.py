"""Write a results store for a fixture project: fixed verdicts, measurements and dates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from claimcheck.cards.wiki import load_wiki
from claimcheck.checks.resolve import claim_tier
from claimcheck.core.config import load_config
from claimcheck.store.fingerprint import claim_fingerprint
from claimcheck.store.results import Result, ResultStore
from claimcheck.verdicts.verdict import Verdict

RUN_AT = "2026-11-29T12:00:00+00:00"
ENVIRONMENT = {"python": "3.11.7", "torch": "2.13.0", "claimcheck": "0.1.0", "platform": "linux"}
CURVE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60">'
    '<polyline points="0,50 40,30 80,20 120,15" fill="none" stroke="black"/></svg>\n'
)


@dataclass(frozen=True)
class Stored:
    """The result to store for one claim."""

    verdict: str
    measured: float | int | str | None
    reason: str = ""
    details: str = ""
    fidelity: str = "exact"
    stale: bool = False
    curve: bool = False
    error: str | None = None


def write_results(project: Path, results: dict[str, Stored], curve: str = CURVE) -> Path:
    """Store ``results`` (by global claim id) in the project's results folder.

    ``curve`` is the text of the ``curve.svg`` artifact of results stored with ``curve=True``.
    """
    config = load_config(project)
    wiki = load_wiki(config)
    store = ResultStore(config.results)
    for global_id, stored in results.items():
        ref = wiki.claim(global_id)
        if ref is None:
            raise KeyError(f"no claim {global_id} in {project}")
        claim = ref.claim
        scratch = project / "scratch" / claim.id
        scratch.mkdir(parents=True)
        artifacts = {}
        if stored.curve:
            (scratch / "curve.svg").write_text(curve, encoding="utf-8")
            artifacts["curve_svg"] = "curve.svg"
        fingerprint = "0" * 64 if stored.stale else claim_fingerprint(ref, config)
        result = Result(
            claim=global_id, card=ref.card.display_path, line=ref.line,
            statement=claim.statement, cite=claim.locators, check=claim.check,
            tier=claim_tier(claim).value, budget="smoke",
            verdict=Verdict(stored.verdict), reason=stored.reason, measured=stored.measured,
            expected=claim.expect.as_mapping() if claim.expect else None,
            fidelity=stored.fidelity, fingerprint=fingerprint, details=stored.details,
            environment=dict(ENVIRONMENT), git={"commit": "0123abc", "dirty": False},
            timestamp=RUN_AT, artifacts=artifacts, error=stored.error,
        )
        store.write(result, artifacts_dir=scratch if artifacts else None)
    return config.results


MINISITE_RESULTS = {
    "2101.12491/params": Stored(
        "verified", 161500, details="counted trainable parameters <script>alert('details')</script>"
    ),
    "2101.12491/accuracy": Stored(
        "contradicted", 98.93, reason="measured 98.93 is below 99.7", curve=True,
        details="3 epochs on mnist-5k, seeds 0 and 1",
    ),
    "2101.12491/speed": Stored(
        "verified", 1.42, reason="<img src=x onerror=\"alert('reason')\">", stale=True
    ),
}
