"""Fresh red-team cases, third round: honest power, processes, output safety around power and
the trust boundary of the variant catalogue (docs/power.md, docs/reliability.md).

Every test asserts the SAFE behaviour, so a failing test names a hole. Each case builds a
throw-away project under ``tmp_path`` (:mod:`tests.hardening.hostile_project`) with a checks
module whose behaviour a module global decides, and a catalogue package of wrong variants that
set that global (so a variant can make the check raise, spin, hog memory, die, fork, or return
something that is not a measurement).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.engine.conftest import paper_card
from tests.hardening.hostile_project import (
    ARXIV,
    REPO,
    claim,
    cli,
    hostile_project,
)
from tests.strictjson import loads_strict

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups, /proc")

RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                          "\u2066-\u2069]")

# --- the project ------------------------------------------------------------------------------

CHECKS = '''
STATE = {"value": 1, "mode": ""}
ROOT = Path(__file__).resolve().parents[1]
BAIT = ROOT / "PWNED"


def _sleeper(tag):
    """A grandchild whose command line names the project (found by a /proc scan)."""
    return [sys.executable, "-c", "import time, sys; time.sleep(600)", str(ROOT), tag]


@claim_check
def governed(ctx):
    """Measures STATE["value"]; STATE["mode"] (set by a variant) makes it misbehave."""
    mode = STATE["mode"]
    if mode == "raise":
        raise RuntimeError("raised only under a variant")
    if mode == "evil_raise":
        raise RuntimeError("\\x1b[2J\\x1b]8;;https://evil.invalid\\x07x\\u202eevil\\n"
                           "::error file=x.py,line=1::forged\\r\\x9b31m")
    if mode == "nan":
        return Evidence(measured=float("nan"))
    if mode == "none":
        return None
    if mode == "wrong_type":
        return {"measured": 2}
    if mode == "measured_object":
        return Evidence(measured=object())
    if mode == "spin":
        while True:
            pass
    if mode == "hog":
        hoard = bytearray(6 << 30)
        hoard[-1] = 1
    if mode == "exit":
        os._exit(0)
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "sysexit":
        sys.exit(0)
    if mode == "interrupt":
        raise KeyboardInterrupt
    if mode == "recurse":
        def deeper(n):
            return deeper(n + 1) + 1
        deeper(0)
    if mode == "fork_spin":
        subprocess.Popen(_sleeper("variant-grandchild"), start_new_session=True)
        while True:
            pass
    if mode == "sleep":
        (ROOT / "variant-pid.txt").write_text(f"{os.getpid()}\\n")
        time.sleep(600)
    return Evidence(measured=STATE["value"], details="the state's value")


@claim_check
def setsid_grandchild_then_spin(ctx):
    """Starts a grandchild in a session of its own, then spins past the safety net."""
    subprocess.Popen(_sleeper("setsid"), start_new_session=True)
    while True:
        pass


@claim_check
def double_fork_then_spin(ctx):
    """Daemonises a grandchild (fork, setsid, fork), then spins past the safety net."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            argv = _sleeper("daemon")
            os.execv(argv[0], argv)
        os._exit(0)
    os.waitpid(pid, 0)
    while True:
        pass


@claim_check
def grandchild_then_sleep(ctx):
    """Starts a grandchild in a session of its own, notes the pids, then sleeps."""
    child = subprocess.Popen(_sleeper("driver-death"), start_new_session=True)
    (ROOT / "pids.txt").write_text(f"{os.getpid()} {child.pid}\\n")
    time.sleep(600)
    return Evidence(measured=True)


@claim_check
def bait_check():
    """Marked, but a check: a catalogue entry naming it must never call it."""
    BAIT.write_text("bait_check ran", encoding="utf-8")
    return Evidence(measured=True)


def bait():
    """Not marked: a card must never reach it."""
    BAIT.write_text("bait ran", encoding="utf-8")
    return Evidence(measured=True)


try:
    from claimcheck import wrong_variant as _wrong_variant
except ImportError:
    def _wrong_variant(function):
        return function


@_wrong_variant
def marked_outside_the_catalogue():
    """A wrong variant outside the catalogue package: never run."""
    BAIT.write_text("marked_outside_the_catalogue ran", encoding="utf-8")
