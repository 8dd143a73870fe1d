"""Run every training claim of the wiki at the ``full`` budget on a GPU, in resumable pieces.

``full`` is each paper's own protocol (hundreds of epochs on the full datasets), so a claim takes
hours while a borrowed GPU may run one command for about ten minutes. Each invocation of this
script therefore does one **piece** of at most ``--piece-minutes`` of training and exits:

* it trains the first unfinished training claim through its own check, with per-seed
  checkpoints after every epoch (``models/training/resume.py``) under ``--cache``; at the piece's
  deadline it stops between two epochs and exits with 75 ("more to do: run again");
* a claim whose every seed has finished is then stored the ordinary way, by
  ``claimcheck verify --only CLAIM --budget full`` (which finds the finished seeds in the cache
  and trains nothing), so the store gets the same judged, fingerprinted result as any verify;
* a claim whose data (or device) is missing is stored as unverified with that reason, and the
  script moves on;
* when every selected claim has a fresh ``full`` result it prints them and exits with 0.

Run it until it says so, for example on a CUDA machine with the datasets in ``$CLAIMCHECK_DATA``::

    until python benchmarks/train_full.py --device cuda; do :; done

``--only`` takes the same pattern as ``claimcheck verify --only``; ``--list`` prints the plan.
A resumed run reproduces an uninterrupted one (on CPU bit for bit; on CUDA up to cuDNN's own
nondeterminism). The results record the device, whether bf16 autocast was on and the
throughput. ``tests/training/test_train_full_script.py`` runs the whole loop on CPU with a tiny
``full``-shaped claim.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXIT_DONE, EXIT_MORE, EXIT_USAGE = 0, 75, 2


def training_claims(project: Path, only: str | None) -> list[tuple[str, bool]]:
    """(global id, already stored fresh at ``full``) for every selected training claim."""
    from claimcheck.cards.frontmatter import Tier
    from claimcheck.cards.wiki import load_wiki
    from claimcheck.checks.resolve import claim_tier
    from claimcheck.core.config import load_config
    from claimcheck.engine.runner import matches
    from claimcheck.store.results import ResultStore
    from claimcheck.store.status import collect_status

    config = load_config(project)
    wiki = load_wiki(config)
    chosen = []
    for status in collect_status(wiki, ResultStore(config.results)):
        claim = status.ref.claim
        if claim.check is None or not matches(status.ref, only):
            continue
        if claim_tier(claim) is not Tier.TRAIN:
            continue
        result = status.result
        done = (result is not None and not status.stale and result.budget == "full"
                and result.error is None)
        chosen.append((status.ref.global_id, done))
    return chosen


def warm(project: Path, global_id: str, device: str) -> str:
    """Run the claim's check once, in this process, so that its seeds train into the cache.

    Returns ``"trained"``, ``"unavailable: why"``, or raises ``TrainingPaused``.
    """
    from claimcheck.cards.wiki import load_wiki
    from claimcheck.checks.api import CheckContext, DataUnavailable
    from claimcheck.checks.resolve import resolve_check
    from claimcheck.core.config import load_config

    config = load_config(project)
    ref = load_wiki(config).claim(global_id)
    if ref is None or ref.claim.check is None:
        return "unavailable: the claim is gone"
    check = resolve_check(ref.claim.check, config)
    with tempfile.TemporaryDirectory(prefix="claimcheck-full-") as scratch:
        ctx = CheckContext(args=dict(ref.claim.args), device=device, budget="full", seed=0,
                           scratch=Path(scratch), root=config.root, config=config,
                           progress=lambda message, fraction: print(f"  {message}", flush=True))
        try:
            check.function(ctx)
        except DataUnavailable as exc:
            return f"unavailable: {exc}"
    return "trained"


def store(project: Path, global_id: str, device: str) -> int:
    """``claimcheck verify --only CLAIM --budget full`` in a child process; its exit code."""
    command = [sys.executable, "-m", "claimcheck.cli", "verify", str(project / "wiki"),
               "--only", global_id, "--budget", "full", "--device", device, "--force"]
    return subprocess.run(command, cwd=project, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    """One piece of work; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=Path.cwd())
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--only", default=None)
    parser.add_argument("--piece-minutes", type=float, default=8.0)
    parser.add_argument("--cache", type=Path, default=None,
                        help="checkpoint folder (default: PROJECT/.claimcheck/full-cache)")
    parser.add_argument("--list", action="store_true", help="print the plan and exit")
    options = parser.parse_args(argv)
    if options.piece_minutes <= 0:
        parser.error("--piece-minutes must be positive")
    project = options.project.resolve()
    sys.path.insert(0, str(project))
    cache = (options.cache or project / ".claimcheck" / "full-cache").resolve()
    os.environ["CLAIMCHECK_TRAIN_CACHE"] = str(cache)
    os.environ["CLAIMCHECK_TRAIN_DEADLINE"] = str(time.time() + 60.0 * options.piece_minutes)

    from models.training.resume import TrainingPaused, start_piece

    start_piece()
    plan = training_claims(project, options.only)
    for global_id, done in plan:
        print(f"{'done   ' if done else 'pending'} {global_id}")
    if options.list:
        return EXIT_DONE
    for global_id, done in plan:
        if done:
            continue
        print(f"training {global_id} at full on {options.device}", flush=True)
        try:
            outcome = warm(project, global_id, options.device)
        except TrainingPaused as paused:
            print(f"more to do: {paused}; run this script again", flush=True)
            return EXIT_MORE
        print(f"{global_id}: {outcome}; storing it", flush=True)
        store(project, global_id, options.device)
        if time.time() > float(os.environ["CLAIMCHECK_TRAIN_DEADLINE"]):
            print("more to do: the piece's time is spent; run this script again")
            return EXIT_MORE
    pending = [gid for gid, done in training_claims(project, options.only) if not done]
    if pending:
        print(f"not stored at full (see `claimcheck status`): {', '.join(pending)}")
    print("all done")
    return EXIT_DONE


if __name__ == "__main__":
    raise SystemExit(main())
