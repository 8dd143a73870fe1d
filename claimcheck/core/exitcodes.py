"""Exit codes of the ``claimcheck`` commands, as an ``IntEnum`` so scripts can tell them apart.

| code | meaning |
|---|---|
| 0 | every selected check ran, whatever the verdicts (lint: no errors) |
| 1 | some check errored, timed out or died (lint: errors found) |
| 2 | usage error: unknown option, missing path, a card that does not load |
| 3 | ``--fail-on contradicted`` is set and something is contradicted |
| 4 | the CI gate: a result or power entry a pull request changed was re-made differently |
| 130 | interrupted with Ctrl-C; every result finished before that is kept |
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """What a ``claimcheck`` command tells the shell."""

    OK = 0
    CHECK_ERRORS = 1
    USAGE = 2
    CONTRADICTED = 3
    GATE = 4
    INTERRUPTED = 130