'''

VARIANTS_INIT = '"""The red team\'s catalogue."""\n'

MODES = ["raise", "nan", "none", "wrong_type", "measured_object", "spin", "hog", "exit", "kill",
         "sysexit", "interrupt", "recurse", "fork_spin"]
"""Modes in which the check never completes with a number (under a variant that also moves the
value, so a flipped verdict would be claimed if anything read the value)."""


def _variant(name: str, mode: str, doc: str | None = None) -> str:
    doc = doc or f"Sets the value to 2 and the mode to {mode}."
    return f'''

@wrong_variant
def {name}():
    """{doc}"""
    _count("{name}")
    hostile.STATE["value"] = 2
    hostile.STATE["mode"] = "{mode}"
'''


VARIANTS_CORE = '''\
"""Wrong variants of the red-team project."""
from pathlib import Path

from claimcheck import wrong_variant

import tinymodels.hostile as hostile

COUNTER = Path(__file__).resolve().parents[2] / "variant-calls.txt"
BAIT = Path(__file__).resolve().parents[2] / "PWNED"


def _count(name):
    with COUNTER.open("a", encoding="utf-8") as handle:
        handle.write(name + "\\n")


def unmarked_bait():
    """In the catalogue, but not marked."""
    BAIT.write_text("unmarked_bait ran", encoding="utf-8")
''' + _variant("flip", "") + "".join(_variant(f"under_{m}", m) for m in MODES) + _variant(
    "under_sleep", "sleep") + _variant(
    "evil_doc", "evil_raise",
    doc="\\x1b[31mred\\x1b[0m \\u202eevil\\u2066 \\x1b]8;;https://evil.invalid\\x07l\\x1b]8;;"
        "\\x07\\r::error file=a.py,line=1::forged doc\\x85::warning::x")

VARIANTS_MORE = '''\
"""A module of the catalogue that re-exports a variant of another."""
from tinymodels.variants.core import flip  # noqa: F401
'''

VARIANTS_PRIVATE = '''\
"""A private module of the catalogue: not part of it."""
from pathlib import Path

from claimcheck import wrong_variant


@wrong_variant
def hidden():
    """In a private module."""
    (Path(__file__).resolve().parents[2] / "PWNED").write_text("hidden ran", encoding="utf-8")
