"""The gate's comparison of a committed entry with the one CI re-made, as a table
(:mod:`claimcheck.engine.gate`; the end-to-end run is tests/hardening/test_ci_gate.py)."""

from __future__ import annotations

from typing import Any

import pytest

from claimcheck.cards.frontmatter import Expect
from claimcheck.engine.gate import _difference, _Entry

INTERVAL = {"low": 2.0, "high": 6.0, "mean": 4.0}


def _e(verdict: str = "verified", measured: Any = 1.0, fidelity: str = "exact",
       interval: dict[str, Any] | None = None) -> _Entry:
    return _Entry(verdict, fidelity, measured, interval)


@pytest.mark.parametrize(("committed", "remade", "expect", "bench", "differs"), [
    (_e(), _e(), None, False, False),
    (_e("verified"), _e("contradicted"), None, False, True),
    (_e(fidelity="exact"), _e(fidelity="proxy"), None, False, True),
    (_e(measured=70), _e(measured=71), None, False, True),                 # integers: exactly
    (_e(measured=True), _e(measured=1), None, False, True),                # a bool is no number
    (_e(measured=1.0), _e(measured=1.0 + 1e-5), None, False, False),       # float noise
    (_e(measured=1.0), _e(measured=1.01), None, False, True),
    (_e(measured=100.0), _e(measured=104.0), Expect(approx=100.0, rel_tol=0.05), False, False),
    (_e(measured=100.0), _e(measured=106.0), Expect(approx=100.0, rel_tol=0.05), False, True),
    (_e(measured=5.5, interval=INTERVAL), _e(measured=4.0, interval=INTERVAL), None, False,
     False),
    (_e(measured=6.5, interval=INTERVAL), _e(measured=4.0, interval=INTERVAL), None, False, True),
    (_e(measured=4.0), _e(measured=4.0, interval=INTERVAL), None, False, True),  # interval cut
    (_e(measured=4.0, interval=INTERVAL), _e(measured=4.0), None, False, True),  # one invented
    (_e(measured=4.0), _e(measured=4.0, interval=INTERVAL), None, True, True),
    (_e(measured=2.0), _e(measured=9.0), None, True, False),               # a timing: verdict only
    (_e("verified", 2.0), _e("contradicted", 0.5), None, True, True),
    (_e(measured=[1, 2]), _e(measured=[1, 2]), None, False, False),
    (_e(measured=[1, 2]), _e(measured=[1, 2, 3]), None, False, True),
    (_e(measured="a"), _e(measured="b"), None, False, True),
])
def test_what_the_gate_counts_as_a_difference(
    committed: _Entry, remade: _Entry, expect: Expect | None, bench: bool, differs: bool
) -> None:
    assert bool(_difference(committed, remade, expect, bench)) is differs
