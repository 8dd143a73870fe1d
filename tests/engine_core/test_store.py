"""Contract suite of the results store: round trip, atomicity, corruption, faults, concurrency."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from claimcheck.core.errors import StoreError
from claimcheck.core.provenance import environment_info, git_state
from claimcheck.store.results import (
    CACHEDIR_SIGNATURE,
    HISTORY_LIMIT,
    ORPHAN_AGE_S,
    Result,
    ResultStore,
    StoreWarning,
    result_stem,
)
from claimcheck.verdicts.verdict import Verdict

REPO = Path(__file__).resolve().parents[2]
ResultFactory = Callable[..., Result]
PythonRunner = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def store(tmp_path: Path) -> ResultStore:
    return ResultStore(tmp_path / ".claimcheck")


def all_files_parse(folder: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("results/*.json"))]


@pytest.mark.parametrize(
    ("global_id", "stem"),
    [
        ("2101.12491/mnist-params", "2101.12491__mnist-params"),
        ("cs/0112017/loss", "cs_0112017__loss"),
        ("math.AG/0101001/a_b", "math.AG_0101001__a_b"),
    ],
)
def test_result_stem(global_id: str, stem: str) -> None:
    assert result_stem(global_id) == stem


@pytest.mark.parametrize("bad", ["no-slash", "2101.12491/", "/x", "2101.12491/../../etc", "a b/c"])
def test_result_stem_rejects_non_ids(bad: str) -> None:
    with pytest.raises(ValueError):
        result_stem(bad)


def test_round_trip_and_self_explaining_folder(
    store: ResultStore, make_result: ResultFactory
) -> None:
    result = make_result(verdict=Verdict.CONTRADICTED, reason="measured 2, expected 1",
                         measured=[1152, 8], error="Traceback ...", data={"name": "mnist-5k"})
    stored = store.write(result)
    assert store.read(result.claim) == stored == result
    assert store.read_all() == {result.claim: result}
    raw = json.loads(store.path_of(result.claim).read_text("utf-8"))
    assert raw["verdict"] == "contradicted" and raw["schema"] == 1
    assert store.path_of(result.claim).name == "2101.12491__mnist-params.json"
    assert (store.folder / "CACHEDIR.TAG").read_text().splitlines()[0] == CACHEDIR_SIGNATURE
    assert "results/" in (store.folder / "README.md").read_text()


def test_missing_store_reads_as_empty(store: ResultStore) -> None:
    assert store.read("2101.12491/x") is None
    assert store.read_all() == {}
    assert not store.folder.exists()


def test_crash_between_temp_write_and_rename_keeps_old_file(
    store: ResultStore, make_result: ResultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = store.write(make_result(measured=1))

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("simulated crash before the rename")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        store.write(make_result(measured=2))
    monkeypatch.undo()
    assert store.read(old.claim) == old
    assert list(store.results_dir.glob("*.tmp")) == []


@pytest.mark.parametrize(
    ("code", "text"),
    [(errno.EROFS, "Read-only file system"), (errno.ENOSPC, "No space left on device"),
     (errno.EACCES, "Permission denied")],
)
def test_unwritable_store_is_one_line_store_error(
    store: ResultStore, make_result: ResultFactory, monkeypatch: pytest.MonkeyPatch,
    code: int, text: str,
) -> None:
    store.write(make_result())

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr("claimcheck.store.results.safe_fs.write_atomic", refuse)
    with pytest.raises(StoreError) as caught:
        store.write(make_result(measured=5))
    message = caught.value.one_line()
    assert message == (
        f".claimcheck/results/2101.12491__mnist-params.json: error: "
        f"cannot write the results store: {text}"
    )
    assert "\n" not in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_folder_is_store_error(tmp_path: Path, make_result: ResultFactory) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="cannot"):
            ResultStore(folder / ".claimcheck").write(make_result())
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "Expecting property name"),
        ("[1, 2]", "not a JSON object"),
        ('{"schema": 99}', "schema 99"),
        ('{"schema": 1, "claim": "2101.12491/mnist-params"}', "missing field"),
        (b"\xff\xfe".decode("latin-1"), "not UTF-8"),
    ],
)
def test_corrupt_entry_is_a_warning_and_a_miss(
    store: ResultStore, make_result: ResultFactory, content: str, why: str
) -> None:
    good = store.write(make_result(claim="2101.12491/other"))
    path = store.path_of("2101.12491/mnist-params")
    path.write_bytes(content.encode("latin-1"))
    with pytest.warns(StoreWarning, match=f"corrupt result file .claimcheck/results/{path.name}"):
        assert store.read("2101.12491/mnist-params") is None
    with pytest.warns(StoreWarning, match=why):
        assert store.read_all() == {good.claim: good}
    # The next write replaces the corrupt entry instead of failing on it.
    with pytest.warns(StoreWarning):
        store.write(make_result())
    assert store.read("2101.12491/mnist-params") is not None


def test_entry_under_the_wrong_name_is_ignored(
    store: ResultStore, make_result: ResultFactory
) -> None:
    store.write(make_result(claim="2101.12491/a"))
    store.path_of("2101.12491/a").rename(store.path_of("2101.12491/b"))
    with pytest.warns(StoreWarning, match="holds claim '2101.12491/a'"):
        assert store.read("2101.12491/b") is None


def test_history_grows_and_is_capped(store: ResultStore, make_result: ResultFactory) -> None:
    for run in range(HISTORY_LIMIT + 3):
        verdict = Verdict.VERIFIED if run % 2 == 0 else Verdict.CONTRADICTED
        stored = store.write(make_result(measured=run, verdict=verdict,
                                         reason="" if run % 2 == 0 else f"measured {run}",
                                         timestamp=f"2026-11-29T23:00:{run:02d}+00:00"))
        assert len(stored.history) == min(run, HISTORY_LIMIT)
    final = store.read("2101.12491/mnist-params")
    assert final is not None and final.measured == HISTORY_LIMIT + 2
    assert [entry["measured"] for entry in final.history] == list(range(2, HISTORY_LIMIT + 2))
    assert final.history[-1] == {
        "verdict": "contradicted", "reason": f"measured {HISTORY_LIMIT + 1}",
        "measured": HISTORY_LIMIT + 1,
        "timestamp": f"2026-11-29T23:00:{HISTORY_LIMIT + 1:02d}+00:00",
        "fingerprint": "f" * 64, "budget": "smoke", "errored": False,
    }


def test_artifacts_move_into_the_store_and_replace_older_ones(
    store: ResultStore, make_result: ResultFactory, tmp_path: Path
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "curve.svg").write_text("<svg/>")
    (scratch / "curve.json").write_text("[]")
    first = store.write(
        make_result(artifacts={"curve_svg": "curve.svg", "curve_json": "curve.json"}), scratch
    )
    generation = Path(first.artifacts["curve_svg"]).parent
    assert generation.parent == Path("artifacts/2101.12491__mnist-params")
    assert first.artifacts == {
        "curve_svg": f"{generation.as_posix()}/curve.svg",
        "curve_json": f"{generation.as_posix()}/curve.json",
    }
    svg = store.artifact_path(first, "curve_svg")
    assert svg is not None and svg.read_text() == "<svg/>"
    assert not (scratch / "curve.svg").exists()

    (scratch / "curve.svg").write_text("<svg>2</svg>")
    with pytest.warns(StoreWarning, match="'escape'"):
        second = store.write(
            make_result(artifacts={"curve_svg": "curve.svg", "escape": "../outside.txt"}), scratch
        )
    assert set(second.artifacts) == {"curve_svg"}
    assert store.artifact_path(second, "curve_json") is None
    assert Path(second.artifacts["curve_svg"]).parent != generation
    assert not (store.folder / generation).exists()
    assert (store.artifact_path(second, "curve_svg") or Path()).read_text() == "<svg>2</svg>"
    assert sorted(p.name for p in (store.artifacts_dir / "2101.12491__mnist-params").iterdir()) \
        == [Path(second.artifacts["curve_svg"]).parent.name]


def test_identical_artifacts_keep_their_generation_folder(
    store: ResultStore, make_result: ResultFactory, tmp_path: Path
) -> None:
    """A re-run that draws the same curve leaves the committed files (and git status) alone."""
    paths = []
    for _ in range(2):
        scratch = tmp_path / f"scratch{len(paths)}"
        scratch.mkdir()
        (scratch / "curve.svg").write_text("<svg/>")
        paths.append(store.write(make_result(artifacts={"curve_svg": "curve.svg"}), scratch)
                     .artifacts["curve_svg"])
    assert paths[0] == paths[1]
    assert (store.folder / paths[1]).read_text() == "<svg/>"


def test_run_lock_refuses_a_second_run(store: ResultStore, run_python: PythonRunner) -> None:
    with store.run_lock():
        child = run_python(
            """
            import sys
            from pathlib import Path
            from claimcheck.store.results import ResultStore
            from claimcheck.core.errors import StoreError
            try:
                with ResultStore(Path(sys.argv[1])).run_lock(wait=False):
                    print("acquired")
            except StoreError as exc:
                print(exc.message)
            """,
            str(store.folder),
        )
    assert child.stdout.strip() == (
        "another claimcheck verify is running on this store (lock .claimcheck/.lock)"
    )
    with store.run_lock(wait=False):
        pass


def test_run_lock_sweeps_old_temp_files(store: ResultStore, make_result: ResultFactory) -> None:
    store.write(make_result())
    old = store.results_dir / ".2101.12491__x.json.abc.tmp"
    young = store.results_dir / ".2101.12491__y.json.def.tmp"
    for temp in (old, young):
        temp.write_text("{half")
    stale_time = time.time() - ORPHAN_AGE_S - 5
    os.utime(old, (stale_time, stale_time))
    with store.run_lock():
        pass
    assert not old.exists() and young.exists()



def test_a_run_fsyncs_its_results_once_when_it_ends(
    store: ResultStore, make_result: ResultFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside a run a write is renamed into place at once (readers see it) and fsynced when the
    run ends; a write outside a run fsyncs its temp file before the rename."""
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{descriptor}"))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    path = store.path_of("2101.12491/mnist-params")
    store.write(make_result(measured=2))
    assert any(name.startswith(str(path.parent / f".{path.name}.")) for name in synced)
    synced.clear()
    with store.run_lock():
        store.write(make_result())
        assert store.read("2101.12491/mnist-params") is not None
        assert synced == []
    assert str(path) in synced
    assert synced.index(str(path)) < synced.index(str(store.results_dir))