'''


def project(tmp_path: Path, claims: list[dict[str, Any]]) -> Path:
    root = hostile_project(tmp_path, claims, CHECKS)
    files = {"tinymodels/variants/__init__.py": VARIANTS_INIT,
             "tinymodels/variants/core.py": VARIANTS_CORE,
             "tinymodels/variants/more.py": VARIANTS_MORE,
             "tinymodels/variants/_private.py": VARIANTS_PRIVATE}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8") + 'variants = ["tinymodels.variants"]\n',
                         encoding="utf-8")
    return root


def governed(claim_id: str, catches: list[str], **extra: Any) -> dict[str, Any]:
    return claim(claim_id, "tinymodels.hostile:governed", {"equals": 1}, catches=catches,
                 basis="wiki", **extra)


def card_path(root: Path) -> Path:
    return root / "wiki" / "papers" / "paper-0.md"


def verify(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    done = cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1", *extra)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


def power_verify(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return verify(root, "--power", "--power-scope", "listed", *extra)


def all_rows(text: str) -> list[dict[str, Any]]:
    return list(loads_strict(text))


def status_rows(root: Path) -> dict[str, dict[str, Any]]:
    done = cli(root, "status", "wiki", "--format", "json")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    return {row["claim"].split("/", 1)[1]: row for row in all_rows(done.stdout)}


def states(power: dict[str, Any] | None) -> dict[str, str]:
    return {v["name"]: v["state"] for v in (power or {}).get("variants", [])}


def counted(root: Path) -> list[str]:
    path = root / "variant-calls.txt"
    return path.read_text("utf-8").splitlines() if path.exists() else []


def power_files(root: Path) -> list[Path]:
    folder = root / ".claimcheck" / "power"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


# --- processes --------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _wait_for(predicate: Callable[[], bool], limit_s: float) -> bool:
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


def processes_of(root: Path) -> list[tuple[int, str]]:
    """Living processes whose command line names ``root`` or whose environment carries the
    project's HOME (every process the CLI helper starts, and all their descendants)."""
    home = f"HOME={root.parent}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid() or not _alive(int(entry)):
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
        except OSError:
            env = []
        if str(root).encode() in cmd or home in env:
            found.append((int(entry), cmd.replace(b"\0", b" ").decode(errors="replace")[:200]))
    return found


def kill_leftovers(root: Path) -> None:
    for pid, _ in processes_of(root):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def child_env(root: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(root.parent),
            "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}


def start_driver(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "claimcheck.cli", "verify", "wiki",
                             "--device", "cpu", *args], cwd=root, env=child_env(root),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


# =============================================================================================
# 1. Honest power: caught only when the check completed under the variant and its verdict
#    flipped
# =============================================================================================

UNDECIDED = [f"under-{m.replace('_', '-')}" for m in MODES]


@pytest.fixture(scope="module")
def undecided(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One claim listing flip (the control) and every variant under which the check never
    completes with a number; a 0.25 GB card limit and a 2 s safety net; powered twice."""
    root = project(tmp_path_factory.mktemp("undecided"),
                   [governed("p", ["flip", *UNDECIDED], resources={"memory_gb": 0.25})])
    first = power_verify(root, "--timeout", "2")
    after_first = counted(root)
    second = power_verify(root, "--timeout", "2")
    try:
        return {"root": root, "first": first, "second": second, "after_first": after_first,
                "after_second": counted(root), "status": status_rows(root)["p"]}
    finally:
        kill_leftovers(root)


def test_the_control_variant_is_caught(undecided: dict[str, Any]) -> None:
    row = undecided["status"]
    assert row["verdict"] == "verified", row
    assert states(row["power"]).get("flip") == "caught", row["power"]


@pytest.mark.parametrize("name", UNDECIDED)
def test_a_variant_under_which_the_check_never_completes_is_never_caught(
    undecided: dict[str, Any], name: str
) -> None:
    power = undecided["status"]["power"]
    state = states(power).get(name)
    assert state is not None, power
    assert state != "caught", (name, [v for v in power["variants"] if v["name"] == name])
    assert name not in power.get("summary", "").split("also catches")[0].split("misses")[0] \
        or state == "not decided", power["summary"]


def test_only_the_control_counts_as_caught(undecided: dict[str, Any]) -> None:
    power = undecided["status"]["power"]
    assert power["caught"] == 1, power["summary"]
    assert power["listed"] == 1 + len(UNDECIDED), power["summary"]


def test_undecided_power_runs_are_retried_and_the_decided_one_is_not(
    undecided: dict[str, Any]
) -> None:
    first, second = undecided["after_first"], undecided["after_second"][
        len(undecided["after_first"]):]
    assert first.count("flip") == 1 and "flip" not in second, (first, second)
    ran_again = {name.replace("_", "-") for name in second}
    # under-nan is left out: a NaN is a (non-finite) measurement, judged unverified and kept
    # current, exactly as an ordinary verify keeps a check that returns NaN (never caught)
    not_retried = [n for n in UNDECIDED if n.replace("-", "_") in first and n not in ran_again
                   and n != "under-nan"]
    assert not not_retried, f"stored as current although undecided: {not_retried}"


def test_a_variant_grandchild_left_by_a_timed_out_power_run_is_killed(
    undecided: dict[str, Any]
) -> None:
    left = [p for p in processes_of(undecided["root"]) if "variant-grandchild" in p[1]]
    assert not left, left


@pytest.mark.parametrize("resources", [{"memory_gb": 0.5}, {"memory_gb": 1, "cpus": 2}])
def test_resources_are_part_of_the_fingerprint(tmp_path: Path,
                                               resources: dict[str, float]) -> None:
    root = project(tmp_path, [governed("p", ["flip"], resources={"memory_gb": 1})])
    assert power_verify(root).returncode == 0
    assert states(status_rows(root)["p"]["power"]).get("flip") == "caught"
    card_path(root).write_text(paper_card(ARXIV, "paper-0", [
        governed("p", ["flip"], resources=resources)]), encoding="utf-8")
    row = status_rows(root)["p"]
    assert row.get("stale"), row
    assert states(row["power"]).get("flip") != "caught", row["power"]
    assert row["power"].get("caught", 0) == 0, row["power"]


@pytest.mark.parametrize("spelling", ["FLIP", " flip", "flip ", "Flip", "flip\u200b",
                                      "tinymodels.variants.core:flip",
                                      "tinymodels.variants.more:flip",
                                      "tinymodels.variants:flip",
                                      "tinymodels.variants.core.flip",
                                      "tinymodels/variants/core.py:flip",
                                      "tinymodels.variants.core:flip "])
def test_a_variant_under_another_spelling_never_counts_twice(tmp_path: Path,
                                                             spelling: str) -> None:
    root = project(tmp_path, [governed("p", ["flip", spelling])])
    power_verify(root)
    power = status_rows(root)["p"]["power"] or {}
    caught_names = [v["name"] for v in power.get("variants", []) if v["state"] == "caught"]
    assert power.get("caught", 0) <= 1 and len(caught_names) <= 1, power
    assert "catches 2 of 2" not in power.get("summary", ""), power
    assert counted(root).count("flip") <= 1, counted(root)


def test_catches_naming_variants_that_do_not_exist(tmp_path: Path) -> None:
    root = project(tmp_path, [governed("p", ["flip", "flipp", "no-such-variant",
                                             "tinymodels.variants.core:nothing"])])
    lint = cli(root, "lint", "wiki")
    assert lint.returncode != 0, lint.stdout
    assert "unknown wrong variant 'flipp'" in lint.stdout + lint.stderr, lint.stdout
    done = power_verify(root)
    assert "Traceback" not in done.stdout
    power = status_rows(root)["p"]["power"]
    got = states(power)
    assert got.get("flip") == "caught", power
    for name in ("flipp", "no-such-variant"):
        assert got.get(name) == "unknown", power
    assert power["caught"] == 1 and "catches 1 of" in power["summary"], power
    assert "catches 4 of 4" not in power["summary"] and "catches 2 of 2" not in power["summary"]


def _report_rows(root: Path, claim_id: str) -> list[str]:
    report = cli(root, "report", "--format", "markdown")
    assert "Traceback" not in report.stderr, report.stderr
    return [line for line in report.stdout.splitlines() if line.startswith(f"| `{claim_id}`")]


def test_a_duplicate_claim_id_in_one_card_leaves_no_verdict_and_no_power(tmp_path: Path) -> None:
    root = project(tmp_path, [governed("p", ["flip"])])
    assert power_verify(root).returncode == 0
    card = card_path(root)
    first = claim("p", "tinymodels.hostile:governed", {"equals": 1}, catches=["flip"],
                  basis="wiki")
    card.write_text(paper_card(ARXIV, "paper-0", [first, dict(first, statement="Twin.")]),
                    encoding="utf-8")
    for command in (["status", "wiki", "--format", "json"],
                    ["verify", "wiki", "--device", "cpu", "--format", "json", "--power",
                     "--power-scope", "listed", "--timeout", "2"]):
        done = cli(root, *command)
        twins = [r for r in all_rows(done.stdout) if r["claim"].endswith("/p")]
        assert twins, done.stdout[-1500:]
        for row in twins:
            assert row["verdict"] != "verified" and row["measured"] is None, (command, row)
            power = row.get("power") or {}
            assert not power.get("caught") and "catches 1" not in str(power.get("summary")), \
                (command, power)
    text = cli(root, "status", "wiki").stdout
    assert "catches 1 of 1" not in text, text
    for line in _report_rows(root, "p"):
        assert "catches" not in line and "verified" not in line.replace("unverified", ""), line


def test_a_claim_refused_by_the_trust_boundary_shows_no_power(tmp_path: Path) -> None:
    root = project(tmp_path, [governed("p", ["flip"])])
    assert power_verify(root).returncode == 0
    card = card_path(root)
    card.write_text(card.read_text("utf-8").replace("tinymodels.hostile:governed",
                                                    "tinymodels.hostile:bait"), encoding="utf-8")
    row = status_rows(root)["p"]
    assert row["verdict"] != "verified", row
    assert "catches 1" not in str((row.get("power") or {}).get("summary")), row["power"]
    done = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json", "--power",
               "--power-scope", "listed", "--timeout", "2")
    row = next(r for r in all_rows(done.stdout) if r["claim"].endswith("/p"))
    assert row["verdict"] != "verified" and not (row.get("power") or {}).get("caught"), row
    assert not (root / "PWNED").exists()
    for line in _report_rows(root, "p"):
        assert "catches" not in line, line


# =============================================================================================
# 2. Processes
# =============================================================================================


def test_kill_9_of_the_driver_during_a_power_run_leaves_no_process(tmp_path: Path) -> None:
    root = project(tmp_path, [governed("p", ["under-sleep"])])
    assert verify(root).returncode == 0  # the ordinary verdict first, so power runs at once
    driver = start_driver(root, "--power", "--power-scope", "listed", "--jobs", "1")
    _kill_9_once_written(driver, root / "variant-pid.txt", root)


def test_kill_9_of_the_driver_kills_a_grandchild_in_its_own_session(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("g", "tinymodels.hostile:grandchild_then_sleep",
                                    {"holds": True}, basis="wiki")])
    driver = start_driver(root, "--jobs", "1")
    _kill_9_once_written(driver, root / "pids.txt", root)


@pytest.mark.parametrize("check", ["setsid_grandchild_then_spin", "double_fork_then_spin"])
def test_grandchildren_of_a_timed_out_check_are_cleaned_up(tmp_path: Path, check: str) -> None:
    root = project(tmp_path, [claim("f", f"tinymodels.hostile:{check}", {"holds": True},
                                    basis="wiki")])
    try:
        done = verify(root, "--timeout", "1", "--format", "json")
        row = next(r for r in all_rows(done.stdout) if r["claim"].endswith("/f"))
        assert row["verdict"] != "verified", row
        assert _wait_for(lambda: not processes_of(root), 1.5), processes_of(root)
    finally:
        kill_leftovers(root)


@pytest.mark.parametrize("kind", ["Params", "tra1n", "params "])
def test_unknown_check_kind_is_refused_before_any_worker_starts(tmp_path: Path,
                                                                kind: str) -> None:
    root = project(tmp_path, [claim("k", kind, {"equals": 1},
                                    args={"factory": "tinymodels.nets:tiny"}, basis="wiki")])
    driver = start_driver(root, "--jobs", "2")
    spawned: dict[int, str] = {}
    while driver.poll() is None:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                if int(stat[stat.rfind(")") + 2:].split()[1]) == driver.pid:
                    try:
                        cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                    except OSError:
                        cmd = b""
                    if cmd or int(entry) not in spawned:
                        comm = stat[stat.find("(") + 1:stat.rfind(")")]
                        spawned[int(entry)] = comm + ": " + cmd.replace(b"\0", b" ").decode(
                            errors="replace")
        time.sleep(0.005)
    out, err = (s.decode() for s in driver.communicate())
    text = out + err
    assert driver.returncode not in (0, None), text
    # provenance runs `git` and `uname -p` (platform.processor()): those are no workers
    workers = {pid: cmd for pid, cmd in spawned.items()
               if not cmd.startswith(("git:", "uname:"))}
    assert not workers, f"worker processes started: {workers}\n{text}"
    assert "Traceback" not in text, text
    located = [line for line in text.splitlines() if re.search(r"paper-0\.md:\d+", line)]
    assert located, text


def test_sigint_during_a_power_run_stops_cleanly_with_the_store_intact(tmp_path: Path) -> None:
    root = project(tmp_path, [governed("p", ["flip", "under-sleep"])])
    assert verify(root).returncode == 0
    result = root / ".claimcheck" / "results" / f"{ARXIV}__p.json"
    before = result.read_bytes()
    driver = start_driver(root, "--power", "--power-scope", "listed", "--jobs", "1")
    marker = root / "variant-pid.txt"
    try:
        assert _wait_for(lambda: marker.exists() and marker.read_text().endswith("\n"), 60)
        os.killpg(driver.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
        try:
            driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail("verify did not stop within 10 s of Ctrl-C")
        err = driver.stderr.read().decode()
        assert driver.returncode == 130, (driver.returncode, err[-2000:])
        assert "Traceback" not in err, err[-2000:]
        assert result.read_bytes() == before
        for path in power_files(root):
            loads_strict(path.read_text("utf-8"))
        assert _wait_for(lambda: not processes_of(root), 2.5), processes_of(root)
        row = status_rows(root)["p"]
        assert row["verdict"] == "verified", row
        assert states(row["power"]).get("under-sleep") != "caught", row["power"]
        again = cli(root, "verify", "wiki", "--device", "cpu", "--format", "json")
        assert "another claimcheck verify is running" not in again.stderr, again.stderr
    finally:
        if driver.poll() is None:
            driver.kill()
        kill_leftovers(root)


# =============================================================================================
# 3. Output safety around power
# =============================================================================================

EVIL_NAME = "flip\x1b[2J\r\n::error file=a.py,line=1::forged name\x85"


def _assert_clean(label: str, text: str) -> None:
    bad = RAW_CONTROLS.search(text.replace("\n", "").replace("\t", ""))
    assert bad is None, \
        f"{label}: raw {bad.group()!r} in {text[max(0, bad.start() - 80):bad.end() + 80]!r}"
    for line in text.splitlines():
        assert "forged" not in line or not line.lstrip().startswith("::error"), \
            f"{label}: forged command line {line!r}"


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A claim that lists a variant with a hostile docstring (its check then raises hostile
    text) and a hostile unknown name, after a power run."""
    root = project(tmp_path_factory.mktemp("evil"),
                   [governed("p", ["flip", "evil-doc"])])
    power_verify(root)
    return root


@pytest.mark.parametrize("command", [
    ("verify", "wiki", "--device", "cpu", "--power", "--power-scope", "listed"),
    ("verify", "wiki", "--device", "cpu", "--power", "--power-scope", "listed", "--verbose"),
    ("verify", "wiki", "--device", "cpu", "--format", "github"),
    ("verify", "wiki", "--device", "cpu", "--format", "junit"),
    ("status", "wiki"),
    ("status", "wiki", "--verbose"),
    ("status", "wiki", "--format", "github"),
    ("lint", "wiki"),
    ("lint", "wiki", "--strict"),
    ("report", "--format", "markdown"),
    ("report", "--format", "html"),
], ids=lambda c: "-".join(a.strip("-") for a in c[:1] + c[3:] if a not in ("wiki", "cpu")))
def test_hostile_variant_text_is_shown_escaped_on_one_line(evil: Path,
                                                          command: tuple[str, ...]) -> None:
    done = cli(evil, *command)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    if (command[0] in ("status", "lint") or "--power" in command) and "github" not in command:
        assert "evil-doc" in done.stdout + done.stderr, "the hostile variant is not shown at all"
    _assert_clean(" ".join(command) + " (stdout)", done.stdout)
    _assert_clean(" ".join(command) + " (stderr)", done.stderr)


def test_hostile_variant_text_stays_data_in_json(evil: Path) -> None:
    done = cli(evil, "status", "wiki", "--format", "json")
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout, "raw control in JSON"
    power = all_rows(done.stdout)[0]["power"]
    described = [v for v in power["variants"] if v["name"] == "evil-doc"]
    assert described and described[0]["state"] != "caught", power


# =============================================================================================
# 4. Trust boundary of the catalogue
# =============================================================================================


@pytest.mark.parametrize("name", [
    "os:system", "subprocess:run", "builtins:eval", "importlib:import_module",
    "tinymodels.hostile:os.system", "tinymodels.variants.core:hostile.bait",
    "tinymodels.hostile:bait", "tinymodels.hostile:bait_check",
    "tinymodels.hostile:marked_outside_the_catalogue", "marked-outside-the-catalogue",
    "tinymodels.variants.core:unmarked_bait", "unmarked-bait",
    "tinymodels.variants._private:hidden", "hidden", "tinymodels.variants.core:_count",
    "../tinymodels/hostile:bait",
])
def test_a_catches_entry_outside_the_catalogue_never_runs(tmp_path: Path, name: str) -> None:
    root = project(tmp_path, [governed("p", ["flip", name])])
    lint = cli(root, "lint", "wiki")
    assert lint.returncode != 0, f"lint accepted {name!r}: {lint.stdout[-800:]}"
    power_verify(root)
    assert not (root / "PWNED").exists(), (root / "PWNED").read_text()
    power = status_rows(root)["p"]["power"]
    assert power["caught"] <= 1 and "catches 2 of 2" not in power["summary"], power
    entry = [v for v in power["variants"] if v["state"] == "caught" and v["name"] != "flip"]
    assert not entry, entry


def test_a_marked_variant_used_as_a_check_never_runs(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("v", "tinymodels.variants.core:flip", {"holds": True},
                                    basis="wiki")])
    done = verify(root, "--format", "json")
    row = next(r for r in all_rows(done.stdout) if r["claim"].endswith("/v"))
    assert row["verdict"] != "verified", row
    assert counted(root) == [], "the variant ran as a check"


@pytest.mark.parametrize("tag", ["!!python/name:os.system", "!!python/object/apply:os.system",
                                 "!<tag:yaml.org,2002:python/name:builtins.eval>"])
def test_a_yaml_tag_in_catches_is_refused_and_nothing_runs(tmp_path: Path, tag: str) -> None:
    root = project(tmp_path, [governed("p", ["flip", "PLACEHOLDER"])])
    card = card_path(root)
    text = card.read_text("utf-8")
    payload = f"{tag} ['touch {root / 'PWNED'}']" if "apply" in tag else f"{tag} ''"
    card.write_text(text.replace("PLACEHOLDER", payload), encoding="utf-8")
    lint = cli(root, "lint", "wiki")
    assert lint.returncode != 0 and "tag" in (lint.stdout + lint.stderr).lower(), lint.stdout
    done = power_verify(root)
    assert done.returncode != 0
    assert not (root / "PWNED").exists()
    assert counted(root) == [], counted(root)


@pytest.mark.parametrize("name", [EVIL_NAME, "flip\u202e", "flip\u2028::error::forged",
                                  "flip\x9b2J"], ids=["ansi-newline", "bidi", "ls", "c1"])
def test_a_hostile_name_in_catches_is_a_located_card_error_shown_escaped(
    tmp_path: Path, name: str
) -> None:
    root = project(tmp_path, [governed("p", ["flip", name])])
    for command in (("lint", "wiki"), ("verify", "wiki", "--device", "cpu", "--power",
                                          "--power-scope", "listed", "--timeout", "2")):
        done = cli(root, *command)
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        _assert_clean(" ".join(command), done.stdout + done.stderr)
        if command[0] == "lint" or name != "flip\u2028::error::forged":
            # U+2028 is no control character a card refuses (docs/reliability.md): the name is
            # an unknown variant, which lint reports; verify runs the rest
            assert done.returncode != 0, (command, done.stdout[-800:])
            assert re.search(r"paper-0\.md:\d+:\d+: error", done.stdout + done.stderr), \
                done.stdout + done.stderr
    if name != "flip\u2028::error::forged":
        assert counted(root) == [], "a variant ran although the card is refused"


SMALL_CATALOGUE = '''\
"""A small catalogue: two variants the check reaches."""
from pathlib import Path

