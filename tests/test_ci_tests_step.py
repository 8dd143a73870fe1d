"""``.ci/run``'s test step: the README's test command, then the training runs it leaves out
(``-m slow``); CI fails when either fails or collects nothing (pytest's exit code 5), and runs the
second even when the first failed, so that one red run shows every failure.

The real ``.ci/run`` runs with stand-ins on ``PATH``: a ``claimcheck`` that passes the lint and
gate steps, and a ``python`` that records its arguments and answers each pytest run with the exit
code the case asks for.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PYTHON = """#!/bin/sh
echo "$*" >> "$LOG"
case " $* " in *" -m slow "*) exit "$SLOW_RC";; esac
exit "$DEFAULT_RC"
"""


def _run_ci(tmp_path: Path, default_rc: int, slow_rc: int) -> tuple[int, list[str]]:
    root, bin_dir = tmp_path / "project", tmp_path / "bin"
    (root / ".ci").mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "run", root / ".ci" / "run")
    (root / ".ci" / "recheck-base").write_text("#!/bin/sh\necho 0123456789abcdef\n")
    bin_dir.mkdir()
    for name, text in (("python", PYTHON), ("claimcheck", "#!/bin/sh\nexit 0\n")):
        (bin_dir / name).write_text(text)
    for script in (*bin_dir.iterdir(), root / ".ci" / "recheck-base"):
        script.chmod(0o755)
    log = tmp_path / "pytest-runs.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "LOG": str(log),
           "DEFAULT_RC": str(default_rc), "SLOW_RC": str(slow_rc),
           "CLAIMCHECK_CI_SKIP": "install ruff mypy", "CLAIMCHECK_CI_POWER": "0"}
    done = subprocess.run(["bash", ".ci/run"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=60)
    return done.returncode, log.read_text().splitlines()


@pytest.mark.parametrize(("default_rc", "slow_rc", "passes"), [
    (0, 0, True), (1, 0, False), (0, 1, False), (5, 0, False), (0, 5, False), (2, 0, False),
])
def test_ci_runs_the_readme_command_then_the_training_runs_and_fails_on_either(
        tmp_path: Path, default_rc: int, slow_rc: int, passes: bool) -> None:
    code, runs = _run_ci(tmp_path, default_rc, slow_rc)
    assert runs == ["-m pytest -q", "-m pytest -q -m slow"]
    assert (code == 0) is passes, code