WRITER = """
import sys
from pathlib import Path
from claimcheck.store.results import ResultStore, Result
from claimcheck.verdicts.verdict import Verdict

folder, tag, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
store = ResultStore(folder)
for i in range(rounds):
    store.write(Result(
        claim=f"2101.12491/claim-{i % 4}", card="wiki/papers/x.md", line=1, statement="s",
        cite=["tab. 1"], check="params", tier="static", budget="smoke",
        verdict=Verdict.VERIFIED, reason="", measured=[float(i)] * 50, expected={"equals": 1},
        fidelity="exact", fingerprint=tag * 64, details=tag * 100_000,
    ))
    print(i, flush=True)
"""


def test_concurrent_writers_keep_every_file_valid(store: ResultStore) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(store.folder), tag, "30"],
                         cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for tag in "ab"
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = store.read_all()
    assert len(results) == 4
    assert all(len(r.history) == HISTORY_LIMIT for r in results.values())
    assert {entry["fingerprint"][0] for r in results.values() for entry in r.history} == {"a", "b"}


def test_kill_9_mid_write_leaves_every_file_parseable(store: ResultStore) -> None:
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(store.folder), "k", "100000"],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None
    for _ in range(10):  # let it get well into its write loop
        writer.stdout.readline()
    time.sleep(0.05)
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    assert len(all_files_parse(store.folder)) == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(ResultStore(store.folder).read_all()) == 4


def test_environment_and_git_state(tmp_path: Path) -> None:
    """Provenance works in a source tarball (no .git) and in a repository of its own making,
    never assuming that the tests run from a git checkout."""
    env = environment_info()
    assert set(env) == {"python", "torch", "claimcheck", "platform"}
    assert git_state(tmp_path) == {"commit": None, "dirty": None}
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / ".claimcheck").mkdir(parents=True)
    (repo / "card.md").write_text("one\n")
    (repo / ".claimcheck" / "r.json").write_text("{}\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for command in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "init"]):
        subprocess.run([*git, *command], check=True, capture_output=True)
    state = git_state(repo, ignore=repo / ".claimcheck")
    assert isinstance(state["commit"], str) and len(state["commit"]) == 40
    assert state["dirty"] is False
    (repo / ".claimcheck" / "r.json").write_text('{"changed": 1}\n')
    assert git_state(repo, ignore=repo / ".claimcheck")["dirty"] is False
    (repo / "card.md").write_text("two\n")
    assert git_state(repo, ignore=repo / ".claimcheck")["dirty"] is True
