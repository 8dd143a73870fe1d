"""The table-ranking check measures the subject's margin over the best other row."""

from __future__ import annotations

import pytest

from models.checks.tables import margin_over_best_other


@pytest.mark.parametrize(("rows", "subject", "margin"), [
    ({"ours": 2.54, "em": 1.8, "capsnet": 3.77}, "ours", 0.74),   # another row is better
    ({"ours": 0.16, "hfc": 0.16, "rmdl": 0.18}, "ours", 0.0),     # a tie
    ({"ours": 0.25, "cnn": 0.39}, "ours", -0.14),                 # the subject is best
])
def test_the_margin_is_the_subject_minus_the_best_other(make_ctx, rows, subject, margin) -> None:
    evidence = margin_over_best_other(make_ctx({"rows": rows, "subject": subject}))
    assert evidence.measured == pytest.approx(margin)
    assert subject in evidence.details


@pytest.mark.parametrize("args", [
    {"rows": {"ours": 1.0}, "subject": "ours"},                    # nothing to compare with
    {"rows": {"ours": 1.0, "em": "1.8"}, "subject": "ours"},       # a figure that is no number
    {"rows": {"ours": 1.0, "em": 1.8}, "subject": "theirs"},       # an unknown subject
])
def test_bad_rows_are_errors_never_a_margin(make_ctx, args) -> None:
    with pytest.raises(ValueError):
        margin_over_best_other(make_ctx(args))
