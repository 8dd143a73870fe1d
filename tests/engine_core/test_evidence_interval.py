"""A seed interval survives the worker's normalisation (it decides a training verdict).

The worker hands the parent only what :func:`normalise_evidence` returns; an interval dropped
there reaches the store as ``null`` and the claim is judged on its mean alone.
"""

from __future__ import annotations

import numpy
import pytest

from claimcheck.checks.api import Evidence, EvidenceError, normalise_evidence


def test_the_interval_record_is_kept_as_plain_data() -> None:
    record = {"k": numpy.int64(2), "values": (numpy.float32(16.0), 18.0), "level": 0.95}
    kept = normalise_evidence(Evidence(measured=17.0, interval=record)).interval
    assert kept == {"k": 2, "values": [16.0, 18.0], "level": 0.95}
    assert type(kept["k"]) is int and isinstance(kept["values"], list)


def test_no_interval_stays_none() -> None:
    assert normalise_evidence(Evidence(measured=1)).interval is None


def test_an_interval_that_is_not_a_mapping_errs_that_claim() -> None:
    with pytest.raises(EvidenceError, match="interval"):
        normalise_evidence(Evidence(measured=1, interval=[1, 2]))  # type: ignore[arg-type]
