"""Fuzz the card loader (and lint on what loads) for N minutes, with Hypothesis as the engine.

Usage::

    python tests/fuzz/fuzz_loader.py --minutes 10 [--seed 1] [--crashes DIR]

Inputs come from three sources, mixed by Hypothesis: cards built from the grammar
(``tests/hardening/card_inputs.py``), random bytes, and the seed corpus under
``tests/fuzz/corpus/`` mutated byte-wise (insert grammar fragments, delete, duplicate, splice
two corpus files, flip bytes). Every input must satisfy ``check_card_bytes``: it loads and lints,
or it fails with a located ``CardError``. Anything else, or an input that takes longer than
``--hang-seconds``, is a crash: the shrunk input and its traceback are written to ``--crashes``
and the run goes on with a fresh seed. The last line printed is a JSON summary; the exit code is 1
when there was any crash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.hardening.card_inputs import (  # noqa: E402
    FRAGMENTS,
    any_card_bytes,
    check_card_bytes,
)

CORPUS = Path(__file__).resolve().parent / "corpus"
BATCH = 300


class Hang(Exception):
    """An input ran past the per-input time limit."""


@dataclass
class Tally:
    """What the run saw."""

    executions: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    crashes: dict[str, str] = field(default_factory=dict)  # signature -> crash file
    last_failure: tuple[bytes, str, str] | None = None  # input, signature, traceback


def load_corpus(folder: Path) -> list[bytes]:
    """Every file of the seed corpus, sorted by name."""
    return [path.read_bytes() for path in sorted(folder.iterdir()) if path.is_file()]


@st.composite
def mutated(draw: st.DrawFn, corpus: list[bytes]) -> bytes:
    """A corpus file with up to eight byte-level edits."""
    data = bytearray(draw(st.sampled_from(corpus)))
    fragments = [fragment.encode() for fragment in FRAGMENTS]
    for _ in range(draw(st.integers(0, 8))):
        where = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "delete", "duplicate", "splice", "flip"]))
        if action == "insert":
            data[where:where] = draw(st.sampled_from(fragments)) * draw(st.integers(1, 64))
        elif action == "delete":
            del data[where : where + draw(st.integers(1, 64))]
        elif action == "duplicate":
            chunk = data[where : where + draw(st.integers(1, 256))]
            data[where:where] = chunk * draw(st.integers(1, 16))
        elif action == "splice":
            other = draw(st.sampled_from(corpus))
            start = draw(st.integers(0, len(other)))
            data[where:where] = other[start : start + draw(st.integers(1, 512))]
        elif data:
            index = min(where, len(data) - 1)
            data[index] ^= 1 << draw(st.integers(0, 7))
    return bytes(data)


def _signature(exc: BaseException) -> str:
    """Exception type and the innermost frame inside claimcheck (or the last one)."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [frame for frame in frames if "claimcheck" in frame.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    return f"{type(exc).__name__} at {where}"


def run(minutes: float, first_seed: int, crashes: Path, hang_seconds: float) -> Tally:
    """Fuzz until ``minutes`` have passed; return the tally."""
    tally = Tally()
    corpus = load_corpus(CORPUS)
    workdir = Path(tempfile.mkdtemp(prefix="claimcheck-fuzz-"))
    source = st.one_of(any_card_bytes, mutated(corpus), mutated(corpus))

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"input still running after {hang_seconds} s")

    signal.signal(signal.SIGALRM, expire)

    @settings(max_examples=BATCH, deadline=None, database=None, print_blob=False,
              suppress_health_check=list(HealthCheck))
    @given(source)
    def one_input(data: bytes) -> None:
        tally.executions += 1
        signal.setitimer(signal.ITIMER_REAL, hang_seconds)
        try:
            loaded = check_card_bytes(data, workdir)
        except Exception as exc:
            tally.last_failure = (data, _signature(exc), traceback.format_exc())
            raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        tally.outcomes["loaded" if loaded is not None else "card error"] += 1

    deadline = time.monotonic() + minutes * 60
    batch_seed = first_seed
    while time.monotonic() < deadline:
        try:
            hypothesis_seed(batch_seed)(one_input)()
        except Exception:
            _record(tally, crashes)
        batch_seed += 1
    return tally


def _record(tally: Tally, crashes: Path) -> None:
    if tally.last_failure is None:
        return
    data, signature, trace = tally.last_failure
    tally.last_failure = None
    if signature in tally.crashes:
        return
    crashes.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(data).hexdigest()[:16]
    (crashes / f"{name}.md").write_bytes(data)
    (crashes / f"{name}.txt").write_text(f"{signature}\n\n{trace}", encoding="utf-8")
    tally.crashes[signature] = str(crashes / f"{name}.md")
    print(f"crash: {signature} -> {crashes / name}.md", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Parse the options, fuzz, print a JSON summary; exit 1 on any crash."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to fuzz")
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(2**31))
    parser.add_argument("--hang-seconds", type=float, default=10.0,
                        help="an input running longer than this is a crash")
    parser.add_argument("--crashes", type=Path,
                        default=Path(tempfile.gettempdir()) / "claimcheck-fuzz-crashes",
                        help="where crashing inputs and their tracebacks go")
    ns = parser.parse_args(argv)
    started = time.monotonic()
    tally = run(ns.minutes, ns.seed, ns.crashes, ns.hang_seconds)
    elapsed = time.monotonic() - started
    print(json.dumps({
        "minutes": round(elapsed / 60, 2), "seed": ns.seed, "executions": tally.executions,
        "executions_per_second": round(tally.executions / elapsed, 1),
        "outcomes": dict(tally.outcomes), "corpus_files": len(load_corpus(CORPUS)),
        "crashes": tally.crashes,
    }, sort_keys=True))
    return 1 if tally.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
