"""The commands the suite starts can be interrupted, however the suite itself was started.

Found by running the README's test command in the background (``nohup ... &``): the three tests
that interrupt ``claimcheck verify`` timed out, because the command inherited SIGINT ignored.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROBE = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_a_command_the_suite_starts_takes_ctrl_c() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "True"


RESET = "from tests.conftest import pytest_configure\npytest_configure(None)\n"


@pytest.mark.parametrize(("reset", "interruptible"), [(RESET, "True"), ("", "False")],
                         ids=["with-the-suite-reset", "without-it"])
def test_a_suite_started_with_sigint_ignored_starts_interruptible_commands_only_with_the_reset(
        reset: str, interruptible: str) -> None:
    suite = (
        "import signal, subprocess, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"  # what `nohup ... &` hands the suite
        f"{reset}sys.exit(subprocess.run([sys.executable, '-c', {PROBE!r}]).returncode)\n"
    )
    done = subprocess.run([sys.executable, "-c", suite], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout.strip() == interruptible