from claimcheck import wrong_variant

import tinymodels.hostile as hostile

COUNTER = Path(__file__).resolve().parents[2] / "variant-calls.txt"


@wrong_variant
def flip():
    """Measures 2."""
    with COUNTER.open("a", encoding="utf-8") as handle:
        handle.write("flip\\n")
    hostile.STATE["value"] = 2


@wrong_variant
def other():
    """Measures 3 (not listed)."""
    with COUNTER.open("a", encoding="utf-8") as handle:
        handle.write("other\\n")
    hostile.STATE["value"] = 3
'''


def test_force_keeps_the_listed_power_scope(tmp_path: Path) -> None:
    """docs/power.md: "--power --power-scope listed limits a run to the variants each claim
    lists"; a forced re-run is no re-check of a changed power file."""
    root = project(tmp_path, [governed("p", ["flip"])])
    (root / "tinymodels" / "variants" / "core.py").write_text(SMALL_CATALOGUE, "utf-8")
    (root / "tinymodels" / "variants" / "more.py").write_text("", "utf-8")
    assert power_verify(root).returncode == 0
    assert counted(root) == ["flip"], counted(root)
    (root / "variant-calls.txt").unlink()
    assert power_verify(root, "--force").returncode == 0
    assert "other" not in counted(root), f"--force ran unlisted variants: {counted(root)}"


def _kill_9_once_written(driver: subprocess.Popen[bytes], marker: Path, root: Path) -> None:
    """Once the check has written its whole ``marker`` line, ``kill -9`` the driver; then no
    process of the project may be left within 2.5 s."""
    try:
        assert _wait_for(lambda: marker.exists() and marker.read_text().endswith("\n"), 60), \
            driver.stderr.read1().decode() if driver.poll() is not None else "no marker"
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    try:
        assert _wait_for(lambda: not processes_of(root), 2.5), processes_of(root)
    finally:
        kill_leftovers(root)
