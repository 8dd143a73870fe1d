"""``kill -9`` in the middle of result writes (issue 9 §4): every entry is old or new, never torn.

A child process rewrites every result of a store over and over, each generation with a larger
payload so that writes take a while; the parent kills it with SIGKILL at random moments. After
each kill the store must read back completely: every file parses, every entry is one whole
generation (its payload matches its generation number), no entry went backwards, and the write
lock left by the dead writer does not block the next one.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

from claimcheck.store.results import ORPHAN_AGE_S, Result, ResultStore

REPO = Path(__file__).resolve().parents[2]
CLAIMS = 8
KILLS = 12
WRITER = textwrap.dedent('''
    import sys
    from pathlib import Path
    from claimcheck.store.results import ORPHAN_AGE_S, Result, ResultStore
    from claimcheck.verdicts.verdict import Verdict

    store = ResultStore(Path(sys.argv[1]))
    claims, generations, first = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    for generation in range(first, first + generations):
        for index in range(claims):
            payload = f"{generation}:" + "x" * (20_000 + 7 * generation)
            store.write(Result(
                claim=f"2101.00012/c{index}", card="wiki/p.md", line=1, statement="S.",
                cite=["tab. 1"], check="params", tier="static", budget="smoke",
                verdict=Verdict.VERIFIED, reason="", measured=generation,
                expected={"equals": generation}, fidelity="exact", fingerprint="f",
                details=payload,
            ))
            print(generation, index, flush=True)
''')


def _writer(folder: Path, generations: int, first: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder), str(CLAIMS), str(generations), str(first)],
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _whole_generation(result: Result) -> int:
    """The entry's generation, after checking its payload belongs to that same generation."""
    generation = result.measured
    assert isinstance(generation, int)
    assert result.details == f"{generation}:" + "x" * (20_000 + 7 * generation)
    assert result.expected == {"equals": generation}
    return generation


def _read_everything(store: ResultStore) -> dict[str, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a corrupt entry would be skipped with a warning
        results = store.read_all()
    for path in store.results_dir.glob("*.json"):
        Result.from_json(json.loads(path.read_text(encoding="utf-8")))
    return {claim: _whole_generation(result) for claim, result in results.items()}


def test_kill_9_during_writes_leaves_every_entry_old_or_new(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / ".claimcheck")
    baseline = _writer(store.folder, 1, 1)
    assert baseline.wait(timeout=120) == 0, baseline.stderr.read() if baseline.stderr else ""
    seen = _read_everything(store)
    assert len(seen) == CLAIMS and set(seen.values()) == {1}
    chooser = random.Random(9)
    next_generation = 2
    killed_mid_write = 0
    for _ in range(KILLS):
        writer = _writer(store.folder, 1000, next_generation)
        assert writer.stdout is not None
        writer.stdout.readline()  # at least one write went through: the writer is in its loop
        time.sleep(chooser.uniform(0.0, 0.3))
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=60)
        lines = writer.stdout.read().splitlines()
        killed_mid_write += bool(lines)
        now = _read_everything(store)
        assert set(now) == set(seen)
        assert all(now[claim] >= seen[claim] for claim in seen), (seen, now)
        seen = now
        next_generation = max(now.values()) + 1
    assert killed_mid_write >= KILLS // 2
    orphans = list(store.results_dir.glob(".*.tmp"))
    for orphan in orphans:  # the sweep spares young temp files, which may be a live writer's
        old = time.time() - ORPHAN_AGE_S - 1
        os.utime(orphan, (old, old))
    with store.run_lock(wait=False):  # the dead writers' locks are free; old temp files swept
        pass
    assert sorted(p.name for p in store.results_dir.iterdir()) == sorted(
        f"2101.00012__c{index}.json" for index in range(CLAIMS)
    )
