"""What the whole suite shares: the signal dispositions its commands inherit."""

from __future__ import annotations

import signal

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Give SIGINT its default meaning in the suite's process, so that the commands the interrupt
    tests start, and then interrupt as a terminal's Ctrl-C would, can be interrupted.

    A suite started in the background without job control (``nohup python -m pytest &``, a
    script's ``&``) inherits SIGINT *ignored*, and an ignored signal stays ignored across
    ``exec``: Python then installs no ``KeyboardInterrupt`` handler, and ``claimcheck verify``
    would never see the Ctrl-C a test sends it. A handled signal is reset to the default on
    ``exec``, so handling it here is enough.
    """
    del config
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
