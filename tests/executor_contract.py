"""The executor contract: one small project whose results every executor must reproduce exactly.

Local with one job, local with two jobs and Ray all run the same claims through the real engine
(:func:`claimcheck.engine.runner.verify`, judge, store). Each stored result must match
:data:`EXPECTED`, derived by hand from the tiny test project, and each stored artifact must hold
the same bytes, so the executors agree with each other as far as results are concerned.

The project adds ``tinymodels/contract.py`` to the engine tests' project: a check that writes an
artifact, a check that kills its worker on its first attempt only (a marker file in the project
remembers the attempt), and a check that naps and logs each run, for the resume test.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.cards.wiki import load_wiki
from claimcheck.core.config import load_config
from claimcheck.engine.runner import RunOptions, verify
from claimcheck.engine.tasks import Executor
from claimcheck.store.results import ResultStore
from tests.engine.conftest import claim, write_project

ARXIV = "2101.00008"
SMALL = {"model": "tiny", "preset": "small"}
WIDE = {"model": "tiny", "preset": "wide"}
# Trainable parameters of TinyNet(width): encoder 9w, head 2w + 2, decoder 24 (tests/engine).
TRAINABLE_SMALL, TRAINABLE_WIDE = 11 * 4 + 2 + 24, 11 * 16 + 2 + 24
NOTE = "a note written by the check\n"

CONTRACT_CHECKS = f'''\
"""Checks for the executor contract, failure-injection and resume tests."""
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from claimcheck import CheckArgs, claim_check
from claimcheck.checks.api import Evidence


@dataclass(frozen=True)
class Named(CheckArgs):
    name: str


@dataclass(frozen=True)
class Nap(CheckArgs):
    name: str
    seconds: float


@claim_check
def writes_note(ctx):
    (ctx.scratch / "notes").mkdir(parents=True, exist_ok=True)
    (ctx.scratch / "notes" / "note.txt").write_text({NOTE!r})
    return Evidence(measured=len({NOTE!r}), artifacts={{"note": "notes/note.txt"}})


@claim_check(args=Named)
def dies_once(ctx):
    """Kills the worker that runs it (its parent: each check has a process of its own) on the
    first attempt, as a crashed node would; succeeds on the next."""
    marker = Path(ctx.root) / "attempts" / ctx.args["name"]
    marker.parent.mkdir(exist_ok=True)
    with marker.open("a") as log:
        log.write("attempt\\n")
    if len(marker.read_text().splitlines()) == 1:
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)
    return Evidence(measured=True, details="succeeded on a later attempt")


@claim_check
def kills_worker(ctx):
    """Kills the worker that runs it, every time."""
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(60)
    return Evidence(measured=True)


@claim_check(args=Nap)
def naps(ctx):
    runs = Path(ctx.root) / "runs"
    runs.mkdir(exist_ok=True)
    with (runs / ctx.args["name"]).open("a") as log:
        log.write("ran\\n")
    time.sleep(float(ctx.args["seconds"]))
    return Evidence(measured=float(ctx.args["seconds"]))
'''


@dataclass(frozen=True)
class Observed:
    """What a run stored for one claim, reduced to what must not depend on the executor."""

    verdict: str
    measured: Any
    reason: str
    fidelity: str | None
    errored: bool
    artifacts: dict[str, bytes]


def contract_claims() -> list[dict[str, Any]]:
    """Built-in kinds, custom checks, a failing and a data-less check, and an artifact."""
    return [
        claim("params-small", "params", {"equals": TRAINABLE_SMALL}, args=SMALL),
        claim("params-wrong", "params", {"equals": TRAINABLE_SMALL + 1}, args=SMALL),
        claim("shapes-encoder", "shapes", {"equals": [2, 16]},
              args={**WIDE, "input": [2, 8], "module": "encoder"}),
        claim("ratio-wide", "ratio", {"approx": TRAINABLE_WIDE / TRAINABLE_SMALL, "rel_tol": 1e-9},
              args={"numerator": {"kind": "params", "args": WIDE},
                    "denominator": {"kind": "params", "args": SMALL}}),
        claim("holds", "tinymodels.checks:holds", {"holds": True}),
        claim("fails-property", "tinymodels.checks:holds", {"holds": True}, args={"value": False}),
        claim("progress", "tinymodels.checks:reports_progress", {"holds": True}),
        claim("raises", "tinymodels.checks:raises", {"holds": True}),
        claim("no-data", "tinymodels.checks:no_data", {"holds": True}),
        claim("note", "tinymodels.contract:writes_note", {"equals": len(NOTE)}),
    ]


EXPECTED: dict[str, tuple[str, Any, str | None, bool]] = {
    # claim id -> (verdict, measured, reason, errored); a contradiction's reason (None here) is
    # the judge's wording, compared between executors rather than spelled out.
    "params-small": ("verified", TRAINABLE_SMALL, "", False),
    "params-wrong": ("contradicted", TRAINABLE_SMALL, None, False),
    "shapes-encoder": ("verified", [2, 16], "", False),
    "ratio-wide": ("verified", TRAINABLE_WIDE / TRAINABLE_SMALL, "", False),
    "holds": ("verified", True, "", False),
    "fails-property": ("contradicted", False, None, False),
    "progress": ("verified", True, "", False),
    "raises": ("unverified", None, "check raised RuntimeError: boom in the check", True),
    "no-data": ("unverified", None, "dataset not available: tiny-blobs", False),
    "note": ("verified", len(NOTE), "", False),
}


def write_contract_project(root: Path, claims: list[dict[str, Any]] | None = None) -> Path:
    """The engine tests' tiny project plus ``tinymodels/contract.py``, with ``claims``."""
    write_project(root, {ARXIV: contract_claims() if claims is None else claims})
    (root / "tinymodels" / "contract.py").write_text(
        textwrap.dedent(CONTRACT_CHECKS), encoding="utf-8"
    )
    return root


def stored_results(root: Path) -> dict[str, Observed]:
    """Every stored result of the project, by claim id (without the arXiv prefix)."""
    config = load_config(root)
    store = ResultStore(config.results)
    observed = {}
    for global_id, result in store.read_all().items():
        artifacts = {}
        for name in result.artifacts:
            path = store.artifact_path(result, name)
            artifacts[name] = path.read_bytes() if path is not None else b""
        observed[global_id.split("/", 1)[1]] = Observed(
            result.verdict, result.measured, result.reason, result.fidelity,
            result.error is not None, artifacts,
        )
    return observed


def run_contract(root: Path, executor: Executor, options: RunOptions | None = None) -> int:
    """Verify the project at ``root`` with ``executor``; return how many checks ran."""
    wiki = load_wiki(load_config(root))
    report = verify(wiki, options or RunOptions(device="cpu", timeout_s=120.0), executor=executor)
    return report.ran
