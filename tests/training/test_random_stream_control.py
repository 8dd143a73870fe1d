"""Training verdicts that do not depend on the random stream (issue 32 item 4).

The trainer trains each seed again with another valid data stream and another initialisation
stream (``models.training.run.CONTROL_STREAMS``); the ``train`` check records them as controls
in the interval, and the engine judges each: a verdict that differs between them is "not
decided at this budget". A claim whose interval sits on its threshold is exactly that case.
"""

from __future__ import annotations

from typing import Any

import pytest

from claimcheck.cards.frontmatter import Claim
from claimcheck.checks.api import Evidence, Fidelity
from claimcheck.checks.stats import ChanceLevel, Control, interval_from_record, seed_interval
from claimcheck.checks.train import result_interval
from claimcheck.verdicts.judge import judge
from claimcheck.verdicts.verdict import Verdict

V, C, U = Verdict.VERIFIED, Verdict.CONTRADICTED, Verdict.UNVERIFIED


def claim(expect: dict[str, Any]) -> Claim:
    return Claim.model_validate({"id": "c", "cite": "tab. 1", "statement": "s", "check": "train",
                                 "expect": expect, "accept_proxy": True})


def trainer_result(own: list[float], controls: list[list[float]]) -> dict[str, Any]:
    return {"metric": "accuracy", "per_seed": own, "seeds": list(range(len(own))),
            "evaluation": {"examples": 1000, "chance": 10.0, "higher_is_better": True,
                           "percent": True},
            "controls": [{"label": f"data stream {i + 1}", "per_seed": values}
                         for i, values in enumerate(controls)]}


def evidence(own: list[float], controls: list[list[float]]) -> Evidence:
    interval = result_interval(trainer_result(own, controls), 0.95)
    return Evidence(measured=interval.mean, fidelity=Fidelity.PROXY,
                    interval=interval.as_record(), data={"name": "mnist-5k"})


# (own seeds, control seeds, verdict, substring of the reason): the 2101.12491 case first, a
# lower bound 0.1 point above 97 whose control lands 0.3 point lower.
ROWS: list[tuple[list[float], list[list[float]], Verdict, str]] = [
    ([97.9, 98.3, 97.9], [[97.6, 98.0, 97.7]], U, "not decided at this budget: verified with"),
    ([97.9, 98.3, 97.9], [[98.2, 98.6, 98.3]], V, ""),
    ([99.0, 99.1, 99.0], [[98.9, 99.0, 99.1], [99.2, 99.0, 99.1]], V, ""),
    ([90.0, 90.5, 90.2], [[91.0, 90.8, 90.9]], C, "wholly outside"),
    ([97.6, 97.7, 97.8], [[99.0, 99.1, 99.0]], U, "inconclusive"),
    ([99.0, 99.1, 99.0], [[12.0, 11.0, 13.0]], U, "but no signal with data stream 1"),
]


@pytest.mark.parametrize("own, controls, verdict, reason", ROWS)
def test_a_verdict_must_hold_under_every_control(own: list[float], controls: list[list[float]],
                                                 verdict: Verdict, reason: str) -> None:
    judgement = judge(claim({"at_least": 97.0}), evidence(own, controls))
    assert judgement.verdict is verdict, judgement.reason
    assert reason in judgement.reason


def test_controls_survive_the_store_and_a_new_level() -> None:
    record = evidence([97.9, 98.3, 97.9], [[97.6, 98.0, 97.7]]).interval
    rebuilt = interval_from_record(record, 0.9)
    assert rebuilt is not None and rebuilt.level == 0.9
    assert [c.values for c in rebuilt.controls] == [(97.6, 98.0, 97.7)]
    assert rebuilt.control_intervals()[0][1].level == 0.9


def test_a_control_needs_one_figure_per_seed() -> None:
    with pytest.raises(ValueError, match="2 values for 3 seeds"):
        seed_interval([1.0, 2.0, 3.0], controls=[Control("data stream 1", (1.0, 2.0))])
    bad = {"label": "x", "values": [1.0, 2.0], "proportions": [], "chance": []}
    record = seed_interval([1.0, 2.0, 3.0]).as_record() | {"controls": [bad]}
    assert interval_from_record(record) is None


def test_a_control_is_judged_with_its_own_chance_level() -> None:
    chance = (ChanceLevel("held-out accuracy", 10.0, True, (12.0, 11.0, 13.0)),)
    interval = seed_interval([99.0, 99.1, 99.0], proportions=[0.99], n=1000,
                             controls=[Control("init stream 1", (12.0, 11.0, 13.0), (0.12,),
                                               chance)])
    assert interval.control_intervals()[0][1].without_signal()


def test_other_streams_draw_other_orders_and_weights() -> None:
    import numpy as np

    from models.training.loop import data_rng, init_seed

    assert data_rng(3, 2).permutation(50).tolist() == data_rng(3, 2, 0).permutation(50).tolist()
    assert data_rng(3, 2).permutation(50).tolist() != data_rng(3, 2, 1).permutation(50).tolist()
    assert init_seed(3) == 3 and init_seed(3, 1) not in range(1000)
    assert np.random.default_rng([3, 2]).integers(1 << 30) == data_rng(3, 2).integers(1 << 30)
