"""The commands the suite starts can be interrupted, however the suite itself was started.

Found by running the README's test command in the background (``nohup ... &``): the three tests
that interrupt ``claimcheck verify`` timed out, because the command inherited SIGINT ignored.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_a_command_the_suite_starts_takes_ctrl_c() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "True"


def test_a_suite_started_with_sigint_ignored_still_starts_interruptible_commands() -> None:
    suite = (
        "import signal, subprocess, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"  # what `nohup ... &` hands the suite
        "from tests.conftest import pytest_configure\n"
        "pytest_configure(None)\n"
        f"sys.exit(subprocess.run([sys.executable, '-c', {PROBE!r}]).returncode)\n"
    )
    done = subprocess.run([sys.executable, "-c", suite], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout.strip() == "True"


def test_without_the_reset_the_command_would_ignore_ctrl_c() -> None:
    suite = (
        "import signal, subprocess, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        f"sys.exit(subprocess.run([sys.executable, '-c', {PROBE!r}]).returncode)\n"
    )
    done = subprocess.run([sys.executable, "-c", suite], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout.strip() == "False"
