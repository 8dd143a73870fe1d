"""``claimcheck ARGS`` run inside the test's own process, answered as ``subprocess.run`` would.

A child ``python -m claimcheck.cli`` costs its forkserver a fresh import of torch (about four
CPU-seconds), and a test that drives verify three times pays it three times. Here the command
runs in the pytest worker, whose forkserver has torch imported once, so a verify of a tiny
project costs a fraction of a second. What the child process gave for free is put back:

* the working folder and the environment are the ones asked for, and restored afterwards
  (workers receive the driver's environment: :func:`claimcheck.engine.worker.serve`);
* ``sys.path``, the signal handlers and the modules are restored: a module first imported during
  the command from outside this repository and the installed packages (the test project's
  ``tinymodels``, a hostile check) is forgotten, so the next test's ``tinymodels`` is its own;
* an exception that escapes ``main`` is written to stderr as Python writes it, with exit code 1.

Tests about the process itself (a kill, a signal, a driver's death, a timeout, what a child's
import of torch does) keep a real child process.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path

from claimcheck.cli.main import main

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run_claimcheck(root: Path, *args: str,
                   env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``claimcheck ARGS`` with ``root`` as working folder and ``env`` (default: this
    process's) as the whole environment; stdout, stderr and the exit code as a child's."""
    out, err = io.StringIO(), io.StringIO()
    with _restored_process_state(root), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        try:
            code = main(list(args))
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        except Exception:  # what an uncaught exception does to a child process
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(["claimcheck", *args], code, out.getvalue(),
                                       err.getvalue())


@contextlib.contextmanager
def _restored_process_state(root: Path) -> Iterator[None]:
    folder, environ, path = os.getcwd(), dict(os.environ), list(sys.path)
    handlers = {number: signal.getsignal(number) for number in _SIGNALS}
    modules = set(sys.modules)
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        for number, handler in handlers.items():
            signal.signal(number, handler)
        _forget_project_modules(set(sys.modules) - modules)


def _forget_project_modules(names: set[str]) -> None:
    for name in names:
        module = sys.modules.get(name)
        places = [getattr(module, "__file__", None), *getattr(module, "__path__", [])]
        if any(place and not _ours(Path(place)) for place in places):
            del sys.modules[name]


def _ours(place: Path) -> bool:
    """Whether a module file belongs to this repository or the installed Python."""
    resolved = place.resolve()
    return any(resolved.is_relative_to(folder) for folder in _KEPT)


_KEPT = tuple(Path(folder).resolve() for folder in
              (Path(__file__).resolve().parents[1], sys.prefix, sys.base_prefix))
